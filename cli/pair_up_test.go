package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
	"desk/internal/reap"
	"desk/pair"
	"desk/pairterm"
	"desk/serverfile"
)

// desk pair up refuses what it cannot start, before anything is made.
func TestPairUpRefusesBadFlags(t *testing.T) {
	e := pairEnv(t)
	e.fails(2, "--task is required", "pair", "up")
	e.fails(2, "--autonomy", "pair", "up", "--task", "t", "--autonomy", "sometimes")
	e.fails(2, "are both claude", "pair", "up", "--task", "t", "--writer", "claude", "--critic", "claude")
	e.fails(2, "--critic", "pair", "up", "--task", "t", "--critic", "vim")
	e.fails(2, "not a branch name", "pair", "up", "--task", "t", "--worktree", "bad..name")
	if r := e.run("pair", "status"); r.code == 0 || !strings.Contains(r.err, "no live pair") {
		t.Errorf("a refused desk pair up left a pair: exit %d, %s%s", r.code, r.out, r.err)
	}
}

// pairStatus is the part of desk pair status --json the tests read.
type pairStatus struct {
	Members []struct {
		Role    string `json:"role"`
		Session string `json:"session"`
	} `json:"members"`
}

// pairScript is the two agents' model: each answers its first prompt
// from desk pair up (claude writes to codex with pair_deliver), a pointer
// typed into its terminal with pair_read, and a letter read with a reply
// (codex) or the end of its turn.
func pairScript(v *mockmodel.View) mockmodel.Reply {
	// Claude Code may send a new prompt in the message that carries the
	// last tool result, so a shell step is taken once per command.
	called := func(part string) bool {
		for _, c := range v.ToolCalls {
			if strings.Contains(c.Input, part) {
				return true
			}
		}
		return false
	}
	u := v.LastUserText
	switch {
	case strings.Contains(u, "list the folder") && !called("git status --short"):
		return mockmodel.RunShell("git status --short")
	case strings.Contains(u, "reset the tree") && !called("git reset --hard"):
		return mockmodel.RunShell("git reset --hard")
	}
	if r := v.LastToolResult(); r != nil {
		if strings.Contains(r.Output, "hello from claude") && strings.Contains(r.Output, "ack_token") {
			return mockmodel.CallTool("pair_deliver", map[string]any{"body": "hello back from codex"})
		}
		return mockmodel.Say(mockmodel.Done + ": " + strings.Join(strings.Fields(r.Output), " "))
	}
	switch {
	case strings.Contains(u, "[desk pair] letter #"):
		return mockmodel.CallTool("pair_read", map[string]any{})
	case strings.Contains(u, "You are claude in pair"):
		return mockmodel.CallTool("pair_deliver", map[string]any{"body": "hello from claude"})
	}
	return mockmodel.Say("MOCK_OK")
}

