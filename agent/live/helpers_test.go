package live_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/agent"
	"desk/agent/intake"
	"desk/agent/live"
	"desk/sqlite"
)

// logBuf collects a Service's log for assertions.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// rig is a store and a Service on it.
type rig struct {
	t   testing.TB
	dir string
	db  *sqlite.DB
	svc *live.Service
	log *logBuf
}

func openDB(t testing.TB, dir string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newRig starts a Service on a new desk; edit adjusts its options.
func newRig(t testing.TB, edit func(*live.Options)) *rig {
	t.Helper()
	dir := t.TempDir()
	return startRig(t, dir, openDB(t, dir), edit)
}

func startRig(t testing.TB, dir string, db *sqlite.DB, edit func(*live.Options)) *rig {
	t.Helper()
	r := &rig{t: t, dir: dir, db: db, log: &logBuf{}}
	o := live.Options{DataDir: dir, Tick: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if edit != nil {
		edit(&o)
	}
	r.svc = live.New(db, o)
	if err := r.svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.svc.Close() })
	return r
}

// hook is a Claude Code hook payload for session sid in folder cwd.
func hook(event, sid, cwd string, extra string) []byte {
	p := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q`, sid, cwd, event)
	if extra != "" {
		p += "," + extra
	}
	return []byte(p + "}")
}

func (r *rig) receive(client string, payload []byte, at time.Time) (live.Result, error) {
	r.t.Helper()
	return r.svc.Receive(&intake.Report{Client: client, Payload: payload, Received: at})
}

func (r *rig) mustReceive(client string, payload []byte, at time.Time) live.Result {
	r.t.Helper()
	res, err := r.receive(client, payload, at)
	if err != nil {
		r.t.Fatalf("receive %s: %v", payload, err)
	}
	return res
}

// eventually polls cond for up to two seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stored returns the store's copy of a session.
func (r *rig) stored(id string) (agent.Session, bool) {
	r.t.Helper()
	all, err := r.db.LoadAgents(context.Background(), time.Time{}, 1000)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, s := range all {
		if s.ID == id {
			return s, true
		}
	}
	return agent.Session{}, false
}

func (r *rig) session(id string) agent.Session {
	r.t.Helper()
	s, ok := r.svc.Session(id)
	if !ok {
		r.t.Fatalf("no session %s", id)
	}
	return s
}

func agentRows(t *testing.T, db *sqlite.DB, after int64) []*desk.Change {
	t.Helper()
	all, err := db.Changes(context.Background(), desk.ChangeFilter{After: after, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	var out []*desk.Change
	for _, c := range all {
		if c.Type == desk.ChangeAgent {
			out = append(out, c)
		}
	}
	return out
}

// linkedRepo makes a folder with a marker that links it to project slug.
func linkedRepo(t *testing.T, slug string) string {
	t.Helper()
	dir := t.TempDir()
	b, _ := json.Marshal(map[string]string{"project": slug})
	if err := os.WriteFile(filepath.Join(dir, ".desk.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
