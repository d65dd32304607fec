package live_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/agent"
	"desk/agent/intake"
	"desk/agent/live"
)

func TestReceiveShowsAtOnceAndSavesWithAFeedRow(t *testing.T) {
	r := newRig(t, nil)
	last, _ := r.db.LastSeq(context.Background())
	now := time.Now().UTC()
	r.mustReceive("claude", hook("UserPromptSubmit", "s1", "/src", `"prompt":"hi"`), now)
	res := r.mustReceive("claude", hook("PreToolUse", "s1", "/src", `"tool_name":"Edit","tool_input":{"file_path":"/src/store.go"}`), now.Add(time.Millisecond))
	if res.Session != "s1" || res.State != agent.StateWorking || res.Events != 1 {
		t.Fatalf("result = %+v", res)
	}
	s := r.session("s1")
	if s.State != agent.StateWorking || s.Activity == nil || s.Activity.Label != "Editing store.go" {
		t.Fatalf("session = %+v", s)
	}
	eventually(t, "the session in the store", func() bool {
		st, ok := r.stored("s1")
		return ok && st.Activity != nil && st.Activity.Label == "Editing store.go" && len(st.Events) == 2
	})
	rows := agentRows(t, r.db, last)
	if len(rows) == 0 || rows[len(rows)-1].Actor != "s1" || rows[len(rows)-1].Action != "updated" {
		t.Fatalf("feed rows = %+v", rows)
	}
	evs, err := r.db.AgentEvents(context.Background(), "s1", 10)
	if err != nil || len(evs) != 2 || !strings.Contains(string(evs[1].Raw), "store.go") {
		t.Errorf("stored events = %+v, %v; want both with their payloads", evs, err)
	}
	if st := r.svc.Stats(); st.Reports != 2 || st.Events != 2 || st.Persisted != 2 || st.Ignored != 0 {
		t.Errorf("stats = %+v", st)
	}
}

// A restarted server shows the sessions as they were, with their recent
// events, and goes on from there.
func TestRestartRestoresSessions(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	a := startRig(t, dir, db, nil)
	now := time.Now().UTC()
	a.mustReceive("claude", hook("SessionStart", "s1", "/src", `"source":"startup"`), now)
	a.mustReceive("claude", hook("PermissionRequest", "s1", "/src", `"tool_name":"Bash","tool_input":{"command":"rm -rf build"}`), now.Add(time.Second))
	if err := a.svc.Close(); err != nil {
		t.Fatal(err)
	}

	b := startRig(t, dir, db, nil)
	s := b.session("s1")
	if s.State != agent.StateNeedsPermission || s.Permission == nil || s.Permission.Label != "Bash: rm -rf build" || len(s.Events) != 2 {
		t.Fatalf("restored %+v", s)
	}
	if b.svc.Generation() != a.svc.Generation()+1 {
		t.Errorf("generations %d then %d", a.svc.Generation(), b.svc.Generation())
	}
	b.mustReceive("claude", hook("PostToolUse", "s1", "/src", `"tool_name":"Bash"`), now.Add(2*time.Second))
	if s := b.session("s1"); s.State != agent.StateWorking {
		t.Errorf("after approval: %s", s.State)
	}
}

// What hooks spooled while no server ran is replayed at start, in order,
// and an event older than the restored state does not move it.
func TestStartReplaysTheSpool(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	a := startRig(t, dir, db, nil)
	now := time.Now().UTC()
	a.mustReceive("codex", hook("UserPromptSubmit", "c1", "/src", `"prompt":"go"`), now)
	a.svc.Close()

	spool := func(event, extra string, at time.Time) {
		if err := intake.Spool(dir, &intake.Report{Client: "codex", Payload: hook(event, "c1", "/src", extra), Received: at}); err != nil {
			t.Fatal(err)
		}
	}
	spool("PreToolUse", `"tool_name":"Bash","tool_input":{"command":"go test ./..."}`, now.Add(time.Second))
	spool("Stop", "", now.Add(3*time.Second))
	spool("PostToolUse", `"tool_name":"Bash"`, now.Add(2*time.Second)) // raced the Stop
	intake.Spool(dir, &intake.Report{Client: "nosuch", Payload: []byte(`{}`), Received: now})

	b := startRig(t, dir, db, nil)
	s := b.session("c1")
	if s.State != agent.StateDone || len(s.Events) != 4 || !s.Events[2].Late || s.Events[3].Late {
		t.Fatalf("after replay: %s with %d events", s.State, len(s.Events))
	}
	if st := b.svc.Stats(); st.Spooled != 4 || st.Late != 1 || st.Ignored != 1 {
		t.Errorf("stats = %+v", st)
	}
	if intake.Pending(dir) {
		t.Error("the spool is still there")
	}
	if !contains(b.log.String(), `unknown agent client \"nosuch\"`) {
		t.Errorf("the unknown client is not in the log:\n%s", b.log)
	}
}

