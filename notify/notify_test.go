package notify_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/notify"
)

func TestNamesDeskChannel(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"claude --dangerously-load-development-channels plugin:desk@desk", true},
		{"claude --dangerously-load-development-channels server:desk", true},
		{"claude --channels=plugin:agent-bridge@agent-bridge,plugin:desk@local", true},
		{"claude --channels plugin:other@x server:desk --resume", true},
		{"claude --resume desk", false},
		{"claude --channels plugin:desktop@x", false},
		{"claude --channels server:desk-dev", false},
		{"claude --dangerously-load-development-channels --verbose server:desk", false},
		{"node /usr/bin/claude", false},
	} {
		if got := notify.NamesDeskChannel(strings.Fields(c.args)); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}

func TestDetectChannelHonoursTheOverride(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == notify.ChannelVar {
				return v
			}
			return ""
		}
	}
	for _, v := range []string{"off", "0", "false", "no", "hooks"} {
		if on, _ := notify.DetectChannel(env(v)); on {
			t.Errorf("DESK_CHANNEL=%s turned the channel on", v)
		}
	}
	for _, v := range []string{"on", "1", "true", "yes", "channel"} {
		if on, pid := notify.DetectChannel(env(v)); !on || pid != os.Getppid() {
			t.Errorf("DESK_CHANNEL=%s: on %v, pid %d", v, on, pid)
		}
	}
	if on, _ := notify.DetectChannel(env("")); on {
		t.Error("detected a channel in a test run")
	}
}

func TestAncestorsStartWithTheProcessItself(t *testing.T) {
	a := notify.Ancestors(os.Getpid(), 8)
	if len(a) == 0 || a[0].PID != os.Getpid() || len(a[0].Args) == 0 {
		t.Fatalf("ancestors = %+v", a)
	}
	if len(a) > 1 && a[1].PID != os.Getppid() {
		t.Errorf("second ancestor %d, parent is %d", a[1].PID, os.Getppid())
	}
}

