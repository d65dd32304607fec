package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"desk/agent/intake"
	"desk/agent/live"
	"desk/backup"
	deskhttp "desk/http"
	"desk/internal/deskbin"
	"desk/internal/jsonshape"
	"desk/internal/testdesk"
	"desk/sqlite"
)

// TestEveryAnswerHasOneShape walks every route of the API on an empty desk,
// on a full one and on the full one restored from a backup into a fresh
// folder, and checks that each answer names the same keys on all three: a
// field that can be empty is there, as [] or null, never left out. Within
// one answer, every entry of a list has the same keys too.
func TestEveryAnswerHasOneShape(t *testing.T) {
	// A build that is opened shows its folder with xdg-open; this one
	// answers at once and opens nothing.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	// The managed sessions' holders are the desk binary's.
	deskBin := filepath.Join(t.TempDir(), "desk")
	if err := deskbin.Build(deskBin); err != nil {
		t.Fatal(err)
	}

	empty := newShapeDesk(t, t.TempDir(), deskBin)
	empty.walk(false)

	fullDir := t.TempDir()
	full := newShapeDesk(t, fullDir, deskBin)
	full.walk(true)

	zip := filepath.Join(t.TempDir(), "desk.zip")
	if _, err := backup.Create(context.Background(), fullDir, zip); err != nil {
		t.Fatal(err)
	}
	restoredDir := filepath.Join(t.TempDir(), "restored")
	if _, err := backup.Restore(context.Background(), zip, restoredDir, backup.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	restored := newShapeDesk(t, restoredDir, deskBin)
	restored.reads()
	keptByRestore(t, full, restored)

	// Every route was walked on the empty desk and on the full one.
	for _, w := range []*shapeDesk{empty, full} {
		for _, r := range deskhttp.Routes(w.srv) {
			if !w.hit[r] {
				t.Errorf("the %s desk's walk did not answer %s", w.name, r)
			}
		}
	}
	for _, w := range []*shapeDesk{empty, full, restored} {
		for _, p := range w.problems {
			t.Errorf("%s desk: %s", w.name, p)
		}
	}
	for _, pair := range [][2]*shapeDesk{{empty, full}, {full, restored}, {empty, restored}} {
		for _, p := range jsonshape.Compare(pair[0].shapes, pair[1].shapes, pair[0].name, pair[1].name) {
			t.Error(p)
		}
	}
	for _, w := range []*shapeDesk{empty, full, restored} {
		for _, kind := range sameKinds {
			sameKeys(t, w, kind)
		}
	}
}

// sameKinds are the places where different answers hold the same kind of
// record, which names the same keys wherever it is: an issue's detail, a
// project, a queued command, an agent session (only the answer about one
// session adds its events; a managed session's record holds that answer),
// a managed session's record, a pair (its list and its detail add where
// it stands), a claim, and a row of the change feed whatever its type.
var sameKinds = [][]string{
	{"GET /api/issues/{id}", "", "PATCH /api/issues/{id}", "", "POST /api/projects/{slug}/issues", "",
		"POST /api/issues/{id}/comments", "issue", "POST /api/issues/{id}/merge", "issue", "POST /api/issues/{id}/unmerge", "issue",
		"POST /api/issues/{id}/parent", "", "POST /api/issues/{id}/plan", "", "PATCH /api/issues/{id}/plan/steps/{n}", ""},
	{"GET /api/projects", "projects[]", "POST /api/projects", "", "PATCH /api/projects/{slug}", ""},
	{"GET /api/commands/{id}", "", "GET /api/projects/{slug}/commands", "commands[]", "POST /api/projects/{slug}/commands", "",
		"GET /api/projects/{slug}/commands/next", ""},
	{"GET /api/agents", "agents[]", "GET /api/agents/{id}", "-events"},
	{"GET /api/projects/{slug}/issues", "issues[]", "GET /api/projects/{slug}/issues summary", "issues[]+body+plan",
		"GET /api/projects/{slug}/issues q", "issues[]-match"},
	{"GET /api/sessions", "sessions[]", "GET /api/sessions/{id}", "", "POST /api/sessions", "", "PATCH /api/sessions/{id}", "",
		"DELETE /api/sessions/{id}", "", "POST /api/sessions/{id}/resume", ""},
	{"GET /api/agents/{id}", "", "GET /api/sessions/{id}", "agent", "GET /api/sessions", "sessions[].agent"},
	{"GET /api/projects/{slug}/pairs", "pairs[]", "GET /api/pairs/{id}", "", "POST /api/pairs/{id}/ok", "+state", "POST /api/pairs/{id}/stop", "+state"},
	{"GET /api/projects/{slug}/claims", "claims[]", "POST /api/issues/{id}/claim", "", "DELETE /api/issues/{id}/claim", "claim",
		"GET /api/issues/{id}", "claim", "GET /api/projects/{slug}/issues", "issues[].claim"},
	// A feed row names the same keys whatever its type.
	{"GET /api/events change", "changes[]", "GET /api/events change office", "changes[]", "GET /api/events change pair", "changes[]",
		"GET /api/events change session", "changes[]", "GET /api/projects/{slug}/events change", "changes[]",
		"GET /api/projects/{slug}/events change pair", "changes[]", "GET /api/projects/{slug}/events change session", "changes[]"},
}

// sameKeys checks that every place of kind (pairs of answer and path; a
// path may end in -key for a key only that place has, or +key for one only
// it lacks) names the same keys.
func sameKeys(t *testing.T, w *shapeDesk, kind []string) {
	t.Helper()
	var first []string
	var firstAt string
	for i := 0; i+1 < len(kind); i += 2 {
		answer, path := kind[i], kind[i+1]
		var only, lacks []string
		for {
			j := strings.LastIndexAny(path, "-+")
			if j < 0 {
				break
			}
			if path[j] == '-' {
				only = append(only, path[j+1:])
			} else {
				lacks = append(lacks, path[j+1:])
			}
			path = path[:j]
		}
		known := w.shapes.Keys(answer, path)
		if known == nil {
			continue
		}
		keys := jsonshape.Union(known, lacks)
		keys = slices.DeleteFunc(keys, func(k string) bool { return slices.Contains(only, k) })
		if first == nil {
			first, firstAt = keys, answer+" "+jsonshape.Name(path)
			continue
		}
		if !slices.Equal(first, keys) {
			t.Errorf("%s desk: %s has keys %s and %s %s", w.name, firstAt, jsonshape.Diff(first, keys), answer+" "+jsonshape.Name(path), jsonshape.Diff(keys, first))
		}
	}
}

// shapeDesk is a served desk with live agent tracking whose answers are
// gathered by route.
type shapeDesk struct {
	*client
	name    string
	srv     *deskhttp.Server
	db      *sqlite.DB
	dir     string
	hookKey string
	// termToken is the terminal token of the data folder.
	termToken string
	hit       map[string]bool
	shapes    jsonshape.Set // by answer: route and variant
	problems  []string
}

func newShapeDesk(t *testing.T, dir, deskBin string) *shapeDesk {
	t.Helper()
	var svc *live.Service
	var stop func()
	w := &shapeDesk{client: &client{t: t}, dir: dir, hit: map[string]bool{}, shapes: jsonshape.Set{}}
	d := testdesk.StartWith(t, dir, func(db *sqlite.DB) deskhttp.Options {
		svc = live.New(db, live.Options{DataDir: dir, Tick: 20 * time.Millisecond})
		term, s := terminals(w, db, dir, deskBin, svc)
		stop = s
		return deskhttp.Options{Agents: svc, Terminals: term}
	})
	t.Cleanup(stop) // nothing a walk launched outlives the test
	w.base, w.srv, w.db, w.hookKey = d.URL, d.Server, d.DB, svc.Token()
	return w
}

// call sends a request, checks its status and files its answer's shape
// under its route and variant (a query that asks for another answer, like
// q or summary).
func (w *shapeDesk) call(variant string, status int, method, path, body string, hdr ...string) map[string]any {
	w.t.Helper()
	route := deskhttp.RouteOf(w.srv, method, path)
	if route == "" {
		w.t.Fatalf("no route answers %s %s", method, path)
	}
	w.hit[route] = true
	got, h, b := w.do(method, path, body, hdr...)
	if got != status {
		w.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, status, b)
	}
	if !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		w.t.Fatalf("%s %s: not JSON: %s", method, path, b)
	}
	if got >= 400 {
		variant += " error"
	}
	w.file(strings.TrimSpace(route+" "+variant), v)
	m, _ := v.(map[string]any)
	return m
}

