package http_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"desk/agent"
	"desk/agent/intake"
	"desk/agent/live"
	deskhttp "desk/http"
	"desk/office"
	"desk/pair"
	"desk/pair/pairtest"
	"desk/session"
	"desk/sqlite"
)

// The walk's parts for the office, the claims, the pairs and the managed
// sessions.

// terminals serves a shape desk's managed sessions: bash and plain
// commands held by the desk binary bin, as desk serve sets them up. stop
// kills what the walk left running and stops the watching, while the store
// is still open.
func terminals(w *shapeDesk, db *sqlite.DB, dir, bin string, agents *live.Service) (t *deskhttp.Terminals, stop func()) {
	w.t.Helper()
	tok, err := session.TerminalToken(dir)
	if err != nil {
		w.t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.t.TempDir(), "SHELL=/bin/bash", "LANG=C.UTF-8", "TERM=xterm-256color"}
	m := &session.Manager{Store: db, DataDir: dir, DeskBin: bin, Environ: env, OnLaunch: agents.Fence}
	sup := &session.Supervisor{M: m, Agent: agents.ByLaunch, Tick: 50 * time.Millisecond}
	if err := sup.Start(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	stop = func() {
		list, err := m.List(context.Background(), false)
		if err != nil {
			w.t.Errorf("list the sessions to stop: %v", err)
		}
		for _, s := range list {
			if _, err := m.Stop(context.Background(), s.ID, true); err != nil {
				w.t.Errorf("stop %s: %v", s.ID, err)
			}
		}
		sup.Close()
	}
	w.termToken = tok
	return &deskhttp.Terminals{Manager: m, Supervisor: sup, Token: tok, Agent: agents.ByLaunch}, stop
}

// page is the header pair of desk's own page token.
func (w *shapeDesk) page() []string { return []string{"X-Desk-Token", w.srv.Token()} }

// bearer is the header pair of the terminal token, as other clients send it.
func (w *shapeDesk) bearer() []string { return []string{"Authorization", "Bearer " + w.termToken} }

// streamType opens path's event stream, makes write happen and files the
// first change event about a row of type typ as its own answer.
func (w *shapeDesk) streamType(path, typ string, write func()) {
	w.t.Helper()
	route := deskhttp.RouteOf(w.srv, "GET", path)
	w.hit[route] = true
	s := openStream(w.t, w.base+path, "")
	s.next(w.t) // hello
	write()
	ev := s.until(w.t, `"type":"`+typ+`"`)
	if ev.name != "change" {
		w.t.Fatalf("%s: a %s row came as a %s event: %s", path, typ, ev.name, ev.data)
	}
	w.fileEvent(route+" change "+typ, ev.data)
}

// anyStatus files an answer whatever its status: a read whose answer
// depends on what the desk holds (a screen of a session that ended).
func (w *shapeDesk) anyStatus(path string, hdr ...string) {
	w.t.Helper()
	code, _, _ := w.do("GET", path, "", hdr...)
	w.call("", code, "GET", path, "", hdr...)
}

func (w *shapeDesk) walkOffice(full bool) {
	w.t.Helper()
	w.get("", "/api/office/catalog")
	w.get("", "/api/office/seats")
	l := obj(w.get("", "/api/office/layout"))
	var chairs []string
	for _, f := range list(l["furniture"]) {
		if obj(f)["type"] == "chair" {
			chairs = append(chairs, str(obj(f)["uid"]))
		}
	}
	lay := office.Default()
	if full {
		lay.Areas = append(lay.Areas, office.Area{ID: "game", Name: "Game", Color: "#336699", Project: "mygame", Folder: "/src/game", Tiles: []int{lay.Cols + 1, lay.Cols + 2}})
		lay.Colors[lay.Cols+1] = "#445566"
	} else {
		lay.Areas = nil // a layout with no areas at all
	}
	b, err := json.Marshal(lay)
	if err != nil {
		w.t.Fatal(err)
	}
	if !full {
		b = []byte(strings.Replace(string(b), `,"areas":null`, "", 1))
	}
	w.streamType("/api/events", "office", func() { w.call("", 200, "PUT", "/api/office/layout", string(b)) })
	w.get("", "/api/office/layout")
	w.call("", 409, "PUT", "/api/office/layout", string(b)) // made on revision 0, which is gone
	if full {
		w.call("", 200, "PUT", "/api/office/seats", `{"session": "s1", "seat": "`+chairs[0]+`"}`)
		w.call("", 200, "PUT", "/api/office/seats", `{"session": "s2", "seat": "`+chairs[1]+`"}`)
	} else {
		w.call("", 200, "PUT", "/api/office/seats", `{"session": "s1", "seat": ""}`)
	}
	w.get("", "/api/office/seats")
}

func (w *shapeDesk) walkClaims(full bool) {
	w.t.Helper()
	w.get("", "/api/projects/mygame/claims")
	if !full {
		w.call("", 200, "POST", "/api/issues/MG-1/claim", `{"holder": "claude"}`)
		w.get("", "/api/issues/MG-1")
		w.call("", 200, "DELETE", "/api/issues/MG-1/claim?holder=claude", "")
		w.call("", 200, "DELETE", "/api/issues/MG-1/claim?holder=claude", "") // nothing to release
		return
	}
	w.call("", 200, "POST", "/api/issues/MG-1/claim", `{"holder": "codex 0193", "hours": 1.5}`)
	w.call("", 200, "POST", "/api/issues/MG-1/claim", `{"holder": "codex 0193", "hours": 3}`) // renewed
	w.call("", 409, "POST", "/api/issues/MG-1/claim", `{"holder": "claude"}`)
	w.call("", 200, "POST", "/api/issues/MG-2/claim", `{"holder": "claude"}`)
	w.call("", 200, "POST", "/api/issues/MG-3/claim", `{"holder": "opencode", "hours": 0.5}`)
	w.get("", "/api/projects/mygame/claims")
	w.call("", 200, "DELETE", "/api/issues/MG-3/claim?holder=opencode", "")
	w.call("", 403, "DELETE", "/api/issues/MG-2/claim", "")
	w.call("", 200, "DELETE", "/api/issues/MG-2/claim", "", w.page()...) // the owner, from the page
	w.call("", 200, "POST", "/api/issues/MG-2/claim", `{"holder": "claude", "hours": 2}`)
	w.get("", "/api/issues/MG-1")
}

func (w *shapeDesk) walkPairs(full bool) {
	w.t.Helper()
	ctx := context.Background()
	svc := &pair.Service{Store: w.db, PatchRoot: pair.PatchRootIn(w.dir)}
	w.get("", "/api/projects/mygame/pairs")
	if !full {
		// A pair just made, the owner's word on it, and its end.
		p, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: w.t.TempDir(), Task: "t", Members: []string{"opencode", "codex"}, Autonomy: pair.AutonomySemi})
		if err != nil {
			w.t.Fatal(err)
		}
		w.get("", "/api/pairs/"+p.ID)
		w.get("", "/api/pairs/"+p.ID+"/transcript")
		w.call("", 403, "POST", "/api/pairs/"+p.ID+"/ok", "")
		w.call("", 200, "POST", "/api/pairs/"+p.ID+"/ok", "", w.page()...)
		w.streamType("/api/events", "pair", func() {
			w.call("", 200, "POST", "/api/pairs/"+p.ID+"/stop", `{}`, w.page()...)
		})
		w.call("", 409, "POST", "/api/pairs/"+p.ID+"/stop", `{}`, w.page()...)
		w.get("", "/api/projects/mygame/pairs")
		return
	}
	p, err := pairtest.Fill(ctx, svc, "mygame", w.t.TempDir())
	if err != nil {
		w.t.Fatal(err)
	}
	w.streamType("/api/projects/mygame/events", "pair", func() {
		if _, err := svc.Send(ctx, pair.Caller{Pair: p.ID, Role: "codex"}, "and the rift", nil); err != nil {
			w.t.Fatal(err)
		}
	})
	w.get("", "/api/pairs/"+p.ID)
	w.get("", "/api/pairs/"+p.ID+"/transcript")
	w.get("", "/api/pairs/"+p.ID+"/transcript?limit=3")
	tr := w.get("", "/api/pairs/"+p.ID+"/transcript?limit=2")
	w.get("", fmt.Sprintf("/api/pairs/%s/transcript?since=%d", p.ID, num(tr["next"])))
	w.call("", 200, "POST", "/api/pairs/"+p.ID+"/ok", "", w.page()...)
	w.call("", 404, "GET", "/api/pairs/p99", "")

	// A second pair, on another folder, stopped by its owner.
	q, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: w.t.TempDir(), Task: "audit the loop", Members: []string{"claude", "codex"}, Mode: pair.ModeAudit})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := svc.Claim(ctx, pair.Caller{Pair: q.ID, Role: "claude"}, "mine"); err != nil {
		w.t.Fatal(err)
	}
	w.call("", 200, "POST", "/api/pairs/"+q.ID+"/stop", `{"reason": "enough"}`, w.page()...)
	w.get("", "/api/projects/mygame/pairs")
	w.get("", "/api/projects/tools/pairs")
}

