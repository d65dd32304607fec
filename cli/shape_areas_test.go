package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"desk/pair"
	"desk/pair/pairtest"
	"desk/sqlite"
)

// The walk's parts for the claims, the pairs and the managed sessions.

func (w *shapeEnv) walkClaims(full bool) {
	w.t.Helper()
	w.json("claims", "claims", "--project", "mygame")
	if !full {
		w.json("claim", "claim", "MG-1", "--holder", "claude")
		w.json("claims", "claims", "--project", "mygame")
		w.ok("release", "MG-1", "--holder", "claude")
		return
	}
	w.json("claim", "claim", "MG-1", "--holder", "codex 0193", "--hours", "1.5")
	w.json("claim", "claim", "MG-1", "--holder", "codex 0193", "--hours", "3") // renewed
	w.json("claim", "claim", "MG-2")                                           // by $DESK_AUTHOR
	w.json("claim", "claim", "MG-4", "--holder", "opencode", "--hours", "0.5")
	w.ok("release", "MG-4", "--holder", "opencode")
	w.json("claims", "claims", "--project", "mygame")
}

func (w *shapeEnv) walkPairs(full bool) {
	w.t.Helper()
	folder := w.t.TempDir()
	if !full {
		// A pair just made, and its end.
		p := w.json("pair new", "pair", "new", "--project", "mygame", "--task", "t", "--members", "opencode,codex", "--cwd", folder)
		id := fmt.Sprint(p["id"])
		w.json("pair status", "pair", "status", "--pair", id)
		w.json("pair budget", "pair", "budget", "--pair", id)
		w.json("pair transcript", "pair", "transcript", "--pair", id)
		w.ok("pair", "stop", "--pair", id)
		w.json("pair status", "pair", "status", "--pair", id)
		return
	}
	// The members act through the rules over the same data folder, as
	// their MCP servers do.
	ctx := context.Background()
	db, err := sqlite.Open(ctx, w.data, sqlite.Options{})
	if err != nil {
		w.t.Fatal(err)
	}
	p, err := pairtest.Fill(ctx, &pair.Service{Store: db, PatchRoot: pair.PatchRootIn(w.data)}, "mygame", folder)
	db.Close()
	if err != nil {
		w.t.Fatal(err)
	}
	w.json("pair status", "pair", "status", "--pair", p.ID)
	w.json("pair budget", "pair", "budget", "--pair", p.ID, "--messages", "300")
	w.json("pair transcript", "pair", "transcript", "--pair", p.ID)
	w.json("pair transcript", "pair", "transcript", "--pair", p.ID, "--limit", "2")
	w.ok("pair", "ok", "--pair", p.ID)
	q := w.json("pair new", "pair", "new", "--project", "mygame", "--task", "autonomy: semi\naudit the loop", "--members", "claude,codex",
		"--mode", "audit", "--writer", "claude", "--cwd", w.t.TempDir())
	w.ok("pair", "stop", "--pair", fmt.Sprint(q["id"]), "--reason", "enough")
	w.json("pair status", "pair", "status", "--pair", fmt.Sprint(q["id"]))
}

// sessionIDs finds the ids in desk sessions --json.
var sessionIDs = regexp.MustCompile(`"id":\s*"(s-[^"]+)"`)

