package http_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"desk"
	deskhttp "desk/http"
)

func TestGuard(t *testing.T) {
	d, c := newDesk(t)
	port := d.URL[strings.LastIndex(d.URL, ":")+1:]
	own := "http://127.0.0.1:" + port
	cases := []struct {
		name   string
		status int
		method string
		hdr    []string
	}{
		{"NoOriginIsFine", 200, "GET", nil},
		{"OwnOrigin", 200, "GET", []string{"Origin", own}},
		{"LocalhostHost", 200, "GET", []string{"Host", "localhost:" + port}},
		{"IPv6Host", 200, "GET", []string{"Host", "[::1]:" + port}},
		{"ForeignHost", 403, "GET", []string{"Host", "evil.example:" + port}},
		{"RebindingHost", 403, "GET", []string{"Host", "attacker.test"}},
		{"ForeignOrigin", 403, "GET", []string{"Origin", "https://evil.example"}},
		{"OtherLocalPort", 403, "GET", []string{"Origin", "http://localhost:3000"}},
		{"NullOriginRead", 200, "GET", []string{"Origin", "null"}},
		{"NullOriginWrite", 403, "POST", []string{"Origin", "null"}},
		{"CrossSiteWrite", 403, "POST", []string{"Sec-Fetch-Site", "cross-site"}},
		{"SameOriginWrite", 201, "POST", []string{"Origin", own, "Sec-Fetch-Site", "same-origin"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, body := "/api/projects", ""
			if tc.method == "POST" {
				path, body = "/api/projects/mygame/issues", `{"title": "from `+tc.name+`"}`
			}
			c.want(tc.status, tc.method, path, body, tc.hdr...)
		})
	}
	l := c.want(200, "GET", "/api/projects/mygame/issues", "")
	if num(l["total"]) != 1 {
		t.Fatalf("refused writes created issues: %v", l["total"])
	}
}

func TestHeaders(t *testing.T) {
	_, c := newDesk(t)
	status, h, body := c.do("GET", "/", "")
	if status != 200 || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("%d %v", status, h)
	}
	if !regexp.MustCompile(`<meta name="desk-token" content="[A-Za-z0-9_-]{20,}">`).Match(body) {
		t.Fatal("the page carries no token")
	}
	for _, p := range []string{"/api/health", "/api/projects/mygame"} {
		_, h, _ := c.do("GET", p, "")
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("ETag") == "" || h.Get("Cache-Control") != "private, no-cache" {
			t.Errorf("%s: %v", p, h)
		}
	}
	_, h, _ = c.do("POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	if h.Get("Cache-Control") != "no-store" || h.Get("ETag") != "" {
		t.Errorf("a write is cacheable: %v", h)
	}
	_, h, _ = c.do("GET", "/api/issues/MG-404", "")
	if h.Get("Cache-Control") != "no-store" {
		t.Errorf("an error is cacheable: %v", h)
	}
}

// The page names its files under a prefix that changes with their
// contents, and those addresses are cached for good; the page itself, the
// plain addresses and another version's prefix are always revalidated.
func TestPageFilesAreVersionedAndKept(t *testing.T) {
	_, c := newDesk(t)
	_, h, page := c.do("GET", "/", "")
	if h.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("the page is cached: %v", h.Get("Cache-Control"))
	}
	named := regexp.MustCompile(`(?:href|src)="(/[^"#]*)"`).FindAllSubmatch(page, -1)
	// The styles, the boot script and the modules the first rows need
	// (the rest are preloaded by the app).
	if len(named) < 20 {
		t.Fatalf("the page names %d files", len(named))
	}
	prefix := regexp.MustCompile(`^/a/[0-9a-f]{16}/`).FindString(string(named[0][1]))
	if prefix == "" {
		t.Fatalf("%s is not under a versioned prefix", named[0][1])
	}
	for _, m := range named {
		p := string(m[1])
		if !strings.HasPrefix(p, prefix) {
			t.Errorf("%s is not under %s", p, prefix)
			continue
		}
		status, h, body := c.do("GET", p, "")
		if status != 200 || len(body) == 0 || h.Get("Cache-Control") != "private, max-age=31536000, immutable" {
			t.Errorf("%s: %d, %d bytes, Cache-Control %q", p, status, len(body), h.Get("Cache-Control"))
		}
		plain := "/" + strings.TrimPrefix(p, prefix)
		status, h, same := c.do("GET", plain, "")
		if status != 200 || string(same) != string(body) || h.Get("Cache-Control") != "private, no-cache" {
			t.Errorf("%s: %d, Cache-Control %q", plain, status, h.Get("Cache-Control"))
		}
	}
	status, h, _ := c.do("GET", "/a/0123456789abcdef/js/app.js", "")
	if status != 200 || h.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("another version's prefix: %d, Cache-Control %q", status, h.Get("Cache-Control"))
	}
	for _, p := range []string{prefix + "index.html", prefix, prefix + "js/none.js", "/a/"} {
		if status, _, _ := c.do("GET", p, ""); status != 404 {
			t.Errorf("%s: %d; want 404", p, status)
		}
	}
}