// file adds an answer's shape to what is known of its kind.
func (w *shapeDesk) file(answer string, v any) {
	w.problems = append(w.problems, w.shapes.Add(answer, v)...)
}

func (w *shapeDesk) get(variant, path string) map[string]any {
	w.t.Helper()
	return w.call(variant, 200, "GET", path, "")
}

// hook reports an agent's hook event as desk hook event does.
func (w *shapeDesk) hook(client, payload string) {
	w.t.Helper()
	w.call("", 202, "POST", "/api/hooks/"+client, payload, intake.HeaderToken, w.hookKey)
}

// stream opens path's event stream, files its hello, makes write happen and
// files the first change event after it.
func (w *shapeDesk) stream(path string, write func()) {
	w.t.Helper()
	route := deskhttp.RouteOf(w.srv, "GET", path)
	w.hit[route] = true
	s := openStream(w.t, w.base+path, "")
	hello := s.next(w.t)
	w.fileEvent(route+" hello", hello.data)
	write()
	ev := s.until(w.t, `"type":"change"`)
	w.fileEvent(route+" change", ev.data)
}

func (w *shapeDesk) fileEvent(answer, data string) {
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		w.t.Fatalf("%s: not JSON: %s", answer, data)
	}
	w.file(answer, v)
}

// walk answers every route. A full walk fills every field it can: a
// project with a build, issues of every kind with places, plans, comments,
// verdicts, files, children and merges, a handoff, queued commands, agent
// sessions working on issues, an office with an area and seat choices,
// claims, a pair with one of everything and a stopped one, and managed
// sessions running, exited and resumed, one with an agent reporting. An empty walk asks the same of a desk
// that holds as little as each answer allows.
func (w *shapeDesk) walk(full bool) {
	w.t.Helper()
	w.name = "empty"
	if full {
		w.name = "full"
	}
	w.get("", "/api/health")
	w.get("", "/api/projects")
	w.get("", "/api/agents")
	if !full {
		w.call("", 201, "POST", "/api/projects", `{"slug": "mygame", "prefix": "MG"}`)
		w.call("", 200, "PATCH", "/api/projects/mygame", `{"name": "My Game"}`)
		w.stream("/api/events", func() { w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`) })
		w.stream("/api/projects/mygame/events", func() { w.call("", 201, "POST", "/api/issues/MG-1/comments", `{"text": "y"}`) })
		w.get("", "/api/projects/mygame/build")
		w.call("", 404, "POST", "/api/issues/MG-1/build/open", "", "X-Desk-Token", w.srv.Token())
		w.call("", 200, "POST", "/api/projects/mygame/build", `{"path": "`+w.player()+`"}`)
		w.call("", 200, "POST", "/api/projects/mygame/build/open", "", "X-Desk-Token", w.srv.Token())
		w.call("", 200, "POST", "/api/projects/mygame/build/run", "", "X-Desk-Token", w.srv.Token())
		w.call("", 200, "PATCH", "/api/issues/MG-1", `{"status": "to_check"}`)
		w.call("", 200, "POST", "/api/issues/MG-1/build/open", "", "X-Desk-Token", w.srv.Token())
		w.call("", 200, "POST", "/api/issues/MG-1/build/run", "", "X-Desk-Token", w.srv.Token())
		w.call("", 200, "DELETE", "/api/projects/mygame/build?off=1", "")
		w.get("", "/api/issues/MG-1")
		w.call("", 200, "PATCH", "/api/issues/MG-1", `{"priority": "p1"}`)
		a := w.call("", 201, "POST", "/api/issues/MG-1/attachments", `{"filename": "a.png", "data_base64": "`+pngBase64+`"}`)
		att := fmt.Sprint(obj(list(a["attachments"])[0])["id"])
		w.call("", 200, "GET", "/api/attachments/"+att, "")
		w.call("", 200, "DELETE", "/api/attachments/"+att, "")
		w.call("", 200, "POST", "/api/issues/MG-1/plan", `{"steps": ["one"]}`)
		w.call("", 200, "PATCH", "/api/issues/MG-1/plan/steps/1", `{"state": "done"}`)
		w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "z"}`)
		w.call("", 200, "POST", "/api/issues/MG-2/parent", `{"parent": "MG-1"}`)
		w.call("", 200, "POST", "/api/issues/MG-1/merge", `{"sources": ["MG-2"]}`)
		w.call("", 200, "POST", "/api/issues/MG-2/unmerge", `{}`)
		w.call("", 201, "POST", "/api/projects/mygame/commands", `{"command": "/goto 1"}`)
		w.get("", "/api/projects/mygame/commands/next")
		w.call("", 204, "GET", "/api/projects/mygame/commands/next", "")
		w.call("", 200, "POST", "/api/projects/mygame/handoff", `{"markdown": "x"}`)
		w.hook("claude", `{"session_id":"s1","hook_event_name":"SessionStart","cwd":"/src"}`)
		w.get("", "/api/agents/s1")
		w.walkOffice(false)
		w.walkClaims(false)
		w.walkPairs(false)
		w.walkSessions(false)
		w.call("", 200, "DELETE", "/api/issues/MG-2", "")
		w.reads()
		return
	}

	exe := w.player()
	w.call("", 201, "POST", "/api/projects", `{"slug": "mygame", "name": "MyGame", "prefix": "MG", "author": "owner"}`)
	w.call("", 201, "POST", "/api/projects", `{"slug": "tools", "name": "Tools", "prefix": "TL"}`)
	w.call("", 200, "PATCH", "/api/projects/mygame", `{"name": "My Game", "default_seed": 7, "notify": "verdicts,reports", "lead": "claude"}`)
	w.stream("/api/events", func() {
		w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Stuck in the rock", "kind": "bug", "source": "game", "author": "game",
			"body": "near the **harbor**", "area": "harbor", "tags": ["rock", "harbor"], "priority": "p1", "size": "M", "milestone": "World 1",
			"external_ref": "GAME-1", "location": {"command": "/goto 1240 12 -380", "seed": 99, "x": 1240, "y": 12, "z": -380, "yaw": 90, "pitch": 5,
			"place": "Harbor", "time": "17:30", "weather": "rain", "action": "climb", "build_id": "b7"},
			"attachments": [{"filename": "f12.png", "mime": "image/png", "data_base64": "`+pngBase64+`"}]}`)
	})
	w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Lava tips are round", "kind": "check", "author": "claude",
		"commands": [{"command": "/goto 1 2 3", "label": "the rift"}, "/goto 4 5 6"]}`)
	w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Tools idea", "kind": "idea"}`)
	w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Lava tips square again", "kind": "bug"}`)
	w.call("", 200, "POST", "/api/issues/MG-2/plan", `{"steps": ["Round the tips", {"text": "Clamp", "state": "done", "commit": "abc", "note": "clamped"}], "verification": "a shot of the rift"}`)
	w.call("", 200, "PATCH", "/api/issues/MG-2/plan/steps/1", `{"state": "done", "commit": "def", "note": "rounded", "actor": "claude"}`)
	w.call("", 200, "PATCH", "/api/issues/MG-1", `{"priority": "p0", "actor": "owner"}`)
	w.call("", 200, "POST", "/api/projects/mygame/build", `{"path": "`+exe+`", "commit": "5ea28d6", "label": "1.2.3", "built_at": "2026-09-01T10:00:00.000Z"}`)
	w.call("", 200, "PATCH", "/api/issues/MG-2", `{"status": "to_check", "actor": "claude"}`)
	w.stream("/api/projects/mygame/events", func() {
		w.call("", 201, "POST", "/api/issues/MG-2/comments", `{"text": "still square", "verdict": "failed",
			"attachments": [{"filename": "shot.png", "data_base64": "`+pngBase64+`"}]}`)
	})
	w.call("", 201, "POST", "/api/issues/MG-2/comments", `{"text": "looked at it", "author": "claude"}`)
	a := w.call("", 201, "POST", "/api/issues/MG-1/attachments", `{"filename": "b.png", "data_base64": "`+pngBase64+`"}`)
	att := fmt.Sprint(obj(list(a["attachments"])[0])["id"])
	w.call("", 200, "GET", "/api/attachments/"+att, "")
	w.call("", 201, "POST", "/api/issues/MG-1/attachments", `{"filename": "c.png", "data_base64": "`+pngBase64+`"}`)
	w.call("", 200, "DELETE", "/api/attachments/"+att, "")
	w.call("", 200, "POST", "/api/issues/MG-3/parent", `{"parent": "MG-2"}`)
	w.call("", 200, "POST", "/api/issues/MG-2/merge", `{"sources": ["MG-4"]}`)
	w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Merged and back", "kind": "bug"}`)
	w.call("", 200, "POST", "/api/issues/MG-2/merge", `{"sources": ["MG-5"]}`)
	w.call("", 200, "POST", "/api/issues/MG-5/unmerge", `{"actor": "owner"}`)
	w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Deleted soon"}`)
	w.call("", 200, "DELETE", "/api/issues/MG-6", "")
	w.call("", 201, "POST", "/api/projects/mygame/issues", `{"title": "Closed one", "status": "closed"}`)
	w.call("", 201, "POST", "/api/projects/mygame/commands", `{"issue": "MG-2", "at": 2, "author": "owner"}`)
	w.call("", 201, "POST", "/api/projects/mygame/commands", `{"command": "/time set day"}`)
	w.get("", "/api/projects/mygame/commands/next?client=mygame-dev")
	w.call("", 200, "POST", "/api/projects/mygame/handoff", `{"markdown": "## State\n\nok\n", "author": "claude", "note": "first"}`)
	w.call("", 200, "POST", "/api/projects/mygame/handoff", `{"section": "Traps", "text": "none", "author": "claude"}`)
	w.call("", 200, "POST", "/api/projects/mygame/build/open", "", "X-Desk-Token", w.srv.Token())
	w.call("", 200, "POST", "/api/projects/mygame/build/run", "", "X-Desk-Token", w.srv.Token())
	w.call("", 200, "POST", "/api/issues/MG-2/build/open", "", "X-Desk-Token", w.srv.Token())
	w.call("", 200, "POST", "/api/issues/MG-2/build/run", "", "X-Desk-Token", w.srv.Token())
	w.call("", 200, "POST", "/api/projects/tools/build", `{"path": "v2"}`)
	w.call("", 200, "DELETE", "/api/projects/tools/build", "")

	// Agents: one editing a file, one thinking (an activity with no tool),
	// one waiting for permission, a sub-agent, and one that ended.
	w.hook("claude", `{"session_id":"s1","hook_event_name":"SessionStart","cwd":"/src/game","model":"opus","transcript_path":"/tmp/s1.jsonl","source":"startup"}`)
	w.hook("claude", `{"session_id":"s1","hook_event_name":"PreToolUse","cwd":"/src/game","tool_name":"Edit","tool_input":{"file_path":"/src/game/lava.go"}}`)
	w.hook("claude", `{"session_id":"s2","hook_event_name":"UserPromptSubmit","cwd":"/src/game","prompt":"think"}`)
	w.hook("claude", `{"session_id":"s3","hook_event_name":"PermissionRequest","cwd":"/src/game","tool_name":"Bash","tool_input":{"command":"make"}}`)
	w.hook("claude", `{"session_id":"s4","hook_event_name":"SessionStart","cwd":"/src/game"}`)
	w.hook("claude", `{"session_id":"s4","hook_event_name":"SessionEnd","cwd":"/src/game","reason":"exit"}`)
	for _, s := range []string{"s1", "s2", "s3"} {
		if err := w.db.AgentTouched(context.Background(), "claude", s, "/src/game", "MG-2"); err != nil {
			w.t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(list(w.get("", "/api/issues/MG-2")["agents"])) < 3 {
		if time.Now().After(deadline) {
			w.t.Fatal("the sessions that touched MG-2 do not show on it")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, s := range []string{"s1", "s2", "s3", "s4"} {
		w.get("", "/api/agents/"+s)
	}
	// A thinking session's activity runs no tool: its tool is null.
	if a := obj(w.get("", "/api/agents/s2")["activity"]); a["kind"] != "thinking" || a["tool"] != nil {
		w.t.Errorf("a thinking session's activity is %v", a)
	} else if _, ok := a["tool"]; !ok {
		w.t.Errorf("a thinking session's activity has no tool key: %v", a)
	}
	w.walkOffice(true)
	w.walkClaims(true)
	w.walkPairs(true)
	w.walkSessions(true)
	w.get("", "/api/issues/MG-4") // merged into MG-2: its detail, redirected
	w.reads()
}

// player writes a build that starts and ends at once.
func (w *shapeDesk) player() string {
	w.t.Helper()
	exe := filepath.Join(w.t.TempDir(), "player")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	return exe
}

// reads asks every read of a desk whose project is mygame.
func (w *shapeDesk) reads() {
	w.t.Helper()
	if w.name == "" {
		w.name = "restored"
	}
	w.get("", "/api/health")
	w.get("", "/api/projects")
	w.get("", "/api/projects/mygame")
	w.get("", "/api/projects/mygame/build")
	w.get("", "/api/projects/mygame/issues")
	w.get("", "/api/projects/mygame/issues?status=closed,passed,reported,to_check,failed,open")
	w.get("summary", "/api/projects/mygame/issues?summary=1&sort=backlog")
	w.get("q", "/api/projects/mygame/issues?q=lava")
	w.get("q", "/api/projects/mygame/issues?q=nothing-like-this")
	w.get("", "/api/projects/mygame/suggest-groups")
	w.get("", "/api/projects/mygame/handoff")
	w.get("", "/api/projects/mygame/handoff/history")
	w.get("", "/api/projects/mygame/handoff/diff")
	w.get("", "/api/projects/mygame/commands")
	w.get("", "/api/commands/1")
	w.get("", "/api/agents")
	for _, id := range []string{"MG-1", "MG-2", "MG-3"} {
		if code, _, _ := w.do("GET", "/api/issues/"+id, ""); code == 200 {
			w.get("", "/api/issues/"+id)
		}
	}
	w.readAreas()
}
