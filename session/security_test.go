package session_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsStatus opens the terminal WebSocket with the given headers and
// returns the HTTP status of the handshake (101 when it upgraded).
func (s *server) wsStatus(url string, hdr http.Header) int {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{HTTPHeader: hdr}
	if h := hdr.Get("Host"); h != "" {
		opts.Host = h
	}
	ws, resp, err := websocket.Dial(ctx, url, opts)
	if err == nil {
		ws.Close(websocket.StatusNormalClosure, "")
		return http.StatusSwitchingProtocols
	}
	if resp == nil {
		s.t.Fatalf("dial %s: %v", url, err)
	}
	return resp.StatusCode
}

// Every way in without the right secret, from the wrong page or under the
// wrong name is refused before anything happens: the REST routes and the
// WebSocket (before its upgrade), with a JSON error; nothing starts, and
// the token never reaches the server's log.
func TestSessionRoutesRefuseEveryoneWithoutTheToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	base := "ws" + strings.TrimPrefix(srv.base, "http") + "/api/sessions/" + s.ID + "/terminal"
	wrong := strings.Repeat("x", len(srv.token))
	port := strings.TrimPrefix(srv.base, "http://127.0.0.1")

	cases := []struct {
		name string
		url  string
		hdr  http.Header
		want int
	}{
		{"no token", base, nil, 403},
		{"a wrong token", base + "?token=nope", nil, 403},
		{"a wrong token of the right length", base + "?token=" + wrong, nil, 403},
		{"a wrong bearer token", base, http.Header{"Authorization": {"Bearer " + wrong}}, 403},
		{"a foreign origin", base + "?token=" + srv.token, http.Header{"Origin": {"http://evil.example"}}, 403},
		{"an opaque origin", base + "?token=" + srv.token, http.Header{"Origin": {"null"}}, 403},
		{"a rebound host", base + "?token=" + srv.token, http.Header{"Host": {"evil.example" + port}, "Origin": {"http://evil.example" + port}}, 403},
		{"an unknown session", strings.Replace(base, s.ID, "s-nothere", 1) + "?token=" + srv.token, nil, 404},
		{"the right token", base + "?token=" + srv.token, nil, 101},
		{"the right token as a bearer", base, http.Header{"Authorization": {"Bearer " + srv.token}}, 101},
		{"the right token from desk's own page", base + "?token=" + srv.token, http.Header{"Origin": {srv.base}}, 101},
	}
	for _, c := range cases {
		if got := srv.wsStatus(c.url, c.hdr); got != c.want {
			t.Errorf("WebSocket with %s: %d, want %d", c.name, got, c.want)
		}
	}

	rest := []struct {
		name, method, path, body string
		hdr                      []string
		want                     int
	}{
		{"list without a token", "GET", "/api/sessions", "", nil, 403},
		{"list with a wrong token", "GET", "/api/sessions", "", []string{"X-Desk-Token: " + wrong}, 403},
		{"launch without a token", "POST", "/api/sessions", `{"kind":"bash","cwd":"/"}`, nil, 403},
		{"launch with a wrong token", "POST", "/api/sessions", `{"kind":"bash","cwd":"/"}`, []string{"Authorization: Bearer " + wrong}, 403},
		{"launch from a foreign origin", "POST", "/api/sessions", `{"kind":"bash","cwd":"/"}`, []string{"X-Desk-Token: " + srv.token, "Origin: http://evil.example"}, 403},
		{"launch under a rebound host", "POST", "/api/sessions", `{"kind":"bash","cwd":"/"}`, []string{"X-Desk-Token: " + srv.token, "Host: evil.example" + port}, 403},
		{"input without a token", "POST", "/api/sessions/" + s.ID + "/input", `{"text":"x"}`, nil, 403},
		{"screen without a token", "GET", "/api/sessions/" + s.ID + "/screen", "", nil, 403},
		{"stop without a token", "DELETE", "/api/sessions/" + s.ID, "", nil, 403},
	}
	for _, c := range rest {
		code, body := srv.request(c.method, c.path, c.body, c.hdr...)
		if code != c.want || !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s: %d %s, want %d with an error", c.name, code, body, c.want)
		}
	}
	var list struct{ Sessions []record }
	srv.api(200, "GET", "/api/sessions", "", &list)
	if len(list.Sessions) != 1 {
		t.Errorf("%d sessions after the refusals, want the one launched", len(list.Sessions))
	}
	// The page token serves as well as the terminal token.
	code, _ := srv.request("GET", "/api/sessions", "", "X-Desk-Token: "+srv.token)
	if code != 200 {
		t.Errorf("with the terminal token in X-Desk-Token: %d", code)
	}
	tokFile := filepath.Join(w.data, "terminal-token")
	fi, err := os.Stat(tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("terminal-token: mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	b, _ := os.ReadFile(tokFile)
	if strings.TrimSpace(string(b)) != srv.token {
		t.Errorf("the printed token is not the kept one")
	}
	srv.stop()
	if strings.Contains(srv.stderr.String(), srv.token) {
		t.Errorf("the token is in the server's log:\n%s", srv.stderr)
	}
	if n := strings.Count(srv.stdout.String(), srv.token); n != 1 {
		t.Errorf("the token shows %d times in the server's output, want once (the URL):\n%s", n, srv.stdout)
	}
	// The token lasts across restarts, so a bookmarked URL keeps working.
	if again := w.serve(); again.token != srv.token {
		t.Errorf("the token changed across a restart")
	}
}

// desk serve --no-terminal keeps states and screens visible and refuses
// launching, typing, resizing, stopping and attaching.
func TestNoTerminalIsReadOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data))
	srv := w.serve("--no-terminal")
	if srv.token != "" {
		t.Errorf("--no-terminal printed a token")
	}
	b, _ := os.ReadFile(filepath.Join(w.data, "terminal-token"))
	srv.token = strings.TrimSpace(string(b))
	var list struct{ Sessions []record }
	srv.api(200, "GET", "/api/sessions", "", &list)
	srv.waitScreen(id, "@", 5*time.Second)
	var kinds struct {
		Terminal struct {
			Enabled bool
			Reason  string
		}
	}
	srv.api(200, "GET", "/api/session-kinds", "", &kinds)
	if kinds.Terminal.Enabled || kinds.Terminal.Reason == "" {
		t.Errorf("session-kinds: %+v", kinds.Terminal)
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/sessions", `{"kind":"bash","cwd":"/"}`},
		{"POST", "/api/sessions/" + id + "/input", `{"text":"x"}`},
		{"POST", "/api/sessions/" + id + "/resize", `{"cols":90,"rows":30}`},
		{"DELETE", "/api/sessions/" + id, ""},
	} {
		if code, body := srv.request(c.method, c.path, c.body, "Authorization: Bearer "+srv.token); code != 403 || !strings.Contains(string(body), "--no-terminal") {
			t.Errorf("%s %s: %d %s, want 403 naming --no-terminal", c.method, c.path, code, body)
		}
	}
	if got := srv.wsStatus(srv.wsURL(id, ""), nil); got != 403 {
		t.Errorf("attach with --no-terminal: %d, want 403", got)
	}
}

