package pair_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/pair"
	"desk/sqlite"
)

var ctx = context.Background()

// env is a desk in a temp folder with project mygame, a git repository
// as the pair's working folder, and a pair of opencode (to write) and
// codex (to criticise) on it.
type env struct {
	t      *testing.T
	db     *sqlite.DB
	svc    *pair.Service
	folder string
	p      *pair.Pair
	w, c   pair.Caller // the writer-to-be and the critic
}

func newEnv(t *testing.T, in pair.NewInput) *env {
	t.Helper()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	folder := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(folder, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "src", "retry.go"), []byte(retrySource), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, folder, "init", "-q", "-b", "work")
	git(t, folder, "add", ".")
	git(t, folder, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "start")
	db, err := sqlite.Open(ctx, data, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, svc: &pair.Service{Store: db, PatchRoot: filepath.Join(data, "pairs")}, folder: folder}
	if in.Task == "" {
		in.Task = "fix the retry jitter"
	}
	if in.Members == nil {
		in.Members = []string{"opencode", "codex"}
	}
	in.Project, in.Folder = "mygame", folder
	if e.p, err = e.svc.New(ctx, in); err != nil {
		t.Fatalf("New: %v", err)
	}
	e.w, e.c = pair.Caller{Pair: e.p.ID, Role: "opencode"}, pair.Caller{Pair: e.p.ID, Role: "codex"}
	return e
}

const retrySource = `package src

// Backoff returns the wait before retry n.
func Backoff(n int) int {
	return n * 100
}
`

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// must returns v, or stops the test with err (as a panic, which the test
// reports with the line of the call).
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

// refused asserts that err is a refusal with the rule and desk code.
func refused(t *testing.T, err error, rule, code string) *desk.Error {
	t.Helper()
	var de *desk.Error
	if err == nil {
		t.Fatalf("no refusal; want rule %s", rule)
	}
	if !asError(err, &de) {
		t.Fatalf("refusal %v is not desk's error; want rule %s", err, rule)
	}
	if de.Rule != rule || (code != "" && de.Code != code) {
		t.Fatalf("refusal %q has rule %q and code %q; want %s and %s", de.Message, de.Rule, de.Code, rule, code)
	}
	if de.Hint == "" {
		t.Errorf("refusal %q (%s) has no hint", de.Message, rule)
	}
	return de
}

func asError(err error, de **desk.Error) bool { return errors.As(err, de) }

// snapshot is what a refusal must leave as it was: the pair, its tasks,
// patches, evidence, letters and the transcript but for refusals.
func (e *env) snapshot() string {
	e.t.Helper()
	var out []any
	err := e.db.View(ctx, e.p.ID, func(tx pair.ReadTx) error {
		p := *tx.Pair()
		p.UpdatedAt = ""
		ms := append([]pair.Member(nil), p.Members...)
		for i := range ms {
			ms[i].LastSeen = nil
		}
		p.Members = ms
		tasks, _ := tx.Tasks(pair.TaskFilter{})
		patches, _ := tx.Patches(pair.PatchFilter{})
		ev, _ := tx.Evidence(p.Round, 0)
		letters, _ := tx.Letters([]string{"opencode", "codex", "codex-critic", "claude"}, 0, 1000)
		es, _ := tx.Transcript(pair.TranscriptFilter{Limit: 2000})
		var kept []pair.Event
		for _, ev := range es {
			if ev.Kind != pair.EventRefusal && ev.Kind != pair.EventJoined {
				kept = append(kept, ev)
			}
		}
		out = append(out, p, tasks, patches, ev, letters, kept)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// lastRefusal returns the newest refusal in the transcript.
func (e *env) lastRefusal() pair.Event {
	e.t.Helper()
	var found pair.Event
	err := e.db.View(ctx, e.p.ID, func(tx pair.ReadTx) error {
		es, err := tx.Transcript(pair.TranscriptFilter{Kinds: []string{pair.EventRefusal}, Limit: 1})
		if len(es) == 1 {
			found = es[0]
		}
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return found
}

// refusedAndUnchanged runs a call that must be refused with rule, and
// checks that it changed nothing and was written to the transcript.
func (e *env) refusedAndUnchanged(rule, code string, call func() error) *desk.Error {
	e.t.Helper()
	before := e.snapshot()
	de := refused(e.t, call(), rule, code)
	if after := e.snapshot(); after != before {
		e.t.Errorf("the refusal (%s) changed the pair:\nbefore %s\nafter  %s", rule, before, after)
	}
	if r := e.lastRefusal(); r.Rule != rule || r.Text != de.Message {
		e.t.Errorf("the transcript's last refusal is %q (%s); want %q (%s)", r.Text, r.Rule, de.Message, rule)
	}
	return de
}

// writeFile writes a file of the working folder.
func (e *env) writeFile(rel, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.folder, rel), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) readFile(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.folder, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}