// sessionExited waits until session id reads exited.
func (w *shapeEnv) sessionExited(id string) map[string]any {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, s := range w.json("sessions", "sessions", "--all")["sessions"].([]any) {
			if s := s.(map[string]any); s["id"] == id && s["state"] == "exited" {
				return s
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("session %s did not exit", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *shapeEnv) walkSessions(full bool) {
	w.t.Helper()
	folder := w.t.TempDir()
	w.t.Cleanup(func() { // nothing a walk launched outlives the test
		out := w.run("sessions", "--json").out
		for _, id := range sessionIDs.FindAllStringSubmatch(out, -1) {
			w.run("stop-session", "--kill", id[1])
		}
	})
	w.json("sessions", "sessions")
	w.json("sessions", "sessions", "--all")
	if !full {
		id := fmt.Sprint(w.json("run", "run", "bash", "--cwd", folder)["id"])
		w.json("screen", "screen", id)
		w.ok("type", id, "echo hi", "--enter")
		w.ok("keys", id, "enter")
		w.ok("rename-session", id, "shell")
		w.json("stop-session", "stop-session", "--kill", id)
		w.sessionExited(id)
		w.json("resume-session", "resume-session", id)
		w.json("stop-session", "stop-session", "--kill", id)
		w.sessionExited(id)
		return
	}
	shell := fmt.Sprint(w.json("run", "run", "bash", "--cwd", folder, "--name", "harbor shell", "--", "--norc")["id"])
	w.ok("type", shell, "printf 'one\\ntwo\\n'", "--enter")
	w.ok("keys", shell, "enter", "up")
	w.ok("rename-session", shell, "the harbor")
	w.json("screen", "screen", shell)
	w.agentIn(shell, folder)

	done := fmt.Sprint(w.json("run", "run", "custom", "--cwd", folder, "--", "sh", "-c", "echo bye; exit 3")["id"])
	if s := w.sessionExited(done); fmt.Sprint(s["exit_code"]) != "3" {
		w.t.Errorf("the command that exits 3 ended with %v", s["exit_code"])
	}
	other := fmt.Sprint(w.json("run", "run", "bash", "--cwd", folder)["id"])
	w.json("stop-session", "stop-session", other) // hung up
	w.sessionExited(other)
	w.json("resume-session", "resume-session", other)
	w.json("stop-session", "stop-session", "--kill", other)
	w.sessionExited(other)
	w.json("sessions", "sessions")
	w.json("sessions", "sessions", "--all")
}

// agentIn has an agent report through its hooks from inside managed
// session id, to a server that records it, and waits until desk sessions
// shows it on the session.
func (w *shapeEnv) agentIn(id, folder string) {
	w.t.Helper()
	w.ok("serve", "--detach", "--port", "0")
	defer w.run("stop")
	extra := w.extra
	w.extra = append(slices.Clone(extra), "DESK_SESSION_ID="+id, "DESK_SESSION_GENERATION=1")
	for _, payload := range []string{
		`{"session_id":"m1","hook_event_name":"SessionStart","cwd":"` + folder + `","source":"startup"}`,
		`{"session_id":"m1","hook_event_name":"UserPromptSubmit","cwd":"` + folder + `","prompt":"go"}`,
	} {
		w.stdin = payload
		w.ok("hook", "event", "--client", "claude")
	}
	w.extra, w.stdin = extra, ""
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, s := range w.json("sessions", "sessions")["sessions"].([]any) {
			if s := s.(map[string]any); s["id"] == id && s["agent"] != nil {
				return
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("session %s shows no agent after its hooks reported", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readAreas runs every read of the claims, the pairs and the sessions.
func (w *shapeEnv) readAreas() {
	w.t.Helper()
	w.json("claims", "claims", "--project", "mygame")
	for _, id := range []string{"p1", "p2"} {
		if w.run("pair", "status", "--pair", id).code != 0 {
			continue
		}
		w.json("pair status", "pair", "status", "--pair", id)
		w.json("pair budget", "pair", "budget", "--pair", id)
		w.json("pair transcript", "pair", "transcript", "--pair", id)
	}
	w.json("sessions", "sessions")
	for _, s := range w.json("sessions", "sessions", "--all")["sessions"].([]any) {
		id := fmt.Sprint(s.(map[string]any)["id"])
		if r := w.run("screen", id, "--json"); r.code == 0 {
			w.json("screen", "screen", id)
		}
	}
	if w.name != "empty" {
		// The patch files are the desk's own, in its data folder.
		for _, p := range w.json("pair status", "pair", "status", "--pair", "p1")["patches"].([]any) {
			path := fmt.Sprint(p.(map[string]any)["path"])
			if !strings.HasPrefix(path, w.data+string(filepath.Separator)) {
				w.t.Errorf("%s desk: patch file %s is outside the data folder %s", w.name, path, w.data)
			} else if _, err := os.Stat(path); err != nil {
				w.t.Errorf("%s desk: %v", w.name, err)
			}
		}
	}
}