// Two real agent CLIs, Claude Code and Codex against the mock model,
// started by desk pair up as managed sessions with their pair and role in
// their environment and desk's MCP server handed to each launch: claude's
// pair_deliver puts a letter in codex's mailbox and a pointer in its
// terminal (typed at once, or by the supervisor desk pair up started once
// codex's composer shows); codex reads it with pair_read and answers the
// same way. Then the supervisor answers Claude Code's real permission
// prompt for an allowlisted command and refuses a never-list one, both in
// the transcript with the exact line.
func TestPairUpStartsTwoRealAgentsThatExchangeLetters(t *testing.T) {
	var mu sync.Mutex
	mock := mockmodel.New(t, func(v *mockmodel.View) mockmodel.Reply {
		mu.Lock()
		defer mu.Unlock()
		r := pairScript(v)
		if os.Getenv("DEBUG_PAIR") != "" {
			var last string
			if tr := v.LastToolResult(); tr != nil {
				last = tr.Output
			}
			t.Logf("model %s: user %q, last result %q, calls %d → %+v %+v", v.API, clip(v.LastUserText, 60), clip(last, 60), len(v.ToolCalls), r.Text, r.Call)
		}
		return r
	})
	claude := agentcli.NewClaude(t, mock.URL())
	// A Bash call needs approval in the interactive UI.
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"ask": []string{"Bash"}}})
	if err := os.WriteFile(filepath.Join(claude.ConfigDir, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	codex := agentcli.NewCodex(t, mock.URL())
	// Both work in claude's sandbox folder; codex trusts it too.
	codex.Config["projects"] = map[string]any{claude.Dir: map[string]any{"trust_level": "trusted"}}
	codex.WriteConfig()

	e := newEnv(t)
	reap.Under(t, filepath.Dir(e.data)) // the holders and the supervisor
	e.dir = claude.Dir
	e.extra = append(claude.Environ(), "CODEX_HOME="+codex.CodexHome, "MOCK_API_KEY=mock-key",
		"DESK_CLAUDE_BIN="+claude.Bin, "DESK_CODEX_BIN="+codex.Bin, "SHELL=/bin/bash")
	e.ok("new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	// A desk serve runs beside the pair, as on a desk in use: it hears the
	// agents' hooks, which give it claude's resume id.
	serveDetached(t, e)
	git := exec.Command("git", "init", "-q")
	git.Dir = claude.Dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}

	started := time.Now()
	r := e.run("pair", "up", "--task", "fix the retry jitter", "--writer", "claude", "--critic", "codex")
	upDone := time.Now()
	if r.code != 0 {
		t.Fatalf("pair up: exit %d\n%s%s", r.code, r.out, r.err)
	}
	id := strings.TrimSpace(r.out)
	t.Logf("pair up: %s\n%s", id, r.err)
	var st pairStatus
	e.okJSON(&st, "pair", "status")
	sessions := map[string]string{}
	for _, m := range st.Members {
		sessions[m.Role] = m.Session
	}
	if sessions["claude"] == "" || sessions["codex"] == "" {
		t.Fatalf("the members are not seated in sessions: %+v", st.Members)
	}
	t.Cleanup(func() {
		e.run("pair", "stop")
		for _, s := range sessions {
			e.run("stop-session", "--kill", s)
		}
	})
	// The supervisor is the one pair up started, or the serve if it took
	// the new pair's lease first.
	if !regexp.MustCompile(`the supervisor is (desk pair pilot, )?process \d+`).MatchString(r.err) {
		t.Errorf("pair up names no supervisor:\n%s", r.err)
	}

	screen := func(role string) string { return e.run("screen", sessions[role]).out }
	waitTranscript := func(what string, ok func([]pair.Event) bool) []pair.Event {
		t.Helper()
		var tr struct{ Entries []pair.Event }
		for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			json.Unmarshal([]byte(e.ok("pair", "transcript", "--json")), &tr)
			if ok(tr.Entries) {
				return tr.Entries
			}
		}
		t.Fatalf("the transcript never showed %s:\n%s\n--- claude:\n%s\n--- codex:\n%s", what, e.ok("pair", "transcript"), screen("claude"), screen("codex"))
		return nil
	}
	has := func(es []pair.Event, kind, role, text string) bool {
		for _, ev := range es {
			if ev.Kind == kind && (role == "" || ev.Role == role) && strings.Contains(ev.Text, text) {
				return true
			}
		}
		return false
	}
	es := waitTranscript("codex's answer", func(es []pair.Event) bool { return has(es, pair.EventLetter, "codex", "hello back from codex") })
	t.Logf("desk pair up took %v; codex's answer was in %v after it", upDone.Sub(started).Round(time.Millisecond), time.Since(upDone).Round(100*time.Millisecond))
	if !has(es, pair.EventLetter, "claude", "hello from claude") {
		t.Errorf("claude's letter is not in the transcript")
	}
	if !has(es, pair.EventDelivered, "", "codex") {
		t.Errorf("no pointer was typed into codex's terminal:\n%s", e.ok("pair", "transcript"))
	}
	// Each model saw the other's letter in a pair_read result.
	waitTranscript("the pointer for claude", func(es []pair.Event) bool { return has(es, pair.EventDelivered, "", "claude") })
	saw := func(api mockmodel.API, body string) bool {
		for _, req := range mock.ModelRequests() {
			if req.View.API != api {
				continue
			}
			for _, tr := range req.View.ToolResults {
				if strings.Contains(tr.Output, body) {
					return true
				}
			}
		}
		return false
	}
	for deadline := time.Now().Add(60 * time.Second); !saw(mockmodel.Anthropic, "hello back from codex"); time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("claude never read codex's letter; claude's screen:\n%s", screen("claude"))
		}
	}
	if !saw(mockmodel.Responses, "hello from claude") {
		t.Errorf("codex's model never saw claude's letter")
	}

	// A real permission prompt of Claude Code: the supervisor confirms
	// an allowlisted command and refuses a never-list one.
	e.ok("type", sessions["claude"], "please list the folder", "--enter")
	es = waitTranscript("the approval", func(es []pair.Event) bool { return has(es, pair.EventApproved, pair.RolePilot, "git status --short") })
	// The turn ends before the next prompt: one typed during a turn is
	// queued by Claude Code, and may be folded into it.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		s := screen("claude")
		if strings.Contains(s, "MOCK_DONE: (Bash completed") && strings.Contains(s, "? for shortcuts") && !strings.Contains(s, "esc to interrupt") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("claude's turn did not end:\n%s", s)
		}
	}
	e.ok("type", sessions["claude"], "please reset the tree", "--enter")
	es = waitTranscript("the refusal", func(es []pair.Event) bool {
		return has(es, pair.EventDenied, pair.RolePilot, "git reset --hard")
	})
	time.Sleep(time.Second)
	if s := screen("claude"); !strings.Contains(s, "Do you want to proceed?") {
		t.Errorf("the refused prompt was not left open:\n%s", s)
	}

	// A new critic: codex's session ends, opencode starts in one of its
	// own, and claude, the pinned writer, stays in its session.
	e.extra = append(e.extra, "DESK_OPENCODE_BIN="+agentcli.OpencodePath(t))
	out := e.ok("pair", "swap", "opencode")
	var after pairStatus
	e.okJSON(&after, "pair", "status")
	seats := map[string]string{}
	for _, m := range after.Members {
		seats[m.Role] = m.Session
	}
	sessions["opencode"] = seats["opencode"]
	if seats["opencode"] == "" || !strings.Contains(out, seats["opencode"]) || seats["claude"] != sessions["claude"] {
		t.Fatalf("after the swap: %s\n%+v", out, after.Members)
	}
	var rec struct {
		State string `json:"state"`
	}
	for deadline := time.Now().Add(10 * time.Second); rec.State != "exited"; time.Sleep(100 * time.Millisecond) {
		var list struct{ Sessions []struct{ ID, State string } }
		json.Unmarshal([]byte(e.ok("sessions", "--all", "--json")), &list)
		for _, s := range list.Sessions {
			if s.ID == sessions["codex"] {
				rec.State = s.State
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("codex's session still runs after the swap: %s", rec.State)
		}
	}
	var st2 struct {
		Members []struct {
			Role string `json:"role"`
			Left bool   `json:"left"`
		} `json:"members"`
	}
	e.okJSON(&st2, "pair", "status")
	for _, m := range st2.Members {
		if m.Left != (m.Role == "codex") {
			t.Errorf("after the swap %s left = %v", m.Role, m.Left)
		}
	}

	// claude's process dies: the supervisor starts it again in its
	// session, resuming its conversation, with its place in the pair.
	type sessionRec struct {
		ID         string   `json:"id"`
		State      string   `json:"state"`
		ResumeID   *string  `json:"resume_id"`
		Generation int64    `json:"generation"`
		Command    []string `json:"command"`
	}
	record := func(id string) sessionRec {
		var list struct{ Sessions []sessionRec }
		json.Unmarshal([]byte(e.ok("sessions", "--all", "--json")), &list)
		for _, s := range list.Sessions {
			if s.ID == id {
				return s
			}
		}
		return sessionRec{}
	}
	var resumeID string
	for deadline := time.Now().Add(30 * time.Second); resumeID == ""; time.Sleep(250 * time.Millisecond) {
		if r := record(sessions["claude"]); r.ResumeID != nil {
			resumeID = *r.ResumeID
		}
		if time.Now().After(deadline) {
			t.Fatalf("claude's resume id was never captured: %+v", record(sessions["claude"]))
		}
	}
	e.ok("stop-session", "--kill", sessions["claude"])
	waitTranscript("the restart", func(es []pair.Event) bool { return has(es, pair.EventRestart, pair.RolePilot, "claude") })
	back := record(sessions["claude"])
	argv := strings.Join(back.Command, " ")
	if back.State != "running" || back.Generation != 2 || !strings.Contains(argv, "--resume "+resumeID) || !strings.Contains(argv, `"DESK_PAIR_ROLE":"claude"`) {
		t.Errorf("claude after the restart: %+v", back)
	}
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(screen("claude"), "? for shortcuts"); time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted claude never showed its composer:\n%s", screen("claude"))
		}
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// desk serve supervises every live pair under a lease: a desk pair pilot
// beside it leaves the pair alone, the server's supervisor parks the pair
// once its round is done, and gives up the lease when the pair stops.
func TestServePilotsTheLivePairsUnderALease(t *testing.T) {
	e := pairEnv(t)
	reap.Under(t, filepath.Dir(e.data))
	id := strings.TrimSpace(e.ok("pair", "new", "--task", "fix the retry jitter", "--members", "opencode,codex"))
	serveDetached(t, e)
	info, err := serverfile.Read(e.data)
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never happened", what)
			}
		}
	}
	waitFor("the server's lease", func() bool { return pairterm.Holder(e.data, id) == info.PID })
	if out := e.ok("pair", "status"); !strings.Contains(out, fmt.Sprintf("supervisor: process %d", info.PID)) {
		t.Errorf("pair status does not name the server as the supervisor:\n%s", out)
	}
	if r := e.run("pair", "pilot", "--once", "--pair", id); r.code != 0 || r.out != "" {
		t.Errorf("a second pilot acted on a leased pair: exit %d, %q %q", r.code, r.out, r.err)
	}
	if pid := pairterm.Holder(e.data, id); pid != info.PID {
		t.Errorf("after the second pilot the lease is %d's, want the server's %d", pid, info.PID)
	}
	svc, w, _ := e.members(id)
	ctx := context.Background()
	if _, err := svc.Claim(ctx, w, "I know the backoff code"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddEvidence(ctx, w, "tests", "go test ./... ok", true); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Advance(ctx, w, pair.PhaseDone, "tested"); err != nil {
		t.Fatal(err)
	}
	waitFor("the server's supervisor parking the pair", func() bool {
		return strings.Contains(e.ok("pair", "transcript"), "the supervisor parks")
	})
	e.ok("pair", "stop")
	waitFor("the lease given up", func() bool { return pairterm.Holder(e.data, id) == 0 })
}

