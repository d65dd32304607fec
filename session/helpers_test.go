package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"desk/internal/deskbin"
	"desk/session"
)

// deskBin is the desk binary the tests run, built once.
var deskBin string

func TestMain(m *testing.M) { deskbin.Main(m, &deskBin) }

// world is a data folder and the environment desk commands run with.
type world struct {
	t    testing.TB
	data string
	env  []string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	data := t.TempDir()
	w := &world{t: t, data: data, env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8",
		"SHELL=/bin/bash", "DESK_DATA=" + data}}
	t.Cleanup(w.stopAll)
	return w
}

// setenv adds or replaces a variable of the world's environment.
func (w *world) setenv(k, v string) {
	for i, kv := range w.env {
		if strings.HasPrefix(kv, k+"=") {
			w.env[i] = k + "=" + v
			return
		}
	}
	w.env = append(w.env, k+"="+v)
}

// desk runs a desk command and returns its output and exit code.
func (w *world) desk(args ...string) (string, string, int) {
	w.t.Helper()
	cmd := exec.Command(deskBin, args...)
	cmd.Env = w.env
	cmd.Dir = w.data
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("run desk %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// must runs a desk command that must succeed.
func (w *world) must(args ...string) string {
	w.t.Helper()
	out, errs, code := w.desk(args...)
	if code != 0 {
		w.t.Fatalf("desk %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// stopAll kills what the world's sessions left running: every holder and
// its program, by the pids their records keep.
func (w *world) stopAll() {
	out, _, _ := w.desk("sessions", "--json")
	var list struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	json.Unmarshal([]byte(out), &list)
	for _, s := range list.Sessions {
		w.desk("stop-session", "--kill", s.ID)
	}
}

// server is a desk serve subprocess.
type server struct {
	t      testing.TB
	cmd    *exec.Cmd
	base   string
	token  string
	stderr *syncBuffer
	stdout *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var urlLine = regexp.MustCompile(`running at (http://127\.0\.0\.1:\d+)(/\?token=([A-Za-z0-9_-]+))?`)

// serve starts desk serve on a free port and waits until it listens.
func (w *world) serve(args ...string) *server {
	w.t.Helper()
	cmd := exec.Command(deskBin, append([]string{"serve", "--port", "0"}, args...)...)
	cmd.Env = w.env
	cmd.Dir = w.data
	s := &server{t: w.t, cmd: cmd, stderr: &syncBuffer{}, stdout: &syncBuffer{}}
	cmd.Stderr = s.stderr
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.stdout.Write([]byte(sc.Text() + "\n"))
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	deadline := time.After(20 * time.Second)
	for s.base == "" {
		select {
		case l := <-lines:
			if m := urlLine.FindStringSubmatch(l); m != nil {
				s.base, s.token = m[1], m[3]
			}
		case <-deadline:
			cmd.Process.Kill()
			w.t.Fatalf("desk serve did not start:\n%s", s.stderr)
		}
	}
	w.t.Cleanup(func() { s.kill() })
	return s
}

// stop stops the server as Ctrl+C does.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
}

// kill kills the server with -9.
func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// request sends an API request with the given headers ("Name: value").
func (s *server) request(method, path, body string, hdr ...string) (int, []byte) {
	s.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ": ")
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// api sends a request with the terminal token and decodes the answer,
// failing the test unless the status is want.
func (s *server) api(want int, method, path, body string, out any) {
	s.t.Helper()
	code, b := s.request(method, path, body, "Authorization: Bearer "+s.token)
	if code != want {
		s.t.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// record is the part of a session record the tests read.
type record struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	State      string          `json:"state"`
	PID        int             `json:"pid"`
	ExitCode   *int            `json:"exit_code"`
	ExitReason *string         `json:"exit_reason"`
	ResumeID   *string         `json:"resume_id"`
	Generation int64           `json:"generation"`
	Hooks      string          `json:"hooks"`
	Note       string          `json:"note"`
	Agent      json.RawMessage `json:"agent"`
}

func (s *server) session(id string) record {
	s.t.Helper()
	var r record
	s.api(200, "GET", "/api/sessions/"+id, "", &r)
	return r
}

func (s *server) launch(body string) record {
	s.t.Helper()
	var r record
	s.api(201, "POST", "/api/sessions", body, &r)
	return r
}

// screenText returns a session's screen as lines through the API.
func (s *server) screenText(id string) string {
	s.t.Helper()
	var t session.Text
	s.api(200, "GET", "/api/sessions/"+id+"/screen", "", &t)
	return strings.Join(t.Lines, "\n")
}

// waitScreen waits until a session's screen shows text.
func (s *server) waitScreen(id, text string, d time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for time.Now().Before(deadline) {
		if last = s.screenText(id); strings.Contains(last, text) {
			return last
		}
		time.Sleep(30 * time.Millisecond)
	}
	s.t.Fatalf("session %s never showed %q; screen:\n%s", id, text, last)
	return ""
}

// wsURL is the terminal WebSocket's URL with the token in the query.
func (s *server) wsURL(id string, query string) string {
	u := "ws" + strings.TrimPrefix(s.base, "http") + "/api/sessions/" + id + "/terminal?token=" + s.token
	if query != "" {
		u += "&" + query
	}
	return u
}

// terminal is a WebSocket viewer that keeps a screen model of what it
// receives.
type terminal struct {
	t      testing.TB
	ws     *websocket.Conn
	mu     sync.Mutex
	screen *session.Screen
	snaps  [][]byte
	exit   map[string]any
	done   chan struct{}
	seen   chan struct{}
}

// attach opens the terminal WebSocket and keeps its screen.
func (s *server) attach(id, query string) *terminal {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, s.wsURL(id, query), nil)
	if err != nil {
		body := ""
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
		}
		s.t.Fatalf("attach %s: %v %s", id, err, body)
	}
	ws.SetReadLimit(64 << 20)
	tm := &terminal{t: s.t, ws: ws, done: make(chan struct{}), seen: make(chan struct{}, 1)}
	go tm.read()
	s.t.Cleanup(func() { ws.Close(websocket.StatusNormalClosure, "") })
	return tm
}

func (tm *terminal) read() {
	defer close(tm.done)
	snapshot := false
	for {
		typ, b, err := tm.ws.Read(context.Background())
		if err != nil {
			return
		}
		tm.mu.Lock()
		if typ == websocket.MessageText {
			var c map[string]any
			json.Unmarshal(b, &c)
			switch c["type"] {
			case "size":
				cols, rows := int(c["cols"].(float64)), int(c["rows"].(float64))
				if tm.screen == nil {
					tm.screen = session.NewScreen(cols, rows, session.DefaultScrollback)
				} else {
					tm.screen.Resize(cols, rows)
				}
			case "snapshot":
				snapshot = true
			case "exit":
				tm.exit = c
			}
		} else if snapshot {
			snapshot = false
			cols, rows := tm.screen.Size()
			tm.screen = session.NewScreen(cols, rows, session.DefaultScrollback)
			tm.screen.Write(b)
			tm.snaps = append(tm.snaps, b)
		} else {
			tm.screen.Write(b)
		}
		tm.mu.Unlock()
		select {
		case tm.seen <- struct{}{}:
		default:
		}
	}
}

// text is the viewer's screen.
func (tm *terminal) text() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.screen == nil {
		return ""
	}
	return strings.Join(tm.screen.Text().Lines, "\n")
}

// firstSnapshot waits for and returns the snapshot that opened the stream.
func (tm *terminal) firstSnapshot() []byte {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tm.mu.Lock()
		if len(tm.snaps) > 0 {
			b := tm.snaps[0]
			tm.mu.Unlock()
			return b
		}
		tm.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	tm.t.Fatal("no snapshot came")
	return nil
}

// waitFor waits until the viewer's screen shows text.
func (tm *terminal) waitFor(text string, d time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(tm.text(), text) {
			return
		}
		select {
		case <-tm.seen:
		case <-time.After(20 * time.Millisecond):
		}
	}
	tm.t.Fatalf("the viewer never showed %q; screen:\n%s", text, tm.text())
}

// send types into the terminal.
func (tm *terminal) send(b string) {
	tm.t.Helper()
	if err := tm.ws.Write(context.Background(), websocket.MessageBinary, []byte(b)); err != nil {
		tm.t.Fatal(err)
	}
}

// holderPID returns the pid of the holder of session id.
func holderPID(t testing.TB, data, id string) int {
	t.Helper()
	c, err := session.Dial(context.Background(), data, id)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return in.HolderPID
}