// A report spooled while the server runs (its hook found the server busy)
// reaches it on the next tick.
func TestRunningServerPicksUpTheSpool(t *testing.T) {
	r := newRig(t, nil)
	intake.Spool(r.dir, &intake.Report{Client: "claude", Payload: hook("Stop", "late", "/src", ""), Received: time.Now()})
	eventually(t, "the spooled report", func() bool {
		_, ok := r.svc.Session("late")
		return ok
	})
}

// A server that outlived a newer one's start stops writing and turns
// reports away, so that their hooks spool them for the newer one.
func TestAnOlderServerStandsDown(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	old := startRig(t, dir, db, nil)
	cur := startRig(t, dir, db, nil)
	now := time.Now().UTC()
	old.receive("claude", hook("UserPromptSubmit", "ghost", "/src", ""), now)
	eventually(t, "the old server to stand down", func() bool {
		_, err := old.receive("claude", hook("Stop", "ghost", "/src", ""), now.Add(time.Second))
		return errors.Is(err, live.ErrUnavailable)
	})
	if _, ok := old.stored("ghost"); ok {
		t.Error("the old server saved a session after a newer one started")
	}
	// What hooks spool now is the newer server's to replay.
	intake.Spool(dir, &intake.Report{Client: "claude", Payload: hook("Stop", "spooled", "/src", ""), Received: now})
	eventually(t, "the newer server to replay the spool", func() bool { _, ok := cur.svc.Session("spooled"); return ok })
	if _, ok := old.svc.Session("spooled"); ok {
		t.Error("the old server took a spooled report")
	}
	if !contains(old.log.String(), "newer desk server") {
		t.Errorf("the old server did not say why it stopped:\n%s", old.log)
	}
	cur.mustReceive("claude", hook("UserPromptSubmit", "real", "/src", ""), now)
	eventually(t, "the newer server's session in the store", func() bool { _, ok := cur.stored("real"); return ok })
}

// Bad input is refused with a reason in the log and never changes a
// session.
func TestBadInputIsRefusedWithAReason(t *testing.T) {
	r := newRig(t, nil)
	now := time.Now().UTC()
	r.mustReceive("claude", hook("UserPromptSubmit", "s", "/src", ""), now)
	for _, tc := range []struct {
		name    string
		client  string
		payload string
		code    string
		log     string
	}{
		{"unknown client", "vim", `{}`, desk.NotFound, "unknown agent client"},
		{"not JSON", "claude", `{"session_id":`, desk.Invalid, "payload is not valid"},
		{"no event name", "claude", `{"session_id":"s"}`, desk.Invalid, "has no hook_event_name"},
		{"unknown event", "claude", `{"session_id":"s","hook_event_name":"Teleport"}`, desk.Invalid, "unknown event"},
		{"no session", "claude", `{"hook_event_name":"Stop"}`, desk.Invalid, "has no session_id"},
		{"bad generation", "claude", `{"session_id":"s","hook_event_name":"Stop"}`, desk.Invalid, "is not a generation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &intake.Report{Client: tc.client, Payload: []byte(tc.payload), Received: now}
			if tc.name == "bad generation" {
				rep.Env = map[string]string{agent.EnvGeneration: "-1"}
			}
			_, err := r.svc.Receive(rep)
			if desk.ErrorCode(err) != tc.code {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
			if !contains(r.log.String(), tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, r.log)
			}
		})
	}
	huge := &intake.Report{Client: "claude", Payload: []byte(`{}`), Truncated: 9 << 20, Received: now}
	if _, err := r.svc.Receive(huge); desk.ErrorCode(err) != desk.Invalid || !contains(r.log.String(), "over the") {
		t.Errorf("huge payload: %v", err)
	}
	if s := r.session("s"); s.State != agent.StateWorking || len(s.Events) != 1 {
		t.Errorf("bad input changed the session: %s, %d events", s.State, len(s.Events))
	}
}

