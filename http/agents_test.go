package http_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/agent/intake"
	"desk/agent/live"
	deskhttp "desk/http"
	"desk/internal/testdesk"
	"desk/sqlite"
)

// agentDesk is a server with live agent tracking on a fresh desk.
type agentDesk struct {
	*client
	db    *sqlite.DB
	srv   *deskhttp.Server
	svc   *live.Service
	token string
	log   *syncBuf
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func newAgentDesk(t *testing.T) *agentDesk {
	t.Helper()
	dir := t.TempDir()
	logs := &syncBuf{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	var svc *live.Service
	desk := testdesk.StartWith(t, dir, func(db *sqlite.DB) deskhttp.Options {
		svc = live.New(db, live.Options{DataDir: dir, Logger: logger, Tick: 20 * time.Millisecond})
		return deskhttp.Options{Agents: svc, Logger: logger}
	})
	d := &agentDesk{client: &client{t: t, base: desk.URL}, db: desk.DB, srv: desk.Server, svc: svc, token: svc.Token(), log: logs}
	d.want(201, "POST", "/api/projects", `{"slug": "mygame", "name": "MyGame", "prefix": "MG"}`)
	return d
}

// hook posts a report as desk hook event does.
func (d *agentDesk) hook(client, payload string, hdr ...string) (int, map[string]any) {
	d.t.Helper()
	status, h, b := d.do("POST", "/api/hooks/"+client, payload, append([]string{intake.HeaderToken, d.token}, hdr...)...)
	var m map[string]any
	if strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		json.Unmarshal(b, &m)
	}
	return status, m
}

func (d *agentDesk) mustHook(client, payload string, hdr ...string) map[string]any {
	d.t.Helper()
	status, m := d.hook(client, payload, hdr...)
	if status != http.StatusAccepted {
		d.t.Fatalf("POST /api/hooks/%s: %d %v", client, status, m)
	}
	return m
}

func TestHookRouteNeedsTheInstallToken(t *testing.T) {
	d := newAgentDesk(t)
	body := `{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"/src"}`
	if s, _, _ := d.do("POST", "/api/hooks/claude", body); s != http.StatusUnauthorized {
		t.Errorf("no token: %d", s)
	}
	if s, _, _ := d.do("POST", "/api/hooks/claude", body, intake.HeaderToken, "guess"); s != http.StatusForbidden {
		t.Errorf("wrong token: %d", s)
	}
	if s, _, _ := d.do("POST", "/api/hooks/claude", body, "Authorization", "Bearer "+d.token); s != http.StatusAccepted {
		t.Errorf("bearer token: %d", s)
	}
	m := d.mustHook("claude", body)
	if m["session"] != "s" || m["state"] != "working" || num(m["accepted"]) != 1 {
		t.Errorf("answer = %v", m)
	}
	if strings.Contains(d.log.String(), d.token) {
		t.Error("the token is in the server log")
	}
}

// Even a server started for the local network takes hook reports only
// from this machine.
func TestHookRouteRefusesOtherMachines(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := live.New(db, live.Options{DataDir: dir})
	srv := deskhttp.NewServer(db, deskhttp.Options{Addr: "127.0.0.1:0", LAN: true, Agents: svc})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req := httptest.NewRequest("POST", "/api/hooks/claude", strings.NewReader(`{}`))
	req.RemoteAddr = "192.0.2.7:5000"
	req.Header.Set(intake.HeaderToken, svc.Token())
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	if w.Code != http.StatusForbidden {
		t.Errorf("from another machine: %d %s", w.Code, w.Body)
	}
}

// fixture is one captured hook run: what each hook received, and when.
type fixture struct {
	Event   string            `json:"event"`
	TS      float64           `json:"ts"`
	Payload json.RawMessage   `json:"payload"`
	Env     map[string]string `json:"env"`
}

func readFixture(t *testing.T, path string) []fixture {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l fixture
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

func (l fixture) headers() []string {
	sec, frac := math.Modf(l.TS)
	at := time.Unix(int64(sec), int64(frac*1e9)).UTC()
	env := url.Values{}
	for k, v := range l.Env {
		env.Set(k, v)
	}
	return []string{intake.HeaderReceived, at.Format(time.RFC3339Nano), intake.HeaderEnv, env.Encode()}
}

// Golden replays: the captured runs of real Claude Code and Codex, posted
// through the HTTP intake as desk hook event posts them, read back from
// GET /api/agents/{id} after every event.
func TestGoldenHookRunsThroughTheHTTPIntake(t *testing.T) {
	for _, tc := range []struct {
		client, path, id string
		want             []string
	}{
		{"claude", "../agent/testdata/hooks/claude-code-2.1.197-interactive.jsonl", "547f7264-e9b6-4b28-a037-7b11995f935f", []string{
			"SessionStart → waiting_input",
			"UserPromptSubmit → working Thinking",
			"PreToolUse → working Using desk-gosdk: echo",
			"PermissionRequest → needs_permission desk-gosdk: echo",
			"Notification → needs_permission desk-gosdk: echo",
			"PostToolUse → working Thinking",
			"Stop → done",
			"SessionEnd → ended",
		}},
		{"codex", "../agent/testdata/hooks/codex-0.171.0-exec.jsonl", "01a22c56-d2b2-78b0-9829-98271ef98ba1", []string{
			"SessionStart → waiting_input",
			"UserPromptSubmit → working Thinking",
			"PreToolUse → working Running: echo from-codex-shell",
			"PostToolUse → working Thinking",
			"Stop → done",
			"SessionEnd → ended",
		}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			d := newAgentDesk(t)
			var got []string
			for _, l := range readFixture(t, tc.path) {
				d.mustHook(tc.client, string(l.Payload), l.headers()...)
				s := d.want(200, "GET", "/api/agents/"+url.PathEscape(tc.id), "")
				step := l.Event + " → " + str(s["state"])
				if a := obj(s["activity"]); a != nil {
					step += " " + str(a["label"])
				}
				if p := obj(s["permission"]); p != nil {
					step += " " + str(p["label"])
				}
				got = append(got, step)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("steps:\n got %q\nwant %q", got, tc.want)
			}
			s := d.want(200, "GET", "/api/agents/"+tc.id, "")
			if len(list(s["events"])) != len(tc.want) || str(s["client"]) != tc.client || str(s["started_at"]) == "" {
				t.Errorf("session = %v", s)
			}
			// The payloads as received come only when asked for.
			for _, e := range list(s["events"]) {
				if obj(e)["raw"] != nil {
					t.Errorf("event carries its raw payload unasked: %v", e)
				}
			}
		})
	}
}

// Bad input gets a status that says what was wrong, a line in the server
// log, and changes nothing; the server carries on.
func TestHookRouteRefusesBadInput(t *testing.T) {
	d := newAgentDesk(t)
	d.mustHook("claude", `{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"/src"}`)
	huge := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":"` + strings.Repeat("x", intake.MaxPayload) + `"}`
	for _, tc := range []struct {
		name, client, body string
		status             int
	}{
		{"unknown client", "vim", `{}`, 404},
		{"bad client name", "..", `{}`, 404},
		{"not JSON", "claude", `{"session_id`, 400},
		{"unknown event", "claude", `{"session_id":"s","hook_event_name":"Teleport"}`, 400},
		{"missing session", "claude", `{"hook_event_name":"Stop"}`, 400},
		{"empty body", "codex", ``, 400},
		{"huge payload", "claude", huge, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := d.hook(tc.client, tc.body)
			if status != tc.status || str(m["error"]) == "" {
				t.Fatalf("%d %v, want %d with an error", status, m, tc.status)
			}
		})
	}
	for _, want := range []string{"unknown agent client", "unknown event", "has no session_id", "over the 8388608 byte limit"} {
		if !strings.Contains(d.log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, d.log)
		}
	}
	s := d.want(200, "GET", "/api/agents/s", "")
	if str(s["state"]) != "working" || len(list(s["events"])) != 1 {
		t.Errorf("bad input changed the session: %v", s)
	}
	d.mustHook("claude", `{"session_id":"s","hook_event_name":"Stop","cwd":"/src"}`)
}

