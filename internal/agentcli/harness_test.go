package agentcli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

// echoBin is the testdata MCP server, built once per test binary.
var echoBin struct {
	once sync.Once
	path string
	err  error
}

// echoServer returns an MCP server entry for testdata/echomcp and the
// marker file its echo tool appends to.
func echoServer(t *testing.T) (agentcli.MCPServer, string) {
	t.Helper()
	echoBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "echomcp-")
		if err != nil {
			echoBin.err = err
			return
		}
		echoBin.path = filepath.Join(dir, "echomcp")
		out, err := exec.Command("go", "build", "-o", echoBin.path, "./testdata/echomcp").CombinedOutput()
		if err != nil {
			echoBin.err = fmt.Errorf("go build testdata/echomcp: %v\n%s", err, out)
		}
	})
	if echoBin.err != nil {
		t.Fatal(echoBin.err)
	}
	marker := filepath.Join(t.TempDir(), "echo-marker")
	return agentcli.MCPServer{Command: echoBin.path, Args: []string{"-marker", marker}}, marker
}

func TestMain(m *testing.M) {
	code := m.Run()
	if echoBin.path != "" {
		os.RemoveAll(filepath.Dir(echoBin.path))
	}
	os.Exit(code)
}

// uniqueText is a string no client or prompt would produce by chance.
func uniqueText(t *testing.T, prefix string) string {
	return fmt.Sprintf("%s-%s-%d", prefix, strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

// sessionStartHook writes a command hook that saves its payload and hands
// additionalContext to the agent at session start. It returns the command
// line and the file the payload lands in.
func sessionStartHook(t *testing.T, context string) (command, payload string) {
	t.Helper()
	dir := t.TempDir()
	command, payload = filepath.Join(dir, "session-start.sh"), filepath.Join(dir, "payload.json")
	out := fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":%q}}`, context)
	script := "#!/bin/sh\ncat >'" + payload + "'\nprintf '%s' '" + out + "'\n"
	if err := os.WriteFile(command, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return command, payload
}

// assertSameSession checks that the hook's payload and the model request
// name the same session, which is how desk ties hooks to a conversation.
func assertSameSession(t *testing.T, payloadFile string, req *mockmodel.Request) {
	t.Helper()
	b, err := os.ReadFile(payloadFile)
	if err != nil {
		t.Fatalf("the SessionStart hook did not run: %v", err)
	}
	var payload struct {
		SessionID string `json:"session_id"`
		Event     string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(b, &payload); err != nil {
		t.Fatalf("hook payload %s: %v", b, err)
	}
	if payload.Event != "SessionStart" || payload.SessionID == "" {
		t.Errorf("hook payload = %s", b)
	}
	if got := req.SessionID(); got != payload.SessionID {
		t.Errorf("model request session %q, hook session %q", got, payload.SessionID)
	}
}

// echoScript asks for the echo tool on the first request of a turn and says
// it is done once the tool result arrives.
func echoScript(text string) mockmodel.Script {
	return mockmodel.CallThenDone(mockmodel.CallServerTool("echo-srv", "echo", map[string]string{"text": text}))
}

// assertEchoRan checks both ends of a real MCP tool call: the server wrote
// the marker, and the model was sent the tool's result.
func assertEchoRan(t *testing.T, mock *mockmodel.Server, marker, text string, res *agentcli.Result) {
	t.Helper()
	got, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("the echo tool did not run (no marker: %v); run:\n%s", err, res)
	}
	if strings.TrimSpace(string(got)) != text {
		t.Errorf("marker = %q, want %q", got, text)
	}
	sawResult := mock.Find(func(r *mockmodel.Request) bool {
		if r.View == nil {
			return false
		}
		for _, tr := range r.View.TurnToolResults() {
			if strings.Contains(tr.Output, "echo: "+text) && strings.HasSuffix(tr.Name, "echo") {
				return true
			}
		}
		return false
	})
	if sawResult == nil {
		t.Errorf("the model never saw the echo result; run:\n%s", res)
	}
	if !strings.Contains(res.Stdout, mockmodel.Done+": ") || !strings.Contains(res.Stdout, "echo: "+text) {
		t.Errorf("the CLI did not print the model's final answer; run:\n%s", res)
	}
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
