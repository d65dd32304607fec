package agent_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"desk/agent"
)

// transcriptFixture copies a recorded transcript into a fake home a few
// records at a time, as the client would write it.
type transcriptFixture struct {
	tb    testing.TB
	lines [][]byte
	dst   string
	c     *clock
}

func newTranscriptFixture(tb testing.TB, src, dst string, c *clock) *transcriptFixture {
	b, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return &transcriptFixture{tb: tb, lines: lines, dst: dst, c: c}
}

// write appends records [from, to) and, if half is set, the first half of
// record to; the file's time is the clock's.
func (f *transcriptFixture) write(from, to int, half bool) {
	var b []byte
	for _, l := range f.lines[from:to] {
		b = append(b, l...)
	}
	if half {
		b = append(b, f.lines[to][:len(f.lines[to])/2]...)
	}
	appendFile(f.tb, f.dst, string(b))
	os.Chtimes(f.dst, f.c.t, f.c.t)
}

// rest appends the second half of record i.
func (f *transcriptFixture) rest(i int) {
	appendFile(f.tb, f.dst, string(f.lines[i][len(f.lines[i])/2:]))
	os.Chtimes(f.dst, f.c.t, f.c.t)
}

// transcriptRig is a Watcher and a Tracker on one clock.
type transcriptRig struct {
	c  *clock
	w  *agent.Watcher
	tr *agent.Tracker
}

func newTranscriptRig(t *testing.T, start time.Time) (*transcriptRig, string) {
	home := t.TempDir()
	c := &clock{start}
	w := agent.NewWatcher(home)
	w.Now = c.Now
	return &transcriptRig{c: c, w: w, tr: newTracker(c)}, home
}

// poll reads what the transcripts gained and applies it, returning what the
// session looked like after each event: "state label".
func (r *transcriptRig) poll(t *testing.T) []string {
	t.Helper()
	evs, err := r.w.Poll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Source != agent.SourceTranscript {
			t.Fatalf("source = %s", e.Source)
		}
		u := mustApply(t, r.tr, e)
		out = append(out, look(u.Sessions[0]))
	}
	return out
}

func (r *transcriptRig) tick() string {
	u := r.tr.Tick()
	if len(u.Sessions) == 0 {
		return ""
	}
	return look(u.Sessions[0])
}

func look(s agent.Session) string {
	out := string(s.State)
	switch {
	case s.Activity != nil:
		out += " " + s.Activity.Label
	case s.Permission != nil:
		out += " " + s.Permission.Label
	}
	if s.Inferred {
		out += " (inferred)"
	}
	return out
}