// Events for a session never started create it; out of order ones are
// kept in the history, marked late, and leave the state alone.
func TestSessionsNeverStartedAndEventsOutOfOrder(t *testing.T) {
	r := newRig(t, nil)
	now := time.Now().UTC()
	res := r.mustReceive("claude", hook("Stop", "mid", "/src", ""), now)
	if res.State != agent.StateDone {
		t.Fatalf("first event Stop: %+v", res)
	}
	res = r.mustReceive("claude", hook("PreToolUse", "mid", "/src", `"tool_name":"Bash","tool_input":{"command":"ls"}`), now.Add(-time.Second))
	if !res.Late || res.State != agent.StateDone {
		t.Fatalf("late tool start: %+v", res)
	}
	eventually(t, "the late event in the store", func() bool {
		evs, _ := r.db.AgentEvents(context.Background(), "mid", 10)
		return len(evs) == 2 && evs[1].Late
	})
}

// A managed launch's producer that outlived its restart is refused, also
// after the server itself restarted.
func TestGenerationFenceSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	a := startRig(t, dir, db, nil)
	now := time.Now().UTC()
	stamp := func(gen string) map[string]string {
		return map[string]string{agent.EnvLaunch: "L1", agent.EnvGeneration: gen}
	}
	if _, err := a.svc.Receive(&intake.Report{Client: "claude", Payload: hook("SessionStart", "p2", "/src", ""), Env: stamp("3"), Received: now}); err != nil {
		t.Fatal(err)
	}
	a.svc.Close()
	b := startRig(t, dir, db, nil)
	_, err := b.svc.Receive(&intake.Report{Client: "claude", Payload: hook("UserPromptSubmit", "p1", "/src", ""), Env: stamp("2"), Received: now.Add(time.Second)})
	if desk.ErrorCode(err) != desk.Conflict || !contains(b.log.String(), "generation 2 refused") {
		t.Fatalf("old producer: %v\n%s", err, b.log)
	}
	if _, err := b.svc.Receive(&intake.Report{Client: "claude", Payload: hook("UserPromptSubmit", "p2", "/src", ""), Env: stamp("3"), Received: now.Add(time.Second)}); err != nil {
		t.Fatalf("current producer: %v", err)
	}
}

// A session in a linked folder gets its project; the feed row names it.
func TestSessionsTakeTheProjectOfTheirFolder(t *testing.T) {
	r := newRig(t, nil)
	repo := linkedRepo(t, "mygame")
	sub := filepath.Join(repo, "src")
	os.MkdirAll(sub, 0o755)
	r.mustReceive("claude", hook("SessionStart", "s", sub, ""), time.Now())
	if s := r.session("s"); s.Project != "mygame" {
		t.Fatalf("project = %q", s.Project)
	}
	r.mustReceive("claude", hook("SessionStart", "elsewhere", t.TempDir(), ""), time.Now())
	if got := r.svc.Sessions(live.Filter{Project: "mygame"}); len(got) != 1 || got[0].ID != "s" {
		t.Errorf("project filter = %v", got)
	}
	eventually(t, "a feed row with the project", func() bool {
		for _, c := range agentRows(t, r.db, 0) {
			if c.Actor == "s" && c.Project == "mygame" {
				return true
			}
		}
		return false
	})
}

func TestSessionsFilterByStateAndClient(t *testing.T) {
	r := newRig(t, nil)
	now := time.Now()
	r.mustReceive("claude", hook("UserPromptSubmit", "a", "/a", ""), now)
	r.mustReceive("codex", hook("UserPromptSubmit", "b", "/b", ""), now)
	r.mustReceive("codex", hook("Stop", "b", "/b", ""), now.Add(time.Millisecond))
	ids := func(f live.Filter) []string {
		var out []string
		for _, s := range r.svc.Sessions(f) {
			out = append(out, s.ID)
		}
		slices.Sort(out)
		return out
	}
	if got := ids(live.Filter{State: []agent.State{agent.StateWorking}}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("working = %v", got)
	}
	if got := ids(live.Filter{Client: []string{"codex"}}); !slices.Equal(got, []string{"b"}) {
		t.Errorf("codex = %v", got)
	}
	if got := ids(live.Filter{}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("all = %v", got)
	}
	if err := (live.Filter{State: []agent.State{"busy"}}).Validate(); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("a bad state filter: %v", err)
	}
}

