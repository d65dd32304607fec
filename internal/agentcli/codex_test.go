package agentcli_test

import (
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

func TestCodexCallsMCPToolInNamespace(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "codex-echo")
	mock := mockmodel.New(t, echoScript(text))
	codex := agentcli.NewCodex(t, mock.URL())
	srv, marker := echoServer(t)
	codex.AddMCPServer("echo-srv", srv)

	res := codex.Prompt("please echo something").Must(t)

	assertEchoRan(t, mock, marker, text, res)
	call := mock.Find(func(r *mockmodel.Request) bool { return r.Answer != nil && r.Answer.CallID != "" })
	// Codex spells the server's hyphen as an underscore in the namespace.
	if call == nil || call.Answer.CallName != "mcp__echo_srv__echo" {
		t.Errorf("mock's call = %+v, want the namespace tool mcp__echo_srv / echo", call)
	}
}

func TestCodexSessionStartHookContextReachesModel(t *testing.T) {
	t.Parallel()
	ctxText := uniqueText(t, "DESK_CONTEXT")
	mock := mockmodel.New(t, nil)
	codex := agentcli.NewCodex(t, mock.URL())
	hook, payload := sessionStartHook(t, ctxText)
	codex.AddHook("SessionStart", agentcli.Hook{Command: hook})

	res := codex.Prompt("hello").Must(t)

	if !strings.Contains(res.Stdout, "MOCK_OK") {
		t.Errorf("stdout lacks the mock's answer; run:\n%s", res)
	}
	req := mock.Find(func(r *mockmodel.Request) bool { return r.View != nil && !r.View.Side })
	if req == nil {
		t.Fatalf("no model turn reached the mock; run:\n%s", res)
	}
	if !strings.Contains(req.View.ContextText(), ctxText) {
		t.Errorf("hook context %q is not in the model's context:\n%s", ctxText, req.View.ContextText())
	}
	assertSameSession(t, payload, req)
	if req.View.LastUserText != "hello" {
		t.Errorf("last user text = %q, want the prompt", req.View.LastUserText)
	}
}

func TestCodexInteractiveTurnInPTY(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "codex-tty")
	mock := mockmodel.New(t, echoScript(text))
	codex := agentcli.NewCodex(t, mock.URL())
	srv, marker := echoServer(t)
	codex.AddMCPServer("echo-srv", srv)

	term := codex.Interactive()
	term.WaitFor("mock-model", 30*time.Second)
	term.Submit("please echo in the terminal", 10*time.Second)
	term.WaitFor(mockmodel.Done+": ", 30*time.Second)
	t.Logf("screen after the turn:\n%s", term.Screen())
	if _, err := readFile(marker); err != nil {
		t.Errorf("the echo tool did not run: %v", err)
	}
}