func TestAgentsListFilters(t *testing.T) {
	d := newAgentDesk(t)
	d.mustHook("claude", `{"session_id":"a","hook_event_name":"PermissionRequest","cwd":"/a","tool_name":"Bash","tool_input":{"command":"make"}}`)
	d.mustHook("codex", `{"session_id":"b","hook_event_name":"UserPromptSubmit","cwd":"/b"}`)
	d.mustHook("codex", `{"session_id":"c","hook_event_name":"Stop","cwd":"/c"}`)
	ids := func(q string) []string {
		var out []string
		for _, a := range list(d.want(200, "GET", "/api/agents"+q, "")["agents"]) {
			out = append(out, str(obj(a)["id"]))
		}
		return out
	}
	if got := ids(""); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("all = %v, want the one needing permission first", got)
	}
	if got := ids("?client=codex"); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("codex = %v", got)
	}
	if got := ids("?state=working,done"); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("working,done = %v", got)
	}
	if got := ids("?project=mygame"); len(got) != 0 {
		t.Errorf("mygame = %v", got)
	}
	d.want(400, "GET", "/api/agents?state=busy", "")
	d.want(404, "GET", "/api/agents/nosuch", "")
	a := obj(list(d.want(200, "GET", "/api/agents", "")["agents"])[0])
	for _, k := range []string{"id", "client", "project", "cwd", "state", "activity", "since", "started_at", "updated_at", "issues"} {
		if _, ok := a[k]; !ok {
			t.Errorf("session lacks %q: %v", k, a)
		}
	}
	if p := obj(a["permission"]); str(p["label"]) != "Bash: make" {
		t.Errorf("permission = %v", a["permission"])
	}
}

