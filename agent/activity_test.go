package agent_test

import (
	"testing"

	"desk/agent"
)

func TestActivityLabelsAcrossClients(t *testing.T) {
	cases := []struct {
		tool, input string // input is the tool input JSON
		kind        agent.ActivityKind
		label       string
	}{
		{"", "", agent.ActivityThinking, "Thinking"},
		{"Edit", `{"file_path":"/src/desk/sqlite/store.go","old_string":"a","new_string":"b"}`, agent.ActivityEditing, "Editing store.go"},
		{"Write", `{"file_path":"/src/desk/README.md","content":"hi"}`, agent.ActivityEditing, "Writing README.md"},
		{"Bash", `{"command":"go test ./...","description":"Run the tests"}`, agent.ActivityRunning, "Running: go test ./..."},
		{"Bash", `{"command":"go test ./... -run TestSomethingWithAVeryLongNameIndeed -count=1"}`, agent.ActivityRunning, "Running: go test ./... -run TestSomethingWithAVe…"},
		{"Bash", `{"command":"set -e\nmake"}`, agent.ActivityRunning, "Running: set -e …"},
		{"Read", `{"file_path":"/src/desk/README.md"}`, agent.ActivityReading, "Reading README.md"},
		{"Grep", `{"pattern":"TODO","path":"/src"}`, agent.ActivitySearching, "Searching: TODO"},
		{"Glob", `{"pattern":"**/*.go"}`, agent.ActivitySearching, "Searching: **/*.go"},
		{"WebFetch", `{"url":"https://go.dev/doc/effective_go","prompt":"x"}`, agent.ActivityBrowsing, "Fetching go.dev"},
		{"WebSearch", `{"query":"sqlite wal checkpoint"}`, agent.ActivitySearching, "Searching the web: sqlite wal checkpoint"},
		{"Task", `{"description":"Find the flaky test","prompt":"...","subagent_type":"general-purpose"}`, agent.ActivityDelegating, "Delegating: Find the flaky test"},
		{"TodoWrite", `{"todos":[]}`, agent.ActivityPlanning, "Planning"},
		{"AskUserQuestion", `{"questions":[]}`, agent.ActivityAsking, "Asking a question"},
		{"mcp__desk__create_issue", `{"title":"x"}`, agent.ActivityMCP, "Using desk: create_issue"},
		{"mcp__plugin_desk_desk__create_issue", `{}`, agent.ActivityMCP, "Using desk: create_issue"},
		{"mcp__plugin_tools_github__search", `{}`, agent.ActivityMCP, "Using tools_github: search"},
		// Codex
		{"exec_command", `{"cmd":"echo from-codex-shell"}`, agent.ActivityRunning, "Running: echo from-codex-shell"},
		{"shell", `{"command":["bash","-lc","cargo build"]}`, agent.ActivityRunning, "Running: cargo build"},
		{"apply_patch", `"*** Begin Patch\n*** Update File: src/main.rs\n@@\n"`, agent.ActivityEditing, "Editing main.rs"},
		{"update_plan", `{"plan":[]}`, agent.ActivityPlanning, "Planning"},
		// Gemini and Qwen
		{"run_shell_command", `{"command":"npm test"}`, agent.ActivityRunning, "Running: npm test"},
		{"read_file", `{"absolute_path":"/w/app.ts"}`, agent.ActivityReading, "Reading app.ts"},
		{"replace", `{"file_path":"/w/app.ts"}`, agent.ActivityEditing, "Editing app.ts"},
		{"search_file_content", `{"pattern":"useState"}`, agent.ActivitySearching, "Searching: useState"},
		{"list_directory", `{"dir_path":"/w/src"}`, agent.ActivityReading, "Listing /w/src"},
		{"google_web_search", `{"query":"go 1.26"}`, agent.ActivitySearching, "Searching the web: go 1.26"},
		// Kimi
		{"Shell", `{"command":"ls"}`, agent.ActivityRunning, "Running: ls"},
		{"ReadFile", `{"path":"/k/notes.md"}`, agent.ActivityReading, "Reading notes.md"},
		{"StrReplaceFile", `{"path":"/k/a.py"}`, agent.ActivityEditing, "Editing a.py"},
		{"FetchURL", `{"url":"https://example.com/x"}`, agent.ActivityBrowsing, "Fetching example.com"},
		// opencode and Pi
		{"edit", `{"filePath":"/o/index.ts"}`, agent.ActivityEditing, "Editing index.ts"},
		{"bash", `{"command":"bun test"}`, agent.ActivityRunning, "Running: bun test"},
		{"find", `{"pattern":"*.md"}`, agent.ActivitySearching, "Searching: *.md"},
		// Antigravity (arguments renamed by its mapper)
		{"run_command", `{"command":"go vet ./..."}`, agent.ActivityRunning, "Running: go vet ./..."},
		{"view_file", `{"file_path":"/w/main.go"}`, agent.ActivityReading, "Reading main.go"},
		{"write_to_file", `{"file_path":"/w/new.go"}`, agent.ActivityEditing, "Writing new.go"},
		{"codebase_search", `{"Query":"where is auth"}`, agent.ActivitySearching, "Searching: where is auth"},
		// Unknown tools and odd input
		{"FrobnicateWidgets", `{}`, agent.ActivityTool, "Using FrobnicateWidgets"},
		{"Read", `not json`, agent.ActivityReading, "Reading"},
		{"Read", `{"file_path":42}`, agent.ActivityReading, "Reading"},
		{"Bash", ``, agent.ActivityRunning, "Running"},
	}
	for _, c := range cases {
		a := agent.Describe(c.tool, agent.Summarize(c.tool, []byte(c.input)))
		if a.Kind != c.kind || a.Label != c.label || a.Tool != c.tool {
			t.Errorf("%s %s: %s %q, want %s %q", c.tool, c.input, a.Kind, a.Label, c.kind, c.label)
		}
	}
}

func TestSplitMCP(t *testing.T) {
	for _, c := range []struct{ in, server, name string }{
		{"mcp__desk__echo", "desk", "echo"},
		{"mcp__desk-gosdk__echo", "desk-gosdk", "echo"},
		{"mcp__a__b__c", "a", "b__c"},
	} {
		if s, n, ok := agent.SplitMCP(c.in); !ok || s != c.server || n != c.name {
			t.Errorf("SplitMCP(%q) = %q %q %v", c.in, s, n, ok)
		}
	}
	for _, in := range []string{"Bash", "mcp__", "mcp__desk", "mcp____x", "mcp__desk__"} {
		if _, _, ok := agent.SplitMCP(in); ok {
			t.Errorf("SplitMCP(%q) ok", in)
		}
	}
}
