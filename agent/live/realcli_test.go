package live_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

// The lifecycle events desk's installer registers the event hook for.
var (
	claudeEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"PermissionRequest", "Notification", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"}
	codexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "SessionEnd"}
)

// waitState waits until the watched session reads state.
func waitState(t *testing.T, s *server, w *watcher, state string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, ok := w.first(state); ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the session never read %s; seen:%s\nserver log:\n%s", state, looks(w.stop()), s.log)
}

// A real Claude Code turn that runs a shell command, with desk's event hook
// registered for every lifecycle event: the API shows the session working,
// running the command, done, then ended, and keeps every event in order.
func TestClaudeTurnStateSequence(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.RunShell("sleep 0.3; echo from-claude")))
	claude := agentcli.NewClaude(t, mock.URL())
	claude.Allow = []string{"Bash"}
	for _, ev := range claudeEvents {
		claude.AddHook(ev, agentcli.Hook{Command: s.hookCommand("claude")})
	}
	w := s.watch("claude")
	res := claude.Prompt("please run the command").Must(t)
	if !strings.Contains(res.Stdout, "from-claude") {
		t.Fatalf("the command did not run:\n%s", res)
	}
	waitState(t, s, w, "ended", 5*time.Second)
	seen := w.stop()
	if !inOrder(seen, "working", "working running Running: sleep 0.3; echo from-claude", "done", "ended") {
		t.Fatalf("states seen through GET /api/agents:%s", looks(seen))
	}
	t.Logf("states seen:%s", looks(seen))
	a := s.agent(w.id)
	want := []string{"session_start", "prompt", "tool_start", "tool_end", "stop", "session_end"}
	if got := eventKinds(a); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if st := s.svc.Stats(); st.Ignored != 0 {
		t.Errorf("%d reports ignored:\n%s", st.Ignored, s.log)
	}
}

// The same with a real Codex turn.
func TestCodexTurnStateSequence(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.RunShell("sleep 0.3; echo from-codex")))
	codex := agentcli.NewCodex(t, mock.URL())
	for _, ev := range codexEvents {
		codex.AddHook(ev, agentcli.Hook{Command: s.hookCommand("codex")})
	}
	w := s.watch("codex")
	res := codex.Prompt("please run the command").Must(t)
	if !strings.Contains(res.Stdout+res.Stderr, "from-codex") {
		t.Fatalf("the command did not run:\n%s", res)
	}
	waitState(t, s, w, "ended", 5*time.Second)
	seen := w.stop()
	if !inOrder(seen, "working", "working running Running: sleep 0.3; echo from-codex", "done", "ended") {
		t.Fatalf("states seen through GET /api/agents:%s", looks(seen))
	}
	t.Logf("states seen:%s", looks(seen))
	want := []string{"session_start", "prompt", "tool_start", "tool_end", "stop", "session_end"}
	if got := eventKinds(s.agent(w.id)); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
}

// An interactive Claude Code session in a PTY whose model runs a command
// that needs approval: the API reads needs_permission within 100 ms of the
// prompt appearing on the screen, working again once the owner approves,
// then done. It runs alone (not in parallel with the other CLI tests):
// the time it checks is the machine's as much as desk's.
func TestClaudeInteractivePermissionShowsAtOnce(t *testing.T) {
	s := startServer(t)
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.RunShell("echo approved-by-owner")))
	claude := agentcli.NewClaude(t, mock.URL())
	claude.Settings["permissions"] = map[string]any{"ask": []string{"Bash"}}
	for _, ev := range claudeEvents {
		claude.AddHook(ev, agentcli.Hook{Command: s.hookCommand("claude")})
	}
	w := s.watch("claude")
	term := claude.Interactive()
	term.WaitFor("? for shortcuts", 30*time.Second)
	waitState(t, s, w, "waiting_input", 10*time.Second)
	term.Submit("please run it", 10*time.Second)

	// Watch the screen closely for the prompt.
	var shown time.Time
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if strings.Contains(term.Screen(), "Do you want to proceed?") {
			shown = time.Now()
			break
		}
	}
	if shown.IsZero() {
		t.Fatalf("no permission prompt; screen:\n%s", term.Screen())
	}
	waitState(t, s, w, "needs_permission", 5*time.Second)
	asked, _ := w.first("needs_permission")
	lag := asked.at.Sub(shown)
	t.Logf("needs_permission read %s after the prompt appeared (negative: before)", lag)
	if lag > 100*time.Millisecond && !raceEnabled {
		t.Errorf("needs_permission read %s after the prompt appeared, want within 100 ms", lag)
	}
	if !strings.Contains(asked.look, "Bash: echo approved-by-owner") {
		t.Errorf("permission = %q", asked.look)
	}

	term.Press(agentcli.Enter)
	term.WaitFor(mockmodel.Done, 30*time.Second)
	waitState(t, s, w, "done", 5*time.Second)
	term.Submit("/exit", 10*time.Second)
	term.WaitExit(15 * time.Second)
	waitState(t, s, w, "ended", 5*time.Second)
	seen := w.stop()
	if !inOrder(seen, "waiting_input", "working", "needs_permission", "working", "done", "ended") {
		t.Fatalf("states seen:%s", looks(seen))
	}
	t.Logf("states seen:%s", looks(seen))
}

// Claude Code's own http hooks post straight to the server with the
// install's token; no desk process runs per event. (Claude Code sends
// SessionStart to command hooks only, so the first event seen starts the
// session.)
func TestClaudeHTTPHooksPostStraightToTheServer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.RunShell("sleep 0.3; echo over-http")))
	claude := agentcli.NewClaude(t, mock.URL())
	claude.Allow = []string{"Bash"}
	for _, ev := range claudeEvents {
		claude.AddHook(ev, agentcli.Hook{Type: "http", URL: s.url + "/api/hooks/claude",
			Headers: map[string]string{"X-Desk-Hook-Token": s.svc.Token()}})
	}
	w := s.watch("claude")
	res := claude.Prompt("please run the command").Must(t)
	if !strings.Contains(res.Stdout, "over-http") {
		t.Fatalf("the command did not run:\n%s", res)
	}
	waitState(t, s, w, "ended", 5*time.Second)
	seen := w.stop()
	// claude -p sends Stop and SessionEnd back to back, so the done
	// between them can last less than a poll on a busy machine: the
	// events below say it came.
	if !inOrder(seen, "working", "working running Running: sleep 0.3; echo over-http", "ended") {
		t.Fatalf("states seen through GET /api/agents:%s", looks(seen))
	}
	want := []string{"prompt", "tool_start", "tool_end", "stop", "session_end"}
	if got := eventKinds(s.agent(w.id)); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
}