// Bad input gets a clear error and starts nothing.
func TestBadLaunchesAndInputStartNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.setenv("PATH", "/usr/bin:/bin") // no agent CLI on it
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	cases := []struct {
		name, method, path, body string
		want                     int
		says                     string
	}{
		{"an unknown kind", "POST", "/api/sessions", `{"kind":"emacs","cwd":"/"}`, 400, "unknown session kind"},
		{"a missing binary", "POST", "/api/sessions", `{"kind":"qwen","cwd":"/"}`, 400, "not installed"},
		{"a cwd that is not a folder", "POST", "/api/sessions", `{"kind":"bash","cwd":"/etc/passwd"}`, 400, "not a folder"},
		{"a relative cwd", "POST", "/api/sessions", `{"kind":"bash","cwd":"tmp"}`, 400, "absolute"},
		{"a bypass on grok", "POST", "/api/sessions", `{"kind":"grok","cwd":"/","bypass":true}`, 400, "no per-tool approvals"},
		{"a bypass on pi", "POST", "/api/sessions", `{"kind":"pi","cwd":"/","bypass":true}`, 400, "no per-tool approvals"},
		{"a bypass on bash", "POST", "/api/sessions", `{"kind":"bash","cwd":"/","bypass":true}`, 400, "no per-tool approvals"},
		{"a resume id of the wrong form", "POST", "/api/sessions", `{"kind":"claude","cwd":"/","resume":"../../etc"}`, 400, "is not a UUID"},
		{"a resume of a shell", "POST", "/api/sessions", `{"kind":"bash","cwd":"/","resume":"x"}`, 400, "cannot be resumed"},
		{"a bad profile", "POST", "/api/sessions", `{"kind":"claude","cwd":"/","profile":"../x"}`, 400, "profile"},
		{"a custom with no command", "POST", "/api/sessions", `{"kind":"custom","cwd":"/"}`, 400, "argv"},
		{"an unknown field", "POST", "/api/sessions", `{"kind":"bash","cwd":"/","sudo":true}`, 400, "unknown field"},
		{"an unknown session", "GET", "/api/sessions/s-nothere", "", 404, "no session"},
		{"input to an unknown session", "POST", "/api/sessions/s-nothere/input", `{"text":"x"}`, 404, "no session"},
		{"a resize of 0x0", "POST", "/api/sessions/" + s.ID + "/resize", `{"cols":0,"rows":0}`, 400, "not possible"},
		{"a resize of 100000x100000", "POST", "/api/sessions/" + s.ID + "/resize", `{"cols":100000,"rows":100000}`, 400, "not possible"},
		{"an unknown key", "POST", "/api/sessions/" + s.ID + "/input", `{"keys":["hyper-x"]}`, 400, "unknown key"},
		{"text and keys at once", "POST", "/api/sessions/" + s.ID + "/input", `{"text":"x","keys":["enter"]}`, 400, "not both"},
	}
	for _, c := range cases {
		code, body := srv.request(c.method, c.path, c.body, "Authorization: Bearer "+srv.token)
		if code != c.want || !strings.Contains(string(body), c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, code, body, c.want, c.says)
		}
	}
	var list struct{ Sessions []record }
	srv.api(200, "GET", "/api/sessions?all=1", "", &list)
	if len(list.Sessions) != 1 {
		t.Errorf("%d sessions after the bad launches, want 1", len(list.Sessions))
	}
	srv.api(200, "DELETE", "/api/sessions/"+s.ID+"?kill=1", "", nil)
	if code, body := srv.request("POST", "/api/sessions/"+s.ID+"/input", `{"text":"x"}`, "Authorization: Bearer "+srv.token); code != 409 {
		t.Errorf("input to an exited session: %d %s, want 409", code, body)
	}
	if got := srv.wsStatus(srv.wsURL(s.ID, ""), nil); got != 409 {
		t.Errorf("attach to an exited session: %d, want 409", got)
	}
	// The command line maps the same errors to its exit codes.
	if _, errs, code := w.desk("run", "grok", "--bypass"); code != 3 || !strings.Contains(errs, "no per-tool approvals") {
		t.Errorf("desk run grok --bypass: %d %s", code, errs)
	}
	if _, errs, code := w.desk("screen", "s-nothere"); code != 4 {
		t.Errorf("desk screen of an unknown session: %d %s", code, errs)
	}
	if _, errs, code := w.desk("keys", s.ID, "hyper-x"); code != 3 || !strings.Contains(errs, "unknown key") {
		t.Errorf("desk keys with an unknown key: %d %s", code, errs)
	}
}