// An issue an agent touched through desk's MCP tools shows who works on
// it, and every field it had before stays.
func TestIssueShowsTheSessionsWorkingOnIt(t *testing.T) {
	d := newAgentDesk(t)
	d.want(201, "POST", "/api/projects/mygame/issues", `{"title": "lava flows uphill"}`)
	before := d.want(200, "GET", "/api/issues/MG-1", "")
	if len(list(before["agents"])) != 0 || before["agents"] == nil {
		t.Fatalf("agents before any touch = %v", before["agents"])
	}
	d.mustHook("claude", `{"session_id":"1a2b","hook_event_name":"PreToolUse","cwd":"/src/game","tool_name":"Edit","tool_input":{"file_path":"/src/game/store.go"}}`)
	if err := d.db.AgentTouched(context.Background(), "claude", "1a2b", "/src/game", "MG-1"); err != nil {
		t.Fatal(err)
	}
	var after map[string]any
	deadline := time.Now().Add(2 * time.Second)
	for {
		after = d.want(200, "GET", "/api/issues/MG-1", "")
		if len(list(after["agents"])) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	ag := list(after["agents"])
	if len(ag) != 1 {
		t.Fatalf("agents = %v", after["agents"])
	}
	a := obj(ag[0])
	if str(a["id"]) != "1a2b" || str(a["client"]) != "claude" || str(a["state"]) != "working" || str(obj(a["activity"])["label"]) != "Editing store.go" ||
		str(obj(a["activity"])["since"]) == "" {
		t.Errorf("agent = %v", a)
	}
	for k, v := range before {
		if k == "agents" {
			continue
		}
		if fmt.Sprint(after[k]) != fmt.Sprint(v) {
			t.Errorf("field %s changed: %v → %v", k, v, after[k])
		}
	}
	s := d.want(200, "GET", "/api/agents/1a2b", "")
	if fmt.Sprint(s["issues"]) != "[MG-1]" {
		t.Errorf("session issues = %v", s["issues"])
	}
}

// A hook's event reaches an SSE subscriber as a change of type agent naming
// the session.
func TestHookEventsReachTheLiveStream(t *testing.T) {
	d := newAgentDesk(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", d.base+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				json.Unmarshal([]byte(data), &m)
				events <- m
			}
		}
	}()
	<-events // hello
	start := time.Now()
	d.mustHook("claude", `{"session_id":"live","hook_event_name":"UserPromptSubmit","cwd":"/src"}`)
	for {
		select {
		case m := <-events:
			for _, c := range list(m["changes"]) {
				c := obj(c)
				if str(c["type"]) == desk.ChangeAgent && str(c["actor"]) == "live" && str(m["type"]) == "change" {
					t.Logf("visible on the stream %s after the post began", time.Since(start))
					return
				}
			}
		case <-ctx.Done():
			t.Fatal("no agent change on the stream")
		}
	}
}

// A server without agent tracking lists none and turns reports away so
// that hooks spool them.
func TestServerWithoutAgentTracking(t *testing.T) {
	_, c := newDesk(t)
	if m := c.want(200, "GET", "/api/agents", ""); len(list(m["agents"])) != 0 {
		t.Errorf("agents = %v", m)
	}
	c.want(503, "POST", "/api/hooks/claude", `{}`, intake.HeaderToken, "x")
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "t"}`)
	if m := c.want(200, "GET", "/api/issues/MG-1", ""); m["agents"] == nil {
		t.Error("issue has no agents field")
	}
}
