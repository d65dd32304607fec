package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/internal/testdesk"
	"desk/serverfile"
)

// events follows a server's /api/events and sends every data line of a
// change event.
func events(t *testing.T, url string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 100)
	hello := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		kind := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				kind = strings.TrimPrefix(line, "event: ")
				if kind == "hello" {
					close(hello)
				}
			case strings.HasPrefix(line, "data: ") && kind == "change":
				ch <- strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	select {
	case <-hello:
	case <-time.After(5 * time.Second):
		t.Fatal("no hello from the event stream")
	}
	return ch
}

func waitFor(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case data := <-ch:
			if strings.Contains(data, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no change event with %q within 5 s", want)
		}
	}
}

func TestRunningServerShowsCLIWritesLive(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Round tips", "--kind", "check", "--command", "/goto 1 2 3")
	srv := testdesk.StartIn(t, e.data)
	ch := events(t, srv.URL)

	start := time.Now()
	e.ok("comment", "MG-1", "--text", "fixed in 5ea28d6", "--author", "claude")
	waitFor(t, ch, `"actor":"claude"`)
	t.Logf("a CLI comment reached the server's stream in %v (process start included)", time.Since(start))

	e.ok("plan", "MG-1", "--step", "Round the tips")
	waitFor(t, ch, `"action":"plan"`)
	e.ok("handoff", "section", "--section", "next", "--text", "Wire the UI")
	waitFor(t, ch, `"type":"handoff"`)

	// The server's list shows the CLI's new issue.
	e.ok("add", "--title", "Filed from a shell")
	resp, err := http.Get(srv.URL + "/api/projects/mygame/issues?q=shell")
	if err != nil {
		t.Fatal(err)
	}
	var l struct{ Total int }
	json.NewDecoder(resp.Body).Decode(&l)
	resp.Body.Close()
	if l.Total != 1 {
		t.Fatalf("the server lists %d issues matching the CLI's new one", l.Total)
	}
}

func TestServeDetachStopAndServerFile(t *testing.T) {
	e := projectEnv(t)
	out := e.ok("serve", "--detach", "--port", "0")
	if !strings.Contains(out, "in the background") {
		t.Fatalf("serve --detach: %s", out)
	}
	info, err := serverfile.Read(e.data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(info.PID); err == nil && serverfile.Alive(info.PID) {
			p.Kill()
		}
	})
	b, _ := os.ReadFile(filepath.Join(e.data, serverfile.InfoName))
	if strings.Contains(strings.ToLower(string(b)), "token") || info.Port == 0 || !strings.HasPrefix(info.URL, "http://127.0.0.1:") {
		t.Fatalf("server.json: %s", b)
	}
	if pid, running, _ := serverfile.Detached(e.data); !running || pid != info.PID {
		t.Fatalf("server.pid %d running %v, server.json pid %d", pid, running, info.PID)
	}
	resp, err := http.Get(info.URL + "/api/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health of the detached server: %v", err)
	}
	resp.Body.Close()
	ch := events(t, info.URL)
	e.ok("add", "--title", "while it runs")
	waitFor(t, ch, `"action":"created"`)

	// A second detached server on the same folder is refused.
	e.fails(5, "already runs", "serve", "--detach", "--port", "0")
	// A restore over it is refused.
	e.ok("backup", "--out", filepath.Join(e.dir, "b.zip"))
	e.fails(5, "serve --detach runs", "restore", filepath.Join(e.dir, "b.zip"), "--replace")

	out = e.ok("stop")
	if !strings.Contains(out, "Stopped") {
		t.Fatalf("stop: %s", out)
	}
	if serverfile.Alive(info.PID) {
		t.Fatal("the server still runs after stop")
	}
	for _, name := range []string{serverfile.PIDName, serverfile.InfoName} {
		if _, err := os.Stat(filepath.Join(e.data, name)); !os.IsNotExist(err) {
			t.Errorf("%s is left after stop", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.data, serverfile.LogName)); !strings.Contains(string(b), "desk is running") {
		t.Fatalf("server.log: %q", b)
	}
	e.fails(4, "no desk started", "stop")
}