func wantLooks(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

const (
	claudeSession = "6d1c2a4e-8b7f-4c1e-9a55-3f2d1e0c9b8a"
	claudeCleared = "9f3e7b21-5c4d-4e8a-b1f0-7a6c5d4e3f21"
	codexSession  = "01a22c56-d2b2-78b0-9829-98271ef98ba1"
)

func TestGoldenClaudeTranscript(t *testing.T) {
	r, home := newTranscriptRig(t, at("2026-11-30T14:00:13.200Z"))
	dir := filepath.Join(home, ".claude", "projects", "-home-user-cc-proj")
	f := newTranscriptFixture(t, "testdata/transcripts/claude/-home-user-cc-proj/"+claudeSession+".jsonl",
		filepath.Join(dir, claudeSession+".jsonl"), r.c)

	// A turn with tools, read on adoption.
	f.write(0, 14, false)
	wantLooks(t, "first turn", r.poll(t),
		"working Thinking", // prompt
		"working Thinking", // thinking
		"working Thinking", // text
		"working Running: go test ./...",
		"working Running: go test ./...", // progress
		"working Thinking",               // failed test run
		"working Reading store.go",
		"working Thinking",
		"working Thinking", // text before the edit
		"working Editing store.go",
		"working Thinking",
		"working Thinking",
		"done", // turn_duration: asserted, not guessed
	)

	// A text-only answer, the prompt arriving in two writes.
	r.c.Set(at("2026-11-30T14:01:00.100Z"))
	f.write(14, 14, true)
	wantLooks(t, "half a record", r.poll(t))
	r.c.Set(at("2026-11-30T14:01:03.100Z"))
	f.rest(14)
	f.write(15, 16, false)
	wantLooks(t, "text-only turn", r.poll(t), "working Thinking", "working Thinking")
	r.c.Add(agent.DefaultTimers.TextIdle - time.Millisecond)
	wantLooks(t, "before the pause", []string{r.tick()}, "")
	r.c.Add(time.Millisecond)
	wantLooks(t, "after the pause", []string{r.tick()}, "done (inferred)")

	// A shell call that waits for approval.
	r.c.Set(at("2026-11-30T14:02:02.100Z"))
	f.write(16, 18, false)
	wantLooks(t, "risky call", r.poll(t), "working Thinking", "working Running: rm -rf build")
	r.c.Add(agent.DefaultTimers.PermissionGuess)
	wantLooks(t, "silence after it", []string{r.tick()}, "needs_permission Bash: rm -rf build (inferred)")

	// Approved: the transcript moves on and the guess gives way.
	r.c.Set(at("2026-11-30T14:02:21.200Z"))
	f.write(18, 21, false)
	wantLooks(t, "after approval", r.poll(t), "working Thinking", "working Thinking", "done")

	// /clear starts a new transcript in the same folder; the record follows.
	r.c.Set(at("2026-11-30T14:03:10.100Z"))
	g := newTranscriptFixture(t, "testdata/transcripts/claude/-home-user-cc-proj/"+claudeCleared+".jsonl",
		filepath.Join(dir, claudeCleared+".jsonl"), r.c)
	g.write(0, 3, false)
	wantLooks(t, "after /clear", r.poll(t), "waiting_input", "working Thinking")

	all := r.tr.Sessions()
	if len(all) != 1 {
		t.Fatalf("%d sessions, want the one record", len(all))
	}
	s := all[0]
	if s.ID != claudeSession || s.ProviderID != claudeCleared || s.Cwd != "/home/user/cc/proj" ||
		s.Source != agent.SourceTranscript || s.Hooked || !strings.HasSuffix(s.Transcript, claudeCleared+".jsonl") {
		t.Fatalf("session = %+v", s)
	}
	if r.w.Malformed != 0 {
		t.Errorf("%d malformed lines", r.w.Malformed)
	}
}

func TestGoldenCodexTranscript(t *testing.T) {
	r, home := newTranscriptRig(t, at("2026-11-30T12:03:38Z"))
	f := newTranscriptFixture(t, "testdata/transcripts/codex/2026/11/30/rollout-2026-11-30T12-03-37-"+codexSession+".jsonl",
		filepath.Join(home, ".codex", "sessions", "2026", "11", "30", "rollout-2026-11-30T12-03-37-"+codexSession+".jsonl"), r.c)

	f.write(0, 13, false)
	wantLooks(t, "exec run", r.poll(t),
		"waiting_input", // session_meta
		"waiting_input", // turn_context: the approval policy
		"working Thinking",
		"working Thinking", // task_started
		"working Running: echo from-codex-shell",
		"working Thinking",
		"working Thinking", // agent_message
		"done",
	)

	r.c.Set(at("2026-11-30T12:05:01.600Z"))
	f.write(13, 17, false)
	wantLooks(t, "second turn", r.poll(t), "working Thinking", "working Thinking", "working Running: make migrate DB=shared")
	r.c.Add(agent.DefaultTimers.PermissionGuess)
	wantLooks(t, "waiting for approval", []string{r.tick()}, "needs_permission exec_command: make migrate DB=shared (inferred)")

	r.c.Set(at("2026-11-30T12:05:31.100Z"))
	f.write(17, 20, false)
	wantLooks(t, "patch, MCP call, interrupt", r.poll(t), "working Editing migrate.go", "working Using desk: echo", "waiting_input")

	s := r.tr.Sessions()[0]
	if s.ID != codexSession || s.Cwd != "/home/user/cx/proj" || s.PermissionMode != "on-request" || s.Note != "interrupted" {
		t.Fatalf("session = %+v", s)
	}
}

// Hooks that start flowing for a session silence its transcript.
func TestTranscriptIsIgnoredOnceHooksReport(t *testing.T) {
	r, home := newTranscriptRig(t, at("2026-11-30T12:03:38Z"))
	f := newTranscriptFixture(t, "testdata/transcripts/codex/2026/11/30/rollout-2026-11-30T12-03-37-"+codexSession+".jsonl",
		filepath.Join(home, ".codex", "sessions", "2026", "11", "30", "rollout-2026-11-30T12-03-37-"+codexSession+".jsonl"), r.c)
	f.write(0, 8, false)
	r.poll(t)
	mustApply(t, r.tr, ev("codex", codexSession, agent.KindToolStart, at("2026-11-30T12:03:37.661Z"), tool("Bash", "echo from-codex-shell", "call_mock0023")))
	r.c.Set(at("2026-11-30T12:05:01.600Z"))
	f.write(8, 17, false)
	evs, _ := r.w.Poll()
	for _, e := range evs {
		if u := mustApply(t, r.tr, e); u.Recorded {
			t.Fatalf("transcript %s recorded on a hooked session", e.Kind)
		}
	}
	r.c.Add(time.Minute)
	r.tr.Tick()
	if s := r.tr.Sessions()[0]; s.State != agent.StateWorking || s.Source != agent.SourceHook {
		t.Fatalf("session = %s from %s", s.State, s.Source)
	}
}

func TestWatcherAdoptsOnlyRecentTranscripts(t *testing.T) {
	r, home := newTranscriptRig(t, at("2026-11-30T14:30:00Z"))
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte(`{"type":"user","sessionId":"old","cwd":"/p","message":{"content":"hi"}}`+"\n"), 0o644)
	os.Chtimes(old, r.c.t.Add(-11*time.Minute), r.c.t.Add(-11*time.Minute))
	if got := r.poll(t); got != nil || len(r.w.Watching()) != 0 {
		t.Fatalf("adopted a stale transcript: %v %v", got, r.w.Watching())
	}
	// Written to again, it is adopted at the next scan, from its end minus the backlog.
	r.c.Add(agent.NewWatcher("").ScanEvery)
	appendFile(t, old, `{"type":"user","sessionId":"old","cwd":"/p","message":{"content":"again"}}`+"\n")
	os.Chtimes(old, r.c.t, r.c.t)
	if got := r.poll(t); len(got) != 2 {
		t.Fatalf("adoption read %v", got)
	}
	// Quiet for longer than the window, it is dropped and resumed where it was left.
	r.c.Add(11 * time.Minute)
	r.poll(t)
	if len(r.w.Watching()) != 0 {
		t.Fatalf("still watching %v", r.w.Watching())
	}
	r.c.Add(agent.NewWatcher("").ScanEvery)
	appendFile(t, old, `{"type":"system","subtype":"turn_duration","sessionId":"old"}`+"\n")
	os.Chtimes(old, r.c.t, r.c.t)
	if got := r.poll(t); !slices.Equal(got, []string{"done"}) {
		t.Fatalf("resumed read %v", got)
	}
}

func TestWatcherReadsOnlyTheBacklogOfABigTranscript(t *testing.T) {
	r, home := newTranscriptRig(t, at("2026-11-30T14:30:00Z"))
	r.w.Backlog = 300
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, "big.jsonl")
	line := `{"type":"user","sessionId":"big","cwd":"/p","message":{"content":"prompt"}}` + "\n"
	appendFile(t, p, strings.Repeat(line, 100))
	os.Chtimes(p, r.c.t, r.c.t)
	evs, err := r.w.Poll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 300 / len(line); len(evs) != want || r.w.Malformed != 0 {
		t.Fatalf("%d events, %d malformed; want %d whole lines of the backlog", len(evs), r.w.Malformed, want)
	}
}