// launch starts a managed session and returns its record.
func (w *shapeDesk) launch(body string) map[string]any {
	w.t.Helper()
	return w.call("", 201, "POST", "/api/sessions", body, w.page()...)
}

// untilState waits until a session's record is in state.
func (w *shapeDesk) untilState(id, state string) map[string]any {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := w.call("", 200, "GET", "/api/sessions/"+id, "", w.page()...)
		if s["state"] == state {
			return s
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("session %s is %v, not %s", id, s["state"], state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// terminal checks the terminal WebSocket of session id: refused without a
// token, and with one, a control message first.
func (w *shapeDesk) terminal(id string) {
	w.t.Helper()
	path := "/api/sessions/" + id + "/terminal"
	w.call("", 403, "GET", path, "")
	w.hit[deskhttp.RouteOf(w.srv, "GET", path)] = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(w.base, "http")+path+"?cols=80&rows=24&token="+url.QueryEscape(w.termToken), nil)
	if err != nil {
		w.t.Fatalf("%s: %v", path, err)
	}
	defer ws.CloseNow()
	typ, b, err := ws.Read(ctx)
	if err != nil {
		w.t.Fatalf("%s: the first message: %v", path, err)
	}
	var first map[string]any
	if typ != websocket.MessageText || json.Unmarshal(b, &first) != nil {
		w.t.Fatalf("%s: the first message is not a control message: %q", path, b)
	}
	if first["type"] != "size" || num(first["cols"]) != 80 || num(first["rows"]) != 24 {
		w.t.Errorf("%s: the first control message is %s, want the size 80×24", path, b)
	}
	ws.Close(websocket.StatusNormalClosure, "")
}

func (w *shapeDesk) walkSessions(full bool) {
	w.t.Helper()
	page := w.page()
	folder := w.t.TempDir()
	w.call("", 200, "GET", "/api/session-kinds", "", page...)
	w.call("", 200, "GET", "/api/sessions", "", page...)
	w.call("", 403, "GET", "/api/sessions", "")
	if !full {
		var id string
		w.streamType("/api/events", "session", func() {
			id = str(w.launch(`{"kind": "bash", "cwd": "` + folder + `"}`)["id"])
		})
		w.call("", 200, "GET", "/api/sessions/"+id, "", page...)
		w.call("", 200, "PATCH", "/api/sessions/"+id, `{"name": "shell"}`, page...)
		w.call("", 200, "POST", "/api/sessions/"+id+"/input", `{"text": "echo hi\n"}`, page...)
		w.call("", 200, "POST", "/api/sessions/"+id+"/resize", `{"cols": 100, "rows": 30}`, page...)
		w.call("", 200, "GET", "/api/sessions/"+id+"/screen", "", page...)
		w.terminal(id)
		w.call("", 200, "DELETE", "/api/sessions/"+id+"?kill=1", "", page...)
		w.untilState(id, "exited")
		w.call("", 200, "POST", "/api/sessions/"+id+"/resume", "", page...)
		w.call("", 200, "DELETE", "/api/sessions/"+id+"?kill=1", "", page...)
		w.untilState(id, "exited")
		w.call("", 200, "GET", "/api/sessions?all=1", "", page...)
		return
	}
	bearer := w.bearer()
	var shell string
	w.streamType("/api/projects/mygame/events", "session", func() {
		shell = str(w.launch(`{"kind": "bash", "cwd": "` + folder + `", "name": "harbor shell", "args": ["--norc"]}`)["id"])
	})
	// Its agent reports through hooks that carry the session's id.
	w.call("", 202, "POST", "/api/hooks/claude", `{"session_id":"m1","hook_event_name":"SessionStart","cwd":"`+folder+`","source":"startup"}`,
		intake.HeaderToken, w.hookKey, intake.HeaderEnv, url.Values{agent.EnvLaunch: {shell}, agent.EnvGeneration: {"1"}}.Encode())
	w.call("", 202, "POST", "/api/hooks/claude", `{"session_id":"m1","hook_event_name":"UserPromptSubmit","cwd":"`+folder+`","prompt":"go"}`,
		intake.HeaderToken, w.hookKey, intake.HeaderEnv, url.Values{agent.EnvLaunch: {shell}, agent.EnvGeneration: {"1"}}.Encode())
	deadline := time.Now().Add(5 * time.Second)
	for w.call("", 200, "GET", "/api/sessions/"+shell, "", page...)["agent"] == nil {
		if time.Now().After(deadline) {
			w.t.Fatal("the managed session shows no agent after its hooks reported")
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.get("", "/api/agents")
	w.get("", "/api/agents/m1")
	w.call("", 200, "PATCH", "/api/sessions/"+shell, `{"name": "the harbor"}`, bearer...)
	w.call("", 200, "POST", "/api/sessions/"+shell+"/input", `{"text": "printf 'one\\ntwo\\n'"}`, bearer...)
	w.call("", 200, "POST", "/api/sessions/"+shell+"/input", `{"keys": ["enter"]}`, bearer...)
	w.call("", 200, "POST", "/api/sessions/"+shell+"/resize", `{"cols": 120, "rows": 40}`, page...)
	w.call("", 400, "POST", "/api/sessions/"+shell+"/input", `{}`, page...)
	w.call("", 200, "GET", "/api/sessions/"+shell+"/screen", "", bearer...)
	w.terminal(shell)

	// A command that ends by itself, with an exit code.
	done := str(w.launch(`{"kind": "custom", "cwd": "` + folder + `", "command": ["sh", "-c", "echo bye; exit 3"]}`)["id"])
	if s := w.untilState(done, "exited"); num(s["exit_code"]) != 3 {
		w.t.Errorf("the command that exits 3 ended with %v", s["exit_code"])
	}
	w.anyStatus("/api/sessions/"+done+"/screen", page...)
	w.call("", 409, "POST", "/api/sessions/"+done+"/input", `{"text": "x"}`, page...)

	// One stopped (hung up) and resumed, then stopped for good.
	other := str(w.launch(`{"kind": "bash", "cwd": "` + folder + `"}`)["id"])
	w.call("", 200, "DELETE", "/api/sessions/"+other, "", page...)
	w.untilState(other, "exited")
	w.call("", 200, "POST", "/api/sessions/"+other+"/resume", "", page...)
	w.untilState(other, "running")
	w.call("", 200, "DELETE", "/api/sessions/"+other+"?kill=1", "", page...)
	w.untilState(other, "exited")
	w.call("", 404, "GET", "/api/sessions/s-nothere", "", page...)
	w.call("", 200, "GET", "/api/sessions", "", page...)
	w.call("", 200, "GET", "/api/sessions?all=1", "", page...)
	w.call("", 200, "GET", "/api/session-kinds", "", bearer...)
}

// readAreas asks every read of the office, the claims, the pairs and the
// sessions.
func (w *shapeDesk) readAreas() {
	w.t.Helper()
	page := w.page()
	w.get("", "/api/office/catalog")
	w.get("", "/api/office/layout")
	w.get("", "/api/office/seats")
	w.get("", "/api/projects/mygame/claims")
	for _, p := range list(w.get("", "/api/projects/mygame/pairs")["pairs"]) {
		id := str(obj(p)["id"])
		w.get("", "/api/pairs/"+id)
		w.get("", "/api/pairs/"+id+"/transcript")
	}
	w.call("", 200, "GET", "/api/session-kinds", "", page...)
	w.call("", 200, "GET", "/api/sessions", "", page...)
	for _, s := range list(w.call("", 200, "GET", "/api/sessions?all=1", "", page...)["sessions"]) {
		id := str(obj(s)["id"])
		w.call("", 200, "GET", "/api/sessions/"+id, "", page...)
		w.anyStatus("/api/sessions/"+id+"/screen", page...)
	}
}

// keptByRestore checks that the desk restored from a backup of full into
// a fresh folder holds what full showed: the office and its seats, the
// claims, the pairs with their patch files (in the restored folder now),
// their transcripts, and the managed sessions' records.
func keptByRestore(t *testing.T, full, restored *shapeDesk) {
	t.Helper()
	body := func(w *shapeDesk, path string) string {
		code, _, b := w.do("GET", path, "", w.page()...)
		if code != 200 {
			t.Fatalf("%s desk: GET %s: %d %s", w.name, path, code, b)
		}
		return string(b)
	}
	same := func(path string, moved bool) {
		t.Helper()
		want, got := body(full, path), body(restored, path)
		if moved { // paths inside the data folder are inside the new one
			want = strings.ReplaceAll(want, full.dir+string(filepath.Separator), restored.dir+string(filepath.Separator))
		}
		if got != want {
			t.Errorf("GET %s after the restore:\n%s\nbefore:\n%s", path, got, want)
		}
	}
	same("/api/office/layout", false)
	same("/api/office/seats", false)
	same("/api/projects/mygame/claims", false)
	same("/api/projects/mygame/pairs", true)
	pairs := list(obj(restored.get("", "/api/projects/mygame/pairs"))["pairs"])
	if len(pairs) != 2 {
		t.Errorf("the restored desk has %d pairs, want 2", len(pairs))
	}
	patches := 0
	for _, p := range pairs {
		id := str(obj(p)["id"])
		same("/api/pairs/"+id, true)
		same("/api/pairs/"+id+"/transcript", false) // the record of what happened, where it happened
		for _, pt := range list(obj(obj(p)["state"])["patches"]) {
			pt := obj(pt)
			patches++
			path := str(pt["path"])
			if !strings.HasPrefix(path, restored.dir+string(filepath.Separator)) {
				t.Errorf("patch #%v of %s is at %s, outside the restored folder", pt["n"], id, path)
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("patch #%v of %s: %v", pt["n"], id, err)
				continue
			}
			if sum := sha256.Sum256(b); pt["sha256"] != "" && hex.EncodeToString(sum[:]) != pt["sha256"] {
				t.Errorf("patch #%v of %s does not match its seal after the restore", pt["n"], id)
			}
		}
	}
	if patches == 0 {
		t.Error("the restored pairs show no patches")
	}
	ids := func(w *shapeDesk) []string {
		var out []string
		for _, s := range list(w.call("", 200, "GET", "/api/sessions?all=1", "", w.page()...)["sessions"]) {
			out = append(out, str(obj(s)["id"])+" "+str(obj(s)["name"]))
		}
		slices.Sort(out)
		return out
	}
	if a, b := ids(full), ids(restored); len(a) < 3 || !slices.Equal(a, b) {
		t.Errorf("the managed sessions after the restore: %v, before: %v", b, a)
	}
}