// fakeAgent writes a stand-in for an agent CLI: it prints its place in
// the pair and its arguments, and waits.
func fakeAgent(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	script := "#!/bin/sh\necho \"role=$DESK_PAIR_ROLE pair=$DESK_PAIR cwd=$(pwd)\"\nfor a in \"$@\"; do echo \"arg: $a\"; done\nexec sleep 60\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// desk pair up --worktree starts the pair in a new git worktree beside
// the repo; each agent runs there with its place in its environment and
// desk's MCP server in the arguments its CLI takes. When an agent cannot
// start, nothing is left up.
func TestPairUpInAWorktreeAndItsRollback(t *testing.T) {
	e := pairEnv(t)
	reap.Under(t, filepath.Dir(e.data))
	bin := t.TempDir()
	for _, args := range [][]string{{"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git: %v\n%s", err, out)
		}
	}
	e.extra = []string{"DESK_CLAUDE_BIN=" + fakeAgent(t, bin, "claude"), "DESK_CODEX_BIN=" + fakeAgent(t, bin, "codex"), "SHELL=/bin/sh"}
	var up struct {
		Pair     pair.Pair         `json:"pair"`
		Sessions map[string]string `json:"sessions"`
		Pilot    string            `json:"pilot"`
	}
	e.okJSON(&up, "pair", "up", "--task", "fix the retry jitter", "--worktree", "fix/jitter", "--no-pilot")
	t.Cleanup(func() {
		for _, s := range up.Sessions {
			e.run("stop-session", "--kill", s)
		}
	})
	want := filepath.Join(filepath.Dir(e.dir), filepath.Base(e.dir)+"-fix-jitter")
	if up.Pair.Folder != want || up.Pair.PinnedWriter != "claude" {
		t.Fatalf("pair up --worktree: folder %s (want %s), writer %q", up.Pair.Folder, want, up.Pair.PinnedWriter)
	}
	cmd := exec.Command("git", "worktree", "list")
	cmd.Dir = e.dir
	if out, _ := cmd.CombinedOutput(); !strings.Contains(string(out), want) || !strings.Contains(string(out), "[fix/jitter]") {
		t.Errorf("git worktree list:\n%s", out)
	}
	wantArgs := map[string][]string{
		"claude": {"arg: --mcp-config", `"DESK_PAIR_ROLE":"claude"`, "arg: --allowedTools", "arg: mcp__desk"},
		"codex":  {"arg: -c", "mcp_servers.desk.command=", `DESK_PAIR_ROLE="codex"`, `mcp_servers.desk.args=["--data",`},
	}
	for role, id := range up.Sessions {
		var s string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if s = e.run("screen", id).out; strings.Contains(s, "role=") {
				break
			}
		}
		flat := strings.ReplaceAll(s, "\n", "")
		if !strings.Contains(flat, "role="+role+" pair="+up.Pair.ID+" cwd="+want) {
			t.Errorf("%s's session:\n%s", role, s)
		}
		for _, w := range append(wantArgs[role], "arg: [desk pair] You are "+role+" in pair "+up.Pair.ID) {
			if !strings.Contains(flat, w) {
				t.Errorf("%s's arguments lack %q:\n%s", role, w, s)
			}
		}
	}
	// The same worktree again is taken as it is.
	e.okJSON(&up, "pair", "up", "--task", "again", "--worktree", "fix/jitter", "--no-pilot")
	if up.Pair.Folder != want {
		t.Errorf("the second pair up is in %s", up.Pair.Folder)
	}

	// The critic cannot start: the writer's session is stopped, and the
	// pair with it.
	e.extra[1] = "DESK_CODEX_BIN=/no/such/codex"
	r := e.run("pair", "up", "--task", "a third", "--no-pilot")
	if r.code == 0 || !strings.Contains(r.err, "codex") {
		t.Fatalf("pair up with a missing codex: exit %d, %s%s", r.code, r.out, r.err)
	}
	var st struct {
		Status  string `json:"status"`
		Members []struct {
			Role    string `json:"role"`
			Session string `json:"session"`
		} `json:"members"`
	}
	e.okJSON(&st, "pair", "status", "--pair", "p3")
	if st.Status != "stopped" {
		t.Errorf("the half-started pair is %s", st.Status)
	}
	seated := 0
	running := e.ok("sessions")
	for _, m := range st.Members {
		if m.Session == "" {
			continue
		}
		seated++
		if strings.Contains(running, m.Session) {
			t.Errorf("%s's session %s still runs after the rollback:\n%s", m.Role, m.Session, running)
		}
	}
	if seated != 1 {
		t.Errorf("the half-started pair seated %d members, want the writer alone: %+v", seated, st.Members)
	}
	if !strings.Contains(e.ok("pair", "transcript", "--pair", "p3"), "could not start the agents") {
		t.Error("the transcript does not say why the pair stopped")
	}
}
