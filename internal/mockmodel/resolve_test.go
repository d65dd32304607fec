package mockmodel

import (
	"strings"
	"testing"
)

func TestResolveFindsEachClientsNameForAnMCPTool(t *testing.T) {
	claude := []Tool{{Name: "Bash"}, {Name: "Read"}, {Name: "mcp__desk__create_issue"}, {Name: "mcp__desk__list_issues"}}
	claudePlugin := []Tool{{Name: "Bash"}, {Name: "mcp__plugin_desk_desk__create_issue"}}
	codex := []Tool{{Name: "exec_command", Type: "function"}, {Name: "create_issue", Namespace: "mcp__desk", Type: "function"},
		{Name: "close_agent", Namespace: "multi_agent_v1", Type: "function"}}
	codexHyphen := []Tool{{Name: "echo", Namespace: "mcp__my_srv", Type: "function"}}
	opencode := []Tool{{Name: "bash"}, {Name: "read"}, {Name: "desk_create_issue"}, {Name: "todowrite"}}
	two := []Tool{{Name: "mcp__desk__create_issue"}, {Name: "mcp__other__create_issue"}}

	tests := []struct {
		name          string
		call          Call
		tools         []Tool
		wantName      string
		wantNamespace string
		wantErr       string
	}{
		{"claude", Call{Tool: "create_issue"}, claude, "mcp__desk__create_issue", "", ""},
		{"claude with server", Call{Server: "desk", Tool: "create_issue"}, claude, "mcp__desk__create_issue", "", ""},
		{"claude plugin", Call{Server: "desk", Tool: "create_issue"}, claudePlugin, "mcp__plugin_desk_desk__create_issue", "", ""},
		{"claude plugin without server", Call{Tool: "create_issue"}, claudePlugin, "mcp__plugin_desk_desk__create_issue", "", ""},
		{"codex namespace", Call{Tool: "create_issue"}, codex, "create_issue", "mcp__desk", ""},
		{"codex hyphenated server", Call{Server: "my-srv", Tool: "echo"}, codexHyphen, "echo", "mcp__my_srv", ""},
		{"opencode", Call{Tool: "create_issue"}, opencode, "desk_create_issue", "", ""},
		{"opencode with server", Call{Server: "desk", Tool: "create_issue"}, opencode, "desk_create_issue", "", ""},
		{"wrong server", Call{Server: "other", Tool: "create_issue"}, claude, "", "", "no offered tool"},
		{"missing tool", Call{Tool: "delete_everything"}, claude, "", "", "offered: Bash, Read"},
		{"ambiguous", Call{Tool: "create_issue"}, two, "", "", "ambiguous"},
		{"ambiguity settled by server", Call{Server: "other", Tool: "create_issue"}, two, "mcp__other__create_issue", "", ""},
		{"exact", Call{Exact: "Read", Input: map[string]string{"file_path": "/x"}}, claude, "Read", "", ""},
		{"exact namespaced", Call{Exact: "multi_agent_v1__close_agent"}, codex, "close_agent", "multi_agent_v1", ""},
		{"exact missing", Call{Exact: "Write"}, claude, "", "", "not offered"},
		{"nothing named", Call{}, claude, "", "", "names no tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolve(&tt.call, tt.tools)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.wantName || got.Namespace != tt.wantNamespace {
				t.Errorf("resolved to %q in %q, want %q in %q", got.Name, got.Namespace, tt.wantName, tt.wantNamespace)
			}
		})
	}
}

func TestResolveShellUsesEachClientsShellTool(t *testing.T) {
	tests := []struct {
		client string
		tools  []Tool
		name   string
		input  string
	}{
		{"claude", []Tool{{Name: "Read"}, {Name: "Bash"}}, "Bash", `{"command":"echo hi","description":"Run a command for the mock model"}`},
		{"codex", []Tool{{Name: "exec_command", Type: "function"}, {Name: "write_stdin", Type: "function"}}, "exec_command", `{"cmd":"echo hi"}`},
		{"codex argv shell", []Tool{{Name: "shell", Type: "function"}}, "shell", `{"command":["bash","-lc","echo hi"]}`},
		{"opencode", []Tool{{Name: "read"}, {Name: "bash"}}, "bash", `{"command":"echo hi","description":"Run a command for the mock model"}`},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			got, err := resolve(&Call{Shell: "echo hi"}, tt.tools)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.name || string(got.Input) != tt.input {
				t.Errorf("got %s %s, want %s %s", got.Name, got.Input, tt.name, tt.input)
			}
		})
	}
	if _, err := resolve(&Call{Shell: "echo"}, []Tool{{Name: "Read"}}); err == nil {
		t.Error("shell call resolved with no shell tool offered")
	}
}

func TestInputJSONForms(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want string
	}{
		{nil, `{}`},
		{map[string]int{"a": 1}, `{"a":1}`},
		{`{"b":2}`, `{"b":2}`},
		{[]byte(`{"c":3}`), `{"c":3}`},
	} {
		got, err := inputJSON(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("inputJSON(%v) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := inputJSON(`{not json`); err == nil {
		t.Error("invalid JSON string accepted")
	}
}

func TestCustomToolInputIsPlainText(t *testing.T) {
	c := resolvedCall{Type: "custom", Input: []byte(`"*** Begin Patch"`)}
	if got := c.wireInput(); got != "*** Begin Patch" {
		t.Errorf("custom input = %q", got)
	}
	f := resolvedCall{Type: "function", Input: []byte(`{"a":1}`)}
	if got := f.wireInput(); got != `{"a":1}` {
		t.Errorf("function input = %q", got)
	}
}