func TestCursorsAreForgottenAfterFourteenDays(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	err := notify.UpdateCursors(dir, now.Add(-15*24*time.Hour), func(c *notify.Cursors) (bool, error) {
		c.Set("old", "mygame", 5, now.Add(-15*24*time.Hour))
		c.Set("", "stale-project", 5, now.Add(-15*24*time.Hour))
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	notify.UpdateCursors(dir, now, func(c *notify.Cursors) (bool, error) {
		c.Set("new", "mygame", 9, now)
		return true, nil
	})
	notify.UpdateCursors(dir, now, func(c *notify.Cursors) (bool, error) {
		if c.Sessions["old"] != nil || c.Projects["stale-project"] != nil {
			t.Errorf("cursors unused for 15 days are still there: %+v %+v", c.Sessions, c.Projects)
		}
		if c.Lookup("new", "mygame").Seq != 9 || c.Lookup("unknown", "mygame").Seq != 9 || c.Lookup("new", "other") != nil {
			t.Errorf("lookups: %+v", c)
		}
		return false, nil
	})
}

func TestCursorUpdatesTakeTurns(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := notify.UpdateCursors(dir, time.Now(), func(c *notify.Cursors) (bool, error) {
				c.Set(fmt.Sprintf("s%d", i), "mygame", int64(i), time.Now())
				return true, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	notify.UpdateCursors(dir, time.Now(), func(c *notify.Cursors) (bool, error) {
		if len(c.Sessions) != 20 || c.Projects["mygame"].Seq != 19 {
			t.Errorf("%d sessions, project at %d; want 20 and 19", len(c.Sessions), c.Projects["mygame"].Seq)
		}
		return false, nil
	})
	if err := notify.UpdateCursors(filepath.Join(dir, "missing"), time.Now(), func(*notify.Cursors) (bool, error) { return true, nil }); err == nil {
		t.Error("cursors were written into a data folder that does not exist")
	}
}

func TestLinesAndBlocks(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return desk.FormatTime(now.Add(-d)) }
	for _, c := range []struct {
		e    desk.OwnerEvent
		want string
	}{
		{desk.OwnerEvent{Issue: "MG-4", Kind: desk.EventVerdict, Verdict: "failed", Text: "the east flow is still square", At: at(2 * time.Minute)},
			`MG-4 owner says STILL BROKEN (2 min ago): "the east flow is still square"`},
		{desk.OwnerEvent{Issue: "MG-4", Kind: desk.EventVerdict, Verdict: "passed", At: at(3 * time.Hour)}, `MG-4 owner says PASSED (3 h ago)`},
		{desk.OwnerEvent{Issue: "MG-2", Kind: desk.EventReport, Source: "game", Title: "Stuck", At: at(3 * 24 * time.Hour)}, `MG-2 new report from the game (3 days ago): Stuck`},
		{desk.OwnerEvent{Issue: "MG-4", Kind: desk.EventPlan, Step: 2, To: "done", Text: "ok", At: at(0)}, `MG-4 owner marked step 2 done and noted on step 2 (just now): "ok"`},
		{desk.OwnerEvent{Issue: "MG-7", Kind: desk.EventParent, At: at(0)}, `MG-7 owner took it out of its parent (just now)`},
	} {
		if got := notify.Line(&c.e, now); got != c.want {
			t.Errorf("line %q, want %q", got, c.want)
		}
	}
	long := desk.OwnerEvent{Issue: "MG-1", Kind: desk.EventComment, Text: strings.Repeat("word ", 100), At: at(0), Project: "mygame"}
	if l := notify.Line(&long, now); len(l) > 200 || !strings.HasSuffix(l, `…"`) {
		t.Errorf("a long comment's line: %q", l)
	}
	m := notify.Channel(&long, now)
	if !strings.Contains(m.Content, "Full text: word word") || m.Meta["issue"] != "MG-1" || m.Meta["event"] != "comment" || m.Meta["project"] != "mygame" {
		t.Errorf("channel message %+v", m)
	}
	var events []*desk.OwnerEvent
	for i := range 14 {
		events = append(events, &desk.OwnerEvent{Issue: fmt.Sprintf("MG-%d", 14-i), Kind: desk.EventComment, Text: "x", At: at(time.Duration(i) * time.Minute)})
	}
	block := notify.Block("MyGame", &desk.OwnerEvents{Events: events, More: 3}, now)
	lines := strings.Split(block, "\n")
	if len(lines) != notify.MaxBlockLines || !strings.HasPrefix(lines[11], "- … and 7 more") {
		t.Errorf("block of 17 events:\n%s", block)
	}
	if notify.Block("MyGame", &desk.OwnerEvents{}, now) != "" {
		t.Error("an empty block says something")
	}
}

func TestAudience(t *testing.T) {
	codex := "codex"
	p := &desk.Project{Lead: &codex}
	for _, c := range []struct {
		client    string
		delegated bool
		project   *desk.Project
		want      bool
	}{
		{"claude-code", false, &desk.Project{}, true},
		{"claude-code", true, &desk.Project{}, false},
		{"claude", false, p, false},
		{"codex-mcp-client", false, p, true},
		{"Codex", true, p, false},
	} {
		if got := notify.NewAudience(c.client, c.delegated, c.project).HearsOwner(); got != c.want {
			t.Errorf("%s delegated=%v lead=%v: %v", c.client, c.delegated, c.project.Lead, got)
		}
	}
	env := func(k string) string {
		if k == "AGENT_BRIDGE_PARENT_JOB" {
			return "p1"
		}
		return ""
	}
	if !notify.IsDelegated(env) || notify.IsDelegated(func(string) string { return "" }) {
		t.Error("IsDelegated")
	}
}

func TestSummaryLine(t *testing.T) {
	p := &desk.Project{Name: "MyGame", Counts: map[string]int{"reported": 3, "failed": 2, "to_check": 14, "auto_check": 1}}
	if got := notify.SummaryLine(p); got != "desk (MyGame): 3 new reports, 2 failed checks, 14 waiting for the owner, 1 waiting for agent verification" {
		t.Errorf("line %q", got)
	}
	p.Counts = map[string]int{"open": 4}
	if got := notify.SummaryLine(p); !strings.Contains(got, "no new reports, no failed checks, nothing waiting") {
		t.Errorf("quiet line %q", got)
	}
}

func TestStaleCursorsAreSavedAgain(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if notify.Stale(&notify.Cursor{At: desk.FormatTime(now.Add(-10 * time.Minute))}, now) {
		t.Error("a cursor saved ten minutes ago is stale")
	}
	if !notify.Stale(&notify.Cursor{At: desk.FormatTime(now.Add(-2 * time.Hour))}, now) {
		t.Error("a cursor saved two hours ago is not stale")
	}
}

func TestPruneHeartbeatsRemovesOnlyTheDead(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	notify.WriteHeartbeat(dir, notify.Heartbeat{Project: "p", ClientPID: 1, At: desk.FormatTime(now)})
	notify.WriteHeartbeat(dir, notify.Heartbeat{Project: "p", ClientPID: 2, At: desk.FormatTime(now.Add(-2 * time.Hour))})
	if n := notify.PruneHeartbeats(dir, now); n != 1 {
		t.Errorf("pruned %d, want 1", n)
	}
	if _, err := os.Stat(notify.HeartbeatPath(dir, 1)); err != nil {
		t.Errorf("the live heartbeat went: %v", err)
	}
	if _, err := os.Stat(notify.HeartbeatPath(dir, 2)); !os.IsNotExist(err) {
		t.Errorf("the dead heartbeat stayed: %v", err)
	}
}