// An MCP call that names its session (Claude Code's CLAUDE_CODE_SESSION_ID)
// or only its folder ties the issue to the session, which shows it.
func TestTouchedIssuesReachTheirSession(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	if _, err := r.db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	title := "a bug"
	is, err := r.db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	r.mustReceive("claude", hook("PreToolUse", "cc", "/src/game", `"tool_name":"mcp__desk__update_issue"`), now)
	r.mustReceive("codex", hook("PreToolUse", "cx", "/src/other", `"tool_name":"mcp__desk__add_comment"`), now)
	eventually(t, "the sessions in the store", func() bool { _, a := r.stored("cc"); _, b := r.stored("cx"); return a && b })

	if err := r.db.AgentTouched(ctx, "claude", "cc", "/src/game", is.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.db.AgentTouched(ctx, "codex", "", "/src/other/pkg", is.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both sessions to list the issue", func() bool {
		return slices.Contains(r.session("cc").Issues, is.ID) && slices.Contains(r.session("cx").Issues, is.ID)
	})
	on := r.svc.OnIssue(is.ID)
	if len(on) != 2 {
		t.Fatalf("OnIssue = %v", on)
	}
	eventually(t, "the match saved", func() bool {
		open, _ := r.db.UnmatchedAgentTouches(ctx, time.Time{})
		st, _ := r.stored("cx")
		return len(open) == 0 && slices.Contains(st.Issues, is.ID)
	})

	// Ended sessions no longer work on it.
	r.mustReceive("claude", hook("SessionEnd", "cc", "/src/game", ""), now.Add(time.Second))
	if on := r.svc.OnIssue(is.ID); len(on) != 1 || on[0].ID != "cx" {
		t.Errorf("OnIssue after cc ended = %v", on)
	}
}

// A touch made while no server ran is matched when one starts.
func TestTouchesWhileNoServerRanAreMatchedAtStart(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	ctx := context.Background()
	a := startRig(t, dir, db, nil)
	a.mustReceive("codex", hook("UserPromptSubmit", "cx", "/src/game", ""), time.Now())
	a.svc.Close()
	db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner")
	title := "x"
	is, _ := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{})
	if err := db.AgentTouched(ctx, "codex", "", "/src/game", is.ID); err != nil {
		t.Fatal(err)
	}
	b := startRig(t, dir, db, nil)
	if s := b.session("cx"); !slices.Contains(s.Issues, is.ID) {
		t.Errorf("issues = %v", s.Issues)
	}
}

// A working session that goes silent past the lease reads unknown, and the
// store hears of it: nothing is shown as certain that no client asserts.
func TestSilentSessionsReadUnknown(t *testing.T) {
	timers := agent.DefaultTimers
	timers.WorkingLease = 150 * time.Millisecond
	r := newRig(t, func(o *live.Options) { o.Timers = &timers })
	r.mustReceive("claude", hook("UserPromptSubmit", "s", "/src", ""), time.Now())
	eventually(t, "unknown in the store", func() bool {
		st, ok := r.stored("s")
		return ok && st.State == agent.StateUnknown
	})
}

// Without hooks, a transcript under the home folder shows its session.
func TestTranscriptFallbackFindsHooklessSessions(t *testing.T) {
	home := t.TempDir()
	src, err := os.ReadFile("../testdata/transcripts/claude/-home-user-cc-proj/6d1c2a4e-8b7f-4c1e-9a55-3f2d1e0c9b8a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(home, ".claude", "projects", "-home-user-cc-proj", "6d1c2a4e-8b7f-4c1e-9a55-3f2d1e0c9b8a.jsonl")
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.WriteFile(dst, src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(o *live.Options) { o.Transcripts, o.Home = true, home })
	eventually(t, "the transcript's session", func() bool {
		s, ok := r.svc.Session("6d1c2a4e-8b7f-4c1e-9a55-3f2d1e0c9b8a")
		return ok && s.Source == agent.SourceTranscript && !s.Hooked && len(s.Events) > 0
	})
}

// An MCP client that names itself in a way desk does not know still finds
// the one session working in its folder.
func TestTouchFromAnUnknownClientNameMatchesByFolder(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	r.db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner")
	title := "x"
	is, _ := r.db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{})
	r.mustReceive("gemini", hook("BeforeAgent", "g1", "/src/game", ""), time.Now())
	if err := r.db.AgentTouched(ctx, "agent", "", "/src/game", is.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the touch on the gemini session", func() bool { return slices.Contains(r.session("g1").Issues, is.ID) })
}

// An older server that wrote nothing since a newer one started still
// leaves the spool to the newer one.
func TestAnIdleOlderServerLeavesTheSpoolAlone(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	old := startRig(t, dir, db, nil)
	cur := startRig(t, dir, db, nil)
	for i := 0; i < 20; i++ {
		intake.Spool(dir, &intake.Report{Client: "claude", Payload: hook("Stop", fmt.Sprint("s", i), "/src", ""), Received: time.Now()})
		time.Sleep(5 * time.Millisecond)
	}
	eventually(t, "the newer server to replay every report", func() bool { return cur.svc.Stats().Spooled == 20 })
	if n := old.svc.Stats().Spooled; n != 0 {
		t.Errorf("the older server took %d spooled reports", n)
	}
}
