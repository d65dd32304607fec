package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/agent/live"
	deskhttp "desk/http"
	"desk/internal/deskbin"
	"desk/serverfile"
	"desk/sqlite"
)

// The desk binary for tests that run real hook processes, built once.
var (
	deskOnce sync.Once
	deskPath string
	deskErr  error
	deskDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if deskDir != "" {
		os.RemoveAll(deskDir)
	}
	os.Exit(code)
}

func deskBin(t testing.TB) string {
	t.Helper()
	deskOnce.Do(func() {
		if deskDir, deskErr = os.MkdirTemp("", "desk-live-test-*"); deskErr != nil {
			return
		}
		deskPath = filepath.Join(deskDir, "desk")
		deskErr = deskbin.Build(deskPath)
	})
	if deskErr != nil {
		t.Fatal(deskErr)
	}
	return deskPath
}

// server is a real desk server with agent tracking, recorded in its data
// folder's server.json as desk serve records itself, so that desk hook
// event finds it.
type server struct {
	t   testing.TB
	dir string
	url string
	db  *sqlite.DB
	svc *live.Service
	log *logBuf
}

func startServer(t testing.TB) *server {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, dir: dir, db: db, log: &logBuf{}}
	logger := slog.New(slog.NewTextHandler(s.log, nil))
	s.svc = live.New(db, live.Options{DataDir: dir, Logger: logger})
	srv := deskhttp.NewServer(db, deskhttp.Options{Addr: "127.0.0.1:0", Agents: s.svc, Logger: logger})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	s.url = srv.URL()
	port := srv.Addr().(*net.TCPAddr).Port
	if err := serverfile.Write(dir, serverfile.Info{PID: os.Getpid(), URL: s.url, Port: port}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return s
}

// hookCommand is the command line a client runs for desk's event hook.
func (s *server) hookCommand(client string) string {
	return deskBin(s.t) + " --data " + s.dir + " hook event --client " + client
}

// apiSession is a session as GET /api/agents shows it.
type apiSession struct {
	ID       string `json:"id"`
	Client   string `json:"client"`
	State    string `json:"state"`
	Activity *struct {
		Kind, Label string
	} `json:"activity"`
	Permission *struct{ Label string } `json:"permission"`
	Events     []struct {
		Kind string `json:"kind"`
		Late bool   `json:"late"`
	} `json:"events"`
}

func (a apiSession) look() string {
	s := a.State
	if a.Activity != nil {
		s += " " + a.Activity.Kind + " " + a.Activity.Label
	}
	if a.Permission != nil {
		s += " " + a.Permission.Label
	}
	return s
}

func (s *server) agents(query string) []apiSession {
	s.t.Helper()
	resp, err := http.Get(s.url + "/api/agents" + query)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Agents []apiSession }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		s.t.Fatal(err)
	}
	return out.Agents
}

func (s *server) agent(id string) apiSession {
	s.t.Helper()
	resp, err := http.Get(s.url + "/api/agents/" + url.PathEscape(id))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out apiSession
	json.NewDecoder(resp.Body).Decode(&out)
	return out
}

// observation is a session's look when it changed, as a poller of
// GET /api/agents saw it.
type observation struct {
	at   time.Time
	look string
}

// watcher polls GET /api/agents?client=C every two milliseconds and keeps
// every change of the first session's look.
type watcher struct {
	mu     sync.Mutex
	id     string
	seen   []observation
	cancel context.CancelFunc
	done   chan struct{}
}

func (s *server) watch(client string) *watcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{cancel: cancel, done: make(chan struct{})}
	hc := &http.Client{Timeout: time.Second}
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			resp, err := hc.Get(s.url + "/api/agents?client=" + client)
			if err == nil {
				var out struct{ Agents []apiSession }
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if len(out.Agents) > 0 {
					a := out.Agents[0]
					w.mu.Lock()
					if n := len(w.seen); n == 0 || w.seen[n-1].look != a.look() {
						w.id = a.ID
						w.seen = append(w.seen, observation{time.Now(), a.look()})
					}
					w.mu.Unlock()
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return w
}

func (w *watcher) stop() []observation {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// first returns the first observation whose look starts with prefix.
func (w *watcher) first(prefix string) (observation, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.seen {
		if strings.HasPrefix(o.look, prefix) {
			return o, true
		}
	}
	return observation{}, false
}

// inOrder reports whether looks with these prefixes were seen in this order
// (others may come between).
func inOrder(seen []observation, prefixes ...string) bool {
	i := 0
	for _, o := range seen {
		if i < len(prefixes) && strings.HasPrefix(o.look, prefixes[i]) {
			i++
		}
	}
	return i == len(prefixes)
}

func looks(seen []observation) string {
	var b strings.Builder
	for _, o := range seen {
		fmt.Fprintf(&b, "\n  %s %s", o.at.Format("15:04:05.000"), o.look)
	}
	return b.String()
}

func eventKinds(a apiSession) []string {
	var out []string
	for _, e := range a.Events {
		out = append(out, e.Kind)
	}
	return out
}
