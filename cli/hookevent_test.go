package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/agent/intake"
	"desk/serverfile"
)

const promptPayload = `{"session_id":"cli-1","cwd":"/src/game","hook_event_name":"UserPromptSubmit","prompt":"hi"}`

// agentState polls the server's GET /api/agents/{id} until the session is
// in state want.
func agentState(t *testing.T, url, id, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/api/agents/" + id)
		if err == nil {
			var s struct{ State string }
			json.NewDecoder(resp.Body).Decode(&s)
			resp.Body.Close()
			if got = s.State; got == want {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("session %s is %q, want %q", id, got, want)
}

func serveDetached(t *testing.T, e *env) string {
	t.Helper()
	e.ok("serve", "--detach", "--port", "0")
	t.Cleanup(func() { e.run("stop") })
	info, err := serverfile.Read(e.data)
	if err != nil {
		t.Fatal(err)
	}
	return info.URL
}

func TestHookEventReachesTheRunningDesk(t *testing.T) {
	e := newEnv(t)
	url := serveDetached(t, e)
	e.stdin = promptPayload
	r := e.run("hook", "event", "--client", "claude")
	if r.code != 0 || r.out != "" || r.err != "" {
		t.Fatalf("hook event: exit %d, stdout %q, stderr %q; want silence and 0", r.code, r.out, r.err)
	}
	agentState(t, url, "cli-1", "working")
	if intake.Pending(e.data) {
		t.Error("a delivered report was spooled too")
	}
}

// With no server, the report waits in the data folder; the next server
// replays it.
func TestHookEventSpoolsUntilAServerStarts(t *testing.T) {
	e := newEnv(t)
	e.ok("new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	e.stdin = promptPayload
	e.extra = []string{"DESK_HOOK_DEBUG=1"}
	r := e.run("hook", "event", "--client", "claude")
	if r.code != 0 || r.out != "" || !strings.Contains(r.err, "spooled") {
		t.Fatalf("hook event: exit %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	if !intake.Pending(e.data) {
		t.Fatal("nothing spooled")
	}
	url := serveDetached(t, e)
	agentState(t, url, "cli-1", "working")
}

// A hook never fails its agent and never prints: not without a client, not
// without a desk, not with a payload nobody can read.
func TestHookEventNeverFails(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"hook", "event"},
		{"hook", "event", "--client"},
		{"hook", "event", "--client", "claude", "--bogus", "x"},
		{"hook", "event", "--client=nosuch", "--event=Stop"},
	} {
		e.stdin = "not json at all"
		r := e.run(args...)
		if r.code != 0 || r.out != "" || r.err != "" {
			t.Errorf("desk %v: exit %d, stdout %q, stderr %q", args, r.code, r.out, r.err)
		}
	}
	if _, err := os.Stat(e.data); err == nil {
		t.Error("a hook made a desk where there was none")
	}
}

// desk doctor tells when an installed client's hooks last reached desk.
func TestDoctorTellsWhenHooksLastFired(t *testing.T) {
	e := newEnv(t)
	bin := filepath.Join(e.home, "bin")
	os.MkdirAll(bin, 0o755)
	for _, name := range []string{"claude", "codex"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.extra = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	e.ok("new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	e.stdin = promptPayload
	e.ok("hook", "event", "--client", "claude")
	r := e.run("doctor")
	var claude, codex string
	for _, l := range strings.Split(r.out, "\n") {
		switch {
		case strings.HasPrefix(l, "claude "):
			claude = l
		case strings.HasPrefix(l, "codex "):
			codex = l
		}
	}
	if !strings.Contains(claude, "hooks last fired") || !strings.Contains(codex, "hooks never fired") {
		t.Fatalf("doctor:\n%s%s", r.out, r.err)
	}

	// Once a server replayed it, the store remembers.
	url := serveDetached(t, e)
	agentState(t, url, "cli-1", "working")
	if out := e.run("doctor").out; !strings.Contains(out, "hooks last fired") {
		t.Errorf("doctor after the replay:\n%s", out)
	}
}