func TestETagRevalidatesAfterAnotherProcessWrites(t *testing.T) {
	d, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	for _, p := range []string{"/api/projects/mygame/issues", "/api/issues/MG-1", "/api/projects/mygame", "/"} {
		_, h, _ := c.do("GET", p, "")
		etag := h.Get("ETag")
		if status, h2, body := c.do("GET", p, "", "If-None-Match", etag); status != 304 || len(body) != 0 || h2.Get("Content-Length") != "" {
			t.Fatalf("%s: %d %q", p, status, body)
		}
		if status, _, _ := c.do("HEAD", p, "", "If-None-Match", "W/"+etag); status != 304 {
			t.Fatalf("%s: weak tag: %d", p, status)
		}
	}
	_, h, _ := c.do("GET", "/api/projects/mygame/issues", "")
	etag := h.Get("ETag")
	// Another process writes the same folder.
	if _, _, err := openSecond(t, d.DataDir).AddComment(context.Background(), "MG-1", desk.CommentInput{Text: "from the CLI"}); err != nil {
		t.Fatal(err)
	}
	if status, h2, _ := c.do("GET", "/api/projects/mygame/issues", "", "If-None-Match", etag); status != 200 || h2.Get("ETag") == etag {
		t.Fatalf("a cached read survived another process's commit: %d", status)
	}
}

