package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/pair"
	"desk/sqlite"
)

// pairEnv is a desk with project mygame and a git repository as the
// working folder.
func pairEnv(t *testing.T) *env {
	t.Helper()
	e := projectEnv(t)
	for _, args := range [][]string{{"init", "-q"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git: %v\n%s", err, out)
		}
	}
	return e
}

// members acts as the pair's agents would, through the rules over the
// same data folder (another process, as their MCP servers are).
func (e *env) members(id string) (*pair.Service, pair.Caller, pair.Caller) {
	e.t.Helper()
	db, err := sqlite.Open(context.Background(), e.data, sqlite.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return &pair.Service{Store: db, PatchRoot: pair.PatchRootIn(e.data)}, pair.Caller{Pair: id, Role: "opencode"}, pair.Caller{Pair: id, Role: "codex"}
}

func TestPairNewPrintsTheIDAndHowToStartTheAgents(t *testing.T) {
	e := pairEnv(t)
	r := e.run("pair", "new", "--task", "fix the retry jitter", "--members", "opencode,codex")
	if r.code != 0 || strings.TrimSpace(r.out) != "p1" {
		t.Fatalf("pair new: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	for _, want := range []string{"DESK_PAIR=p1 DESK_PAIR_ROLE=opencode opencode", "DESK_PAIR=p1 DESK_PAIR_ROLE=codex codex", "autonomy auto (from default)"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("pair new's help for the agents lacks %q:\n%s", want, r.err)
		}
	}
	var p pair.Pair
	e.okJSON(&p, "pair", "new", "--task", "autonomy: semi audit the loop", "--members", "opencode, codex", "--mode", "audit", "--writer", "opencode", "--cwd", e.dir)
	if p.ID != "p2" || p.Mode != "audit" || p.Autonomy != "semi" || p.AutonomySource != "task" || p.PinnedWriter != "opencode" || p.Folder != e.dir || p.Project != "mygame" {
		t.Errorf("pair new --json: %+v", p)
	}
	// A malformed --autonomy is a usage error; the rules refuse the rest.
	e.fails(2, "--autonomy", "pair", "new", "--task", "t", "--members", "a,b", "--autonomy", "sometimes")
	e.fails(2, "--task is required", "pair", "new", "--members", "a,b")
	e.fails(3, "not a mode", "pair", "new", "--task", "t", "--members", "a,b", "--mode", "refactor")
	e.fails(3, "two members", "pair", "new", "--task", "t", "--members", "codex")
	e.fails(3, "not a folder", "pair", "new", "--task", "t", "--members", "a,b", "--cwd", "/no/such/folder")
	e.fails(2, "unknown pair command", "pair", "dance")
	if out := e.ok("pair", "help"); !strings.Contains(out, "new") || !strings.Contains(out, "transcript") {
		t.Errorf("pair help:\n%s", out)
	}
}

func TestPairCommandsShowAndSteerAPair(t *testing.T) {
	e := pairEnv(t)
	id := strings.TrimSpace(e.ok("pair", "new", "--task", "fix the retry jitter", "--members", "opencode,codex", "--autonomy", "semi"))
	svc, w, c := e.members(id)
	ctx := context.Background()
	if _, err := svc.Claim(ctx, w, "I'll fix Backoff"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Claim(ctx, c, "me"); err == nil {
		t.Fatal("a second claim was taken")
	}
	if _, err := svc.Send(ctx, c, "please add a test\nfor zero", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ChangeTask(ctx, c, pair.TaskInput{Action: "add", Text: "test Backoff(0)"}); err != nil {
		t.Fatal(err)
	}

	st := e.ok("pair", "status")
	for _, want := range []string{"pair p1 · mygame", "autonomy semi (from flag)", "writer: opencode", "codex (critic", "task #1: test Backoff(0)", "closing waits on: no_evidence, open_task, semi_needs_ok"} {
		if !strings.Contains(st, want) {
			t.Errorf("pair status lacks %q:\n%s", want, st)
		}
	}
	var js pair.StateAnswer
	e.okJSON(&js, "pair", "status", "--pair", id)
	if js.Writer != "opencode" || js.YouAre != "owner" || len(js.Tasks) != 1 {
		t.Errorf("pair status --json: %+v", js)
	}
	if why := e.ok("pair", "why"); !strings.Contains(why, "opencode holds write authority") || !strings.Contains(why, "I'll fix Backoff") {
		t.Errorf("pair why:\n%s", why)
	}

	e.extra = []string{"FORCE_COLOR=1"}
	chat := e.ok("pair", "chat", "--once")
	for _, want := range []string{"codex → opencode", "please add a test", "\x1b[31mcodex REFUSED [single_writer]"} {
		if !strings.Contains(chat, want) {
			t.Errorf("pair chat lacks %q:\n%s", want, chat)
		}
	}
	e.extra = nil
	if plain := e.ok("pair", "chat", "--once"); strings.Contains(plain, "\x1b[") || !strings.Contains(plain, "REFUSED [single_writer]") {
		t.Errorf("pair chat into a pipe:\n%s", plain)
	}
	var tr pair.TranscriptAnswer
	e.okJSON(&tr, "pair", "transcript")
	if len(tr.Entries) < 4 || tr.Entries[0].Kind != pair.EventCreated {
		t.Errorf("pair transcript --json: %+v", tr.Entries)
	}

	// The owner's word is the owner's alone.
	e.extra = []string{"DESK_PAIR=" + id, "DESK_PAIR_ROLE=opencode"}
	e.fails(6, "the owner's", "pair", "ok")
	e.fails(6, "the owner's", "pair", "budget", "--messages", "10")
	e.extra = nil
	if out := e.ok("pair", "ok"); !strings.Contains(out, "round 1 of pair p1 may close") {
		t.Errorf("pair ok: %q", out)
	}
	if out := e.ok("pair", "budget", "--messages", "50"); !strings.Contains(out, "letters        1 of 50") {
		t.Errorf("pair budget:\n%s", out)
	}
	if out := e.ok("pair", "pilot", "--once"); out != "" {
		t.Errorf("a pass over a pair with nothing to do printed %q", out)
	}
	if out := e.ok("pair", "swap", "claude"); !strings.Contains(out, "DESK_PAIR=p1 DESK_PAIR_ROLE=claude claude") || !strings.Contains(out, "opencode keeps write authority") {
		t.Errorf("pair swap: %q", out)
	}
	e.fails(4, "not a pair", "pair", "status", "--pair", "x7")
	// An agent that cannot start leaves nothing up: its pair is stopped.
	e.fails(3, "Claude Code is not installed", "pair", "up", "--task", "t")
	if out := e.ok("pair", "status", "--pair", "p2"); !strings.Contains(out, "stopped") {
		t.Errorf("the pair of a failed desk pair up:\n%s", out)
	}
	if out := e.ok("pair", "stop", "--reason", "enough"); !strings.Contains(out, "pair p1 stopped") {
		t.Errorf("pair stop: %q", out)
	}
	if _, err := svc.Send(ctx, c, "still there?", nil); err == nil {
		t.Error("a stopped pair took a letter")
	}
	e.fails(4, "no live pair", "pair", "status")
}

func TestPairFilesStayInTheDataFolder(t *testing.T) {
	e := pairEnv(t)
	id := strings.TrimSpace(e.ok("pair", "new", "--task", "t", "--members", "opencode,codex"))
	svc, w, c := e.members(id)
	ctx := context.Background()
	svc.Claim(ctx, w, "I write")
	if err := os.WriteFile(filepath.Join(e.dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Propose(ctx, c, []pair.ProposedFile{{Path: "a.txt", Content: "b\n"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Patch.Path, filepath.Join(e.data, "pairs", id, "patches")+"/") {
		t.Errorf("the patch file %s is not in the data folder %s", got.Patch.Path, e.data)
	}
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		if en.Name() != ".git" && en.Name() != "a.txt" {
			t.Errorf("the pair left %s in the working folder", en.Name())
		}
	}
}

// desk pair chat follows the conversation as it is written, by any process.
func TestPairChatFollowsTheConversation(t *testing.T) {
	e := pairEnv(t)
	id := strings.TrimSpace(e.ok("pair", "new", "--task", "t", "--members", "opencode,codex"))
	svc, _, c := e.members(id)
	cmd := exec.Command(deskBin, "--data", e.data, "pair", "chat")
	cmd.Dir, cmd.Env = e.dir, []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	waitOutput(t, out, "pair "+id+" made")
	if _, err := svc.Send(context.Background(), c, "a letter while you watch", nil); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, out, "codex → opencode")
	waitOutput(t, out, "a letter while you watch")
}

// lockedBuffer is a buffer a process writes into while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func waitOutput(t *testing.T, out *lockedBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("desk pair chat never printed %q:\n%s", want, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
