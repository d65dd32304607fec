package agentcli_test

import (
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

func TestClaudeCallsMCPToolOfferedByMock(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "claude-echo")
	mock := mockmodel.New(t, echoScript(text))
	claude := agentcli.NewClaude(t, mock.URL())
	srv, marker := echoServer(t)
	claude.AddMCPServer("echo-srv", srv)

	res := claude.Prompt("please echo something").Must(t)

	assertEchoRan(t, mock, marker, text, res)
	first := mock.ModelRequests()[0]
	if !first.View.HasTool("mcp__echo-srv__echo") {
		t.Errorf("tools offered = %v, want mcp__echo-srv__echo", first.View.ToolNames())
	}
}

func TestClaudeSessionStartHookContextReachesModel(t *testing.T) {
	t.Parallel()
	ctxText := uniqueText(t, "DESK_CONTEXT")
	mock := mockmodel.New(t, nil)
	claude := agentcli.NewClaude(t, mock.URL())
	hook, payload := sessionStartHook(t, ctxText)
	claude.AddHook("SessionStart", agentcli.Hook{Command: hook})

	res := claude.Prompt("hello").Must(t)

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
	if strings.Contains(req.View.LastUserText, ctxText) {
		t.Errorf("hook context was taken for user text: %q", req.View.LastUserText)
	}
}

func TestClaudeInteractiveTurnInPTY(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "claude-tty")
	mock := mockmodel.New(t, echoScript(text))
	claude := agentcli.NewClaude(t, mock.URL())
	srv, marker := echoServer(t)
	claude.AddMCPServer("echo-srv", srv)

	term := claude.Interactive()
	term.WaitFor("? for shortcuts", 30*time.Second)
	term.Submit("please echo in the terminal", 10*time.Second)
	term.WaitFor(mockmodel.Done+": echo: "+text, 30*time.Second)
	t.Logf("screen after the turn:\n%s", term.Screen())
	term.Submit("/exit", 10*time.Second)
	if code, err := term.WaitExit(15 * time.Second); err != nil || code != 0 {
		t.Errorf("claude exited with %d, %v; screen:\n%s", code, err, term.Screen())
	}
	if _, err := readFile(marker); err != nil {
		t.Errorf("the echo tool did not run: %v", err)
	}
}

func TestClaudeInteractivePermissionPromptInPTY(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "claude-ask")
	mock := mockmodel.New(t, echoScript(text))
	claude := agentcli.NewClaude(t, mock.URL())
	srv, marker := echoServer(t)
	claude.AddMCPServer("echo-srv", srv)
	claude.AskForMCP = true

	term := claude.Interactive()
	term.WaitFor("? for shortcuts", 30*time.Second)
	term.Submit("please echo after asking", 10*time.Second)
	term.WaitFor("Do you want to proceed?", 30*time.Second)
	if _, err := readFile(marker); err == nil {
		t.Fatal("the tool ran before permission was given")
	}
	term.Press(agentcli.Enter)
	term.WaitFor(mockmodel.Done+": echo: "+text, 30*time.Second)
	if _, err := readFile(marker); err != nil {
		t.Errorf("the echo tool did not run after approval: %v", err)
	}
}

// In interactive mode Claude Code does not wait for MCP servers before the
// first turn; it offers WaitForMcpServers instead. The mock must use it, as
// a model would, or tests race the server's start.
func TestClaudeInteractiveWaitsForSlowMCPServer(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "claude-slow")
	mock := mockmodel.New(t, echoScript(text))
	claude := agentcli.NewClaude(t, mock.URL())
	srv, marker := echoServer(t)
	slow := agentcli.MCPServer{Command: "sh", Args: append([]string{"-c", `sleep 3; exec "$0" "$@"`, srv.Command}, srv.Args...)}
	claude.AddMCPServer("echo-srv", slow)

	term := claude.Interactive()
	term.WaitFor("? for shortcuts", 30*time.Second)
	term.Submit("please echo from the slow server", 10*time.Second)
	term.WaitFor(mockmodel.Done+": echo: "+text, 30*time.Second)
	if _, err := readFile(marker); err != nil {
		t.Errorf("the echo tool did not run: %v", err)
	}
	waited := mock.Find(func(r *mockmodel.Request) bool { return r.Answer != nil && r.Answer.CallName == "WaitForMcpServers" })
	if waited == nil {
		t.Log("the server connected before the first turn; the wait path was not exercised this time")
	}
}
