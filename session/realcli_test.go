package session_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

// worldFor makes a world whose environment is a CLI sandbox's (its HOME,
// its config folder, the mock model's address), so that the server's
// launches run that CLI against the mock.
func worldFor(t testing.TB, environ []string, kind, bin string) *world {
	w := newWorld(t)
	w.env = append(append([]string{}, environ...), "DESK_DATA="+w.data, agentBin(kind)+"="+bin)
	return w
}

func agentBin(kind string) string { return "DESK_" + strings.ToUpper(kind) + "_BIN" }

// agentState is the part of a record's agent the tests read.
type agentState struct {
	State      string `json:"state"`
	ProviderID string `json:"provider_session_id"`
	Launch     string `json:"launch"`
	Permission *struct {
		Label string `json:"label"`
	} `json:"permission"`
}

// A real Claude Code in a managed session, against the mock model: its
// hooks (handed to this launch with --settings) put its state in the
// session record: working, needs_permission when the mock asks for a
// tool, working again after the approval typed through desk keys, done.
// Its resume id is captured, GET /api/agents marks it managed, and after
// the server is killed with -9 a new viewer finds the same screen byte
// for byte.
func TestClaudeManagedSessionCarriesItsHookStates(t *testing.T) {
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.RunShell("sleep 1.5; echo approved-by-owner")))
	claude := agentcli.NewClaude(t, mock.URL())
	// A Bash call needs approval in the interactive UI.
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"ask": []string{"Bash"}}})
	os.WriteFile(filepath.Join(claude.ConfigDir, "settings.json"), settings, 0o600)
	w := worldFor(t, claude.Environ(), "claude", claude.Bin)
	srv := w.serve()
	s := srv.launch(`{"kind": "claude", "cwd": "` + claude.Dir + `", "cols": 160, "rows": 50}`)
	if s.Hooks != "launch" {
		t.Errorf("hooks = %q, want launch", s.Hooks)
	}
	srv.waitScreen(s.ID, "? for shortcuts", 60*time.Second)

	var seen []string
	look := func() agentState {
		var a agentState
		if r := srv.session(s.ID); len(r.Agent) > 0 && string(r.Agent) != "null" {
			json.Unmarshal(r.Agent, &a)
		}
		if a.State != "" && (len(seen) == 0 || seen[len(seen)-1] != a.State) {
			seen = append(seen, a.State)
		}
		return a
	}
	waitState := func(state string, d time.Duration) agentState {
		t.Helper()
		for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if a := look(); a.State == state {
				return a
			}
		}
		t.Fatalf("the session record never read %s; seen %v; screen:\n%s", state, seen, srv.screenText(s.ID))
		return agentState{}
	}
	waitState("waiting_input", 20*time.Second)
	w.must("type", s.ID, "please run it", "--enter")
	a := waitState("needs_permission", 60*time.Second)
	if a.Permission == nil || !strings.Contains(a.Permission.Label, "approved-by-owner") {
		t.Errorf("permission = %+v", a.Permission)
	}
	srv.waitScreen(s.ID, "Do you want to proceed?", 20*time.Second)
	w.must("keys", s.ID, "enter")
	waitState("working", 20*time.Second)
	a = waitState("done", 60*time.Second)
	srv.waitScreen(s.ID, mockmodel.Done, 20*time.Second)
	t.Logf("states seen in the record: %v", seen)
	if !inOrder(seen, "waiting_input", "working", "needs_permission", "working", "done") {
		t.Errorf("states seen in the record: %v", seen)
	}
	if a.Launch != s.ID {
		t.Errorf("the agent's launch is %q, want %s", a.Launch, s.ID)
	}
	// The resume id is the provider's session id, captured from the hooks.
	deadline := time.Now().Add(5 * time.Second)
	for r := srv.session(s.ID); r.ResumeID == nil || *r.ResumeID != a.ProviderID; r = srv.session(s.ID) {
		if time.Now().After(deadline) {
			t.Fatalf("resume id %v, want %s", r.ResumeID, a.ProviderID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var agents struct {
		Agents []struct {
			ID      string `json:"id"`
			Managed bool   `json:"managed"`
			Session string `json:"session"`
		} `json:"agents"`
	}
	srv.api(200, "GET", "/api/agents", "", &agents)
	found := false
	for _, ag := range agents.Agents {
		if ag.Session == s.ID && ag.Managed {
			found = true
		}
	}
	if !found {
		t.Errorf("GET /api/agents does not mark the session managed: %+v", agents.Agents)
	}

	// The server dies; the session does not.
	time.Sleep(500 * time.Millisecond) // let the UI settle
	before := srv.attach(s.ID, "").firstSnapshot()
	srv.kill()
	srv = w.serve()
	after := srv.attach(s.ID, "").firstSnapshot()
	if !bytes.Equal(before, after) {
		t.Errorf("after kill -9 of the server the screen differs:\nbefore %q\nafter  %q", before, after)
	}
	if r := srv.session(s.ID); r.State != "running" {
		t.Fatalf("after the restart: %+v", r)
	}
	var stopped record
	srv.api(200, "DELETE", "/api/sessions/"+s.ID, "", &stopped)
	if stopped.State != "exited" || *stopped.ExitReason != "stopped" {
		t.Errorf("after the stop: %+v", stopped)
	}
}

func inOrder(seen []string, want ...string) bool {
	i := 0
	for _, s := range seen {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}

// A real Codex launches in a managed session, shows its TUI in desk
// screen, and stops cleanly.
func TestCodexManagedSessionShowsItsTUIAndStops(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	codex := agentcli.NewCodex(t, mock.URL())
	w := worldFor(t, codex.Environ(), "codex", codex.Bin)
	id := strings.TrimSpace(w.must("run", "codex", "--cwd", codex.Dir))
	got := waitCLI(t, w, id, "mock-model", 60*time.Second)
	t.Logf("codex screen:\n%s", got)
	out := w.must("stop-session", id)
	if !strings.Contains(out, "stopped") {
		t.Errorf("stop-session: %s", out)
	}
	waitGroupGone(t, w, id)
	if list := w.must("sessions", "--all", "--json"); !strings.Contains(list, `"state":"exited"`) || !strings.Contains(list, `"hooks":"installed"`) {
		t.Errorf("after the stop: %s", list)
	}
}

// A real opencode launches in a managed session, shows its TUI in desk
// screen, and stops cleanly.
func TestOpencodeManagedSessionShowsItsTUIAndStops(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	oc := agentcli.NewOpencode(t, mock.URL())
	oc.Command(t.Context()) // writes its config file
	w := worldFor(t, oc.Environ(), "opencode", oc.Bin)
	id := strings.TrimSpace(w.must("run", "opencode", "--cwd", oc.Dir, "--bypass"))
	got := waitCLI(t, w, id, "ctrl+p commands", 90*time.Second)
	t.Logf("opencode screen:\n%s", got)
	if js := w.must("screen", "--json", id); !strings.Contains(js, `"alt_screen":true`) {
		t.Errorf("opencode's full-screen UI is not on the alternate screen: %s", js)
	}
	out := w.must("stop-session", id)
	if !strings.Contains(out, "stopped") {
		t.Errorf("stop-session: %s", out)
	}
	waitGroupGone(t, w, id)
}

// waitGroupGone waits until nothing of a session's program is left: its
// process group (the program leads its own) has no process.
func waitGroupGone(t *testing.T, w *world, id string) {
	t.Helper()
	var list struct{ Sessions []record }
	json.Unmarshal([]byte(w.must("sessions", "--all", "--json")), &list)
	for _, s := range list.Sessions {
		if s.ID != id || s.PID <= 0 {
			continue
		}
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(-s.PID, 0) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("processes of session %s (group %d) are still running 10 s after the stop", id, s.PID)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// waitResumeID waits until a session's record holds a resume id, and
// returns it.
func waitResumeID(t *testing.T, srv *server, id string, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		r := srv.session(id)
		if r.ResumeID != nil && *r.ResumeID != "" {
			return *r.ResumeID
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never got a resume id: %+v\nscreen:\n%s", id, r, srv.screenText(id))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A real Codex in a managed session: once it has had a turn, desk finds
// its session in Codex's own records (CODEX_HOME/sessions/.../rollout-*)
// and keeps its id as the resume id; resume-session relaunches Codex
// with it and Codex reopens that conversation.
func TestCodexResumeIDIsCapturedFromItsSessionRecords(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	codex := agentcli.NewCodex(t, mock.URL())
	w := worldFor(t, codex.Environ(), "codex", codex.Bin)
	srv := w.serve()
	s := srv.launch(`{"kind": "codex", "cwd": "` + codex.Dir + `", "cols": 120, "rows": 40}`)
	srv.waitScreen(s.ID, "mock-model", 60*time.Second)
	w.must("type", s.ID, "say the first thing", "--enter")
	srv.waitScreen(s.ID, "MOCK_OK", 60*time.Second)

	// What Codex itself recorded: one rollout whose name ends in its id.
	files, _ := filepath.Glob(filepath.Join(codex.CodexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("codex's session records: %v", files)
	}
	got := waitResumeID(t, srv, s.ID, 40*time.Second)
	if !strings.HasSuffix(strings.TrimSuffix(filepath.Base(files[0]), ".jsonl"), got) {
		t.Fatalf("resume id %s is not the session of %s", got, files[0])
	}

	var stopped record
	srv.api(200, "DELETE", "/api/sessions/"+s.ID, "", &stopped)
	waitGroupGone(t, w, s.ID)
	// Right after the stop: the ended holder may still linger, and the
	// next generation's must not lose its socket to it.
	w.must("resume-session", s.ID)
	// Codex resumes the conversation: the first turn shows again.
	srv.waitScreen(s.ID, "say the first thing", 60*time.Second)
	r := srv.session(s.ID)
	if r.State != "running" || r.Generation != 2 || r.ResumeID == nil || *r.ResumeID != got {
		t.Errorf("after resume-session: %+v", r)
	}
	files, _ = filepath.Glob(filepath.Join(codex.CodexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(files) != 1 {
		t.Errorf("the resumed Codex started a new session: %v", files)
	}
	srv.api(200, "DELETE", "/api/sessions/"+s.ID, "", &stopped)
	waitGroupGone(t, w, s.ID)
}

// A real opencode in a managed session: once it has had a turn, desk
// finds its session with `opencode session list --format json` and
// keeps its id as the resume id; resume-session relaunches opencode with
// it and opencode reopens that conversation.
func TestOpencodeResumeIDIsCapturedFromItsSessionList(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	oc := agentcli.NewOpencode(t, mock.URL())
	oc.Command(t.Context()) // writes its config file
	w := worldFor(t, oc.Environ(), "opencode", oc.Bin)
	srv := w.serve()
	s := srv.launch(`{"kind": "opencode", "cwd": "` + oc.Dir + `", "cols": 120, "rows": 40}`)
	srv.waitScreen(s.ID, "ctrl+p commands", 90*time.Second)
	w.must("type", s.ID, "say the first thing")
	w.must("keys", s.ID, "enter")
	srv.waitScreen(s.ID, "MOCK_OK", 60*time.Second)

	// What opencode itself lists.
	out, err := oc.Command(t.Context(), "session", "list", "--format", "json").Output()
	if err != nil {
		t.Fatalf("opencode session list: %v", err)
	}
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &list); err != nil || len(list) != 1 {
		t.Fatalf("opencode session list: %v %s", err, out)
	}
	got := waitResumeID(t, srv, s.ID, 40*time.Second)
	if got != list[0].ID {
		t.Fatalf("resume id %s, opencode lists %s", got, list[0].ID)
	}

	var stopped record
	srv.api(200, "DELETE", "/api/sessions/"+s.ID, "", &stopped)
	waitGroupGone(t, w, s.ID)
	w.must("resume-session", s.ID)
	srv.waitScreen(s.ID, "say the first thing", 90*time.Second)
	r := srv.session(s.ID)
	if r.State != "running" || r.Generation != 2 || r.ResumeID == nil || *r.ResumeID != got {
		t.Errorf("after resume-session: %+v", r)
	}
	srv.api(200, "DELETE", "/api/sessions/"+s.ID, "", &stopped)
	waitGroupGone(t, w, s.ID)
}