func TestLiveStreams(t *testing.T) {
	d, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	all := openStream(t, d.URL+"/api/events", "")
	one := openStream(t, d.URL+"/api/projects/mygame/events", "")
	if ev := all.next(t); ev.name != "hello" || !strings.Contains(ev.data, `"project":null`) {
		t.Fatalf("%+v", ev)
	}
	if ev := one.next(t); ev.name != "hello" || !strings.Contains(ev.data, `"project":"mygame"`) {
		t.Fatalf("%+v", ev)
	}
	// A write from another process reaches both streams.
	other := openSecond(t, d.DataDir)
	start := time.Now()
	if _, _, err := other.AddComment(context.Background(), "MG-1", desk.CommentInput{Author: "owner", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*stream{all, one} {
		ev := s.until(t, `"type":"comment"`)
		if ev.name != "change" || ev.id == "" || !strings.Contains(ev.data, `"type":"comment"`) || !strings.Contains(ev.data, `"issue":"MG-1"`) {
			t.Fatalf("%+v", ev)
		}
	}
	t.Logf("another process's write reached the streams in %v", time.Since(start))
	// Project writes without a timeline entry come as refresh.
	other.UpdateProject(context.Background(), "mygame", desk.ProjectUpdate{Name: ptr("Renamed")}, "owner")
	ev := one.next(t)
	if ev.name != "refresh" {
		t.Fatalf("%+v", ev)
	}
	// Another project's changes stay out of this project's stream.
	c.want(201, "POST", "/api/projects", `{"slug": "tools", "prefix": "TL"}`)
	c.want(201, "POST", "/api/projects/tools/issues", `{"title": "y"}`)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "z"}`)
	if ev := one.next(t); strings.Contains(ev.data, "tools") || !strings.Contains(ev.data, "MG-2") {
		t.Fatalf("project stream got %+v", ev)
	}
	// A client that reconnects with Last-Event-ID gets what it missed.
	replay := openStream(t, d.URL+"/api/events", ev.id)
	replay.next(t) // hello
	got := replay.next(t)
	if !strings.Contains(got.data, "tools") && !strings.Contains(got.data, "TL-1") {
		t.Fatalf("replay after %s: %+v", ev.id, got)
	}
}

// TestSlowStreamNeverSlowsWriters fills a stream that nobody reads and
// checks that writes go on at full speed.
func TestSlowStreamNeverSlowsWriters(t *testing.T) {
	d, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	conn, err := net.Dial("tcp", strings.TrimPrefix(d.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	// never read from conn
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 600; i++ {
		if _, _, err := d.DB.AddComment(context.Background(), "MG-1", desk.CommentInput{Text: strings.Repeat("x", 4000)}); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes slowed down behind an unread stream: %d in 20 s", i)
		}
	}
}

func TestBuildOpenAndRunNeedThePageToken(t *testing.T) {
	d, c := newDesk(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	game := filepath.Join(dir, "game.sh")
	os.WriteFile(game, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	c.want(200, "POST", "/api/projects/mygame/build", `{"path": "`+game+`", "commit": "abc"}`)
	p := c.want(200, "GET", "/api/projects/mygame", "")
	local := obj(obj(p["build"])["local"])
	if local["exists"] != true || local["run"] != true || str(local["kind"]) != "file" {
		t.Fatalf("local %v", local)
	}
	token := d.Server.Token()
	c.want(403, "POST", "/api/projects/mygame/build/run", "")
	c.want(403, "POST", "/api/projects/mygame/build/run", "", "X-Desk-Token", "wrong")
	c.want(403, "POST", "/api/projects/mygame/build/run", "", "X-Desk-Token", token, "Origin", "https://evil.example")
	c.want(403, "POST", "/api/projects/mygame/build/run", "", "X-Desk-Token", token, "Sec-Fetch-Site", "same-site")
	// The body is ignored: only the stored path runs.
	r := c.want(200, "POST", "/api/projects/mygame/build/run", `{"path": "/bin/false"}`, "X-Desk-Token", token)
	if r["started"] != true || str(r["path"]) != game {
		t.Fatalf("%v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the build did not run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A folder opens but never runs; a version string is not on this machine.
	c.want(200, "POST", "/api/projects/mygame/build", `{"path": "`+dir+`"}`)
	c.want(409, "POST", "/api/projects/mygame/build/run", "", "X-Desk-Token", token)
	c.want(200, "POST", "/api/projects/mygame/build", `{"path": "1.2.3"}`)
	c.want(409, "POST", "/api/projects/mygame/build/open", "", "X-Desk-Token", token)
	os.Remove(game)
}

func TestLANModeStillGuardsBuilds(t *testing.T) {
	srv := deskhttp.NewServer(openSecond(t, t.TempDir()), deskhttp.Options{Addr: "127.0.0.1:0", LAN: true})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := &client{t: t, base: srv.URL()}
	c.want(200, "GET", "/api/health", "", "Host", "192.168.1.20:8765")
}

type event struct{ id, name, data string }

type stream struct {
	r    *bufio.Reader
	body io.Closer
}

func openStream(t *testing.T, url, lastID string) *stream {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream %d %v", resp.StatusCode, resp.Header)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &stream{r: bufio.NewReader(resp.Body), body: resp.Body}
}

// until skips events (the server may still be announcing writes made
// before the stream opened) until one whose data holds sub.
func (s *stream) until(t *testing.T, sub string) event {
	t.Helper()
	for {
		if ev := s.next(t); strings.Contains(ev.data, sub) {
			return ev
		}
	}
}

func (s *stream) next(t *testing.T) event {
	t.Helper()
	done := make(chan event, 1)
	go func() {
		var ev event
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				close(done)
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "" && ev.name != "":
				done <- ev
				return
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			}
		}
	}()
	select {
	case ev, ok := <-done:
		if !ok {
			t.Fatal("stream closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	return event{}
}

func ptr[T any](v T) *T { return &v }
