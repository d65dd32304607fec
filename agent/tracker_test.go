package agent_test

import (
	"slices"
	"testing"
	"time"

	"desk"
	"desk/agent"
)

const sid = "s1"

func TestSessionNeverStartedIsCreatedByItsFirstEvent(t *testing.T) {
	tr := newTracker(&clock{t0})
	u := mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, tool("Edit", "/home/me/proj/store.go", "t1")))
	s := u.Sessions[0]
	if u.Session != sid || s.State != agent.StateWorking || label(s) != "Editing store.go" ||
		s.Activity.Kind != agent.ActivityEditing || s.Activity.Tool != "Edit" || !s.StartedAt.Equal(t0) {
		t.Fatalf("session = %+v activity %+v", s, s.Activity)
	}
}

func TestStateIsUnknownUntilAClientAssertsOne(t *testing.T) {
	tr := newTracker(&clock{t0})
	for _, k := range []agent.Kind{agent.KindHeartbeat, agent.KindNotice, agent.KindCompact} {
		if s := mustApply(t, tr, ev("kimi", sid, k, t0)).Sessions[0]; s.State != agent.StateUnknown || s.Activity != nil {
			t.Fatalf("after %s: state %s activity %+v, want unknown and none", k, s.State, s.Activity)
		}
	}
}

func TestEveryKindMovesTheStateAsDocumented(t *testing.T) {
	cases := []struct {
		kind  agent.Kind
		opts  []func(*agent.Event)
		state agent.State
		label string
	}{
		{agent.KindSessionStart, nil, agent.StateWaitingInput, ""},
		{agent.KindPrompt, nil, agent.StateWorking, "Thinking"},
		{agent.KindBusy, nil, agent.StateWorking, "Thinking"},
		{agent.KindToolStart, []func(*agent.Event){tool("Bash", "go test ./...", "t")}, agent.StateWorking, "Running: go test ./..."},
		{agent.KindToolStart, []func(*agent.Event){tool("AskUserQuestion", "", "q")}, agent.StateWaitingInput, ""},
		{agent.KindToolEnd, nil, agent.StateWorking, "Thinking"},
		{agent.KindToolFailed, nil, agent.StateWorking, "Thinking"},
		{agent.KindToolProgress, nil, agent.StateWorking, "Thinking"},
		{agent.KindPermissionRequest, []func(*agent.Event){tool("Bash", "rm -rf build", "t")}, agent.StateNeedsPermission, ""},
		{agent.KindPermissionResult, nil, agent.StateWorking, "Thinking"},
		{agent.KindNotificationPermission, nil, agent.StateNeedsPermission, ""},
		{agent.KindNotificationIdle, nil, agent.StateWaitingInput, ""},
		{agent.KindMessage, nil, agent.StateWorking, "Thinking"},
		{agent.KindStop, nil, agent.StateDone, ""},
		{agent.KindStopFailed, nil, agent.StateDone, ""},
		{agent.KindInterrupt, nil, agent.StateWaitingInput, ""},
		{agent.KindSessionEnd, nil, agent.StateEnded, ""},
		{agent.KindSessionEnd, []func(*agent.Event){reason("prompt_input_exit")}, agent.StateEnded, ""},
	}
	for _, c := range cases {
		tr := newTracker(&clock{t0})
		s := mustApply(t, tr, ev("claude", sid, c.kind, t0, c.opts...)).Sessions[0]
		if s.State != c.state || label(s) != c.label {
			t.Errorf("%s: %s %q, want %s %q", c.kind, s.State, label(s), c.state, c.label)
		}
		if (s.State == agent.StateWorking) != (s.Activity != nil) || (s.State == agent.StateNeedsPermission) != (s.Permission != nil) {
			t.Errorf("%s: activity %+v permission %+v in state %s", c.kind, s.Activity, s.Permission, s.State)
		}
	}
}

func TestSinceMovesOnlyWhenTheStateChanges(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindPrompt, t0))
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0.Add(time.Second), tool("Read", "a.go", "1")))
	s := mustApply(t, tr, ev("claude", sid, agent.KindToolEnd, t0.Add(2*time.Second), tool("Read", "", "1"))).Sessions[0]
	if !s.Since.Equal(t0) {
		t.Errorf("since = %v, want the prompt's %v", s.Since, t0)
	}
	if !s.Activity.Since.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("activity since = %v, want the tool end", s.Activity.Since)
	}
}

func TestParallelToolsShowTheLatestStillRunning(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindPrompt, t0))
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0.Add(1), tool("Grep", "TODO", "a")))
	s := mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0.Add(2), tool("Read", "/x/README.md", "b"))).Sessions[0]
	if label(s) != "Reading README.md" {
		t.Fatalf("label = %q", label(s))
	}
	s = mustApply(t, tr, ev("claude", sid, agent.KindToolEnd, t0.Add(3), tool("Read", "", "b"))).Sessions[0]
	if label(s) != "Searching: TODO" || s.Activity.Kind != agent.ActivitySearching {
		t.Fatalf("after b ends: %q", label(s))
	}
	s = mustApply(t, tr, ev("claude", sid, agent.KindToolEnd, t0.Add(4), tool("Grep", "", "a"))).Sessions[0]
	if label(s) != "Thinking" {
		t.Fatalf("after a ends: %q", label(s))
	}
}

func TestPermissionSaysWhichToolAndCommandThenApprovalResumesWork(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, tool("Bash", "go test ./...", "1")))
	s := mustApply(t, tr, ev("claude", sid, agent.KindPermissionRequest, t0.Add(1), tool("Bash", "go test ./...", ""))).Sessions[0]
	want := agent.Permission{Tool: "Bash", Command: "go test ./...", Label: "Bash: go test ./..."}
	if s.State != agent.StateNeedsPermission || *s.Permission != want {
		t.Fatalf("permission = %+v, want %+v", s.Permission, want)
	}
	// The notification that follows names no tool: the request stands.
	s = mustApply(t, tr, ev("claude", sid, agent.KindNotificationPermission, t0.Add(2))).Sessions[0]
	if *s.Permission != want {
		t.Fatalf("after notification: %+v", s.Permission)
	}
	s = mustApply(t, tr, ev("claude", sid, agent.KindToolEnd, t0.Add(3), tool("Bash", "", "1"))).Sessions[0]
	if s.State != agent.StateWorking || s.Permission != nil || label(s) != "Thinking" {
		t.Fatalf("after approval: %s %q %+v", s.State, label(s), s.Permission)
	}
}

func TestPermissionNotificationAloneNamesTheRunningTool(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, tool("mcp__desk__create_issue", "", "1")))
	s := mustApply(t, tr, ev("claude", sid, agent.KindNotificationPermission, t0.Add(1))).Sessions[0]
	if s.Permission == nil || s.Permission.Label != "desk: create_issue" || s.Permission.Tool != "mcp__desk__create_issue" {
		t.Fatalf("permission = %+v", s.Permission)
	}
}

func TestStopFailedAndInterruptSayWhy(t *testing.T) {
	tr := newTracker(&clock{t0})
	s := mustApply(t, tr, ev("kimi", sid, agent.KindStopFailed, t0, func(e *agent.Event) { e.Reason, e.Message = "rate_limit", "429 Too Many Requests" })).Sessions[0]
	if s.State != agent.StateDone || s.Note != "the turn failed: 429 Too Many Requests" {
		t.Errorf("stop_failed: %s %q", s.State, s.Note)
	}
	s = mustApply(t, tr, ev("kimi", sid, agent.KindInterrupt, t0.Add(1))).Sessions[0]
	if s.State != agent.StateWaitingInput || s.Note != "interrupted" {
		t.Errorf("interrupt: %s %q", s.State, s.Note)
	}
	s = mustApply(t, tr, ev("kimi", sid, agent.KindPrompt, t0.Add(2))).Sessions[0]
	if s.Note != "" {
		t.Errorf("a new turn keeps note %q", s.Note)
	}
}

func TestLateEventIsKeptButDoesNotMoveTheState(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, tool("Bash", "make", "1")))
	mustApply(t, tr, ev("claude", sid, agent.KindStop, t0.Add(2*time.Second)))
	u := mustApply(t, tr, ev("claude", sid, agent.KindToolEnd, t0.Add(time.Second), tool("Bash", "", "1")))
	if !u.Late || !u.Recorded || u.Note == "" || u.Sessions[0].State != agent.StateDone {
		t.Fatalf("update = %+v", u)
	}
	s := mustSession(t, tr, sid)
	if len(s.Events) != 3 || s.Events[1].Kind != agent.KindToolEnd || !s.Events[1].Late {
		t.Fatalf("history = %+v", s.Events)
	}
	if !s.UpdatedAt.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("updated_at = %v, want the newest event's time", s.UpdatedAt)
	}
}

func TestEndedSessionComesBackWhenItReportsAgain(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("codex", sid, agent.KindSessionEnd, t0, reason("other")))
	s := mustApply(t, tr, ev("codex", sid, agent.KindSessionStart, t0.Add(time.Minute), reason("resume"))).Sessions[0]
	if s.ID != sid || s.State != agent.StateWaitingInput || len(tr.Sessions()) != 1 {
		t.Fatalf("resumed: %+v, %d sessions", s, len(tr.Sessions()))
	}
}

func TestSubagentsAreChildrenAndTheirPermissionShowsOnTheSession(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", "main", agent.KindPrompt, t0))
	mustApply(t, tr, ev("claude", "main", agent.KindToolStart, t0.Add(1), tool("Task", "Find the flaky test", "task1")))
	u := mustApply(t, tr, ev("claude", "agent-7", agent.KindSubagentStart, t0.Add(2), parent("main")))
	if len(u.Sessions) != 2 {
		t.Fatalf("subagent start changed %d sessions, want child and parent", len(u.Sessions))
	}
	child := mustSession(t, tr, "agent-7")
	main := mustSession(t, tr, "main")
	if child.Parent != "main" || !slices.Equal(main.Children, []string{"agent-7"}) || child.State != agent.StateWorking ||
		label(main) != "Delegating: Find the flaky test" || child.Cwd != main.Cwd {
		t.Fatalf("child %+v main %+v", child, main)
	}

	mustApply(t, tr, ev("claude", "agent-7", agent.KindToolStart, t0.Add(3), parent("main"), tool("Bash", "go test -run Flaky", "c1")))
	u = mustApply(t, tr, ev("claude", "agent-7", agent.KindPermissionRequest, t0.Add(4), parent("main"), tool("Bash", "go test -run Flaky", "")))
	main = mustSession(t, tr, "main")
	if main.State != agent.StateNeedsPermission || main.Permission.Agent != "agent-7" || main.Permission.Label != "Bash: go test -run Flaky" {
		t.Fatalf("main = %s %+v", main.State, main.Permission)
	}
	mustApply(t, tr, ev("claude", "agent-7", agent.KindToolEnd, t0.Add(5), parent("main"), tool("Bash", "", "c1")))
	if main = mustSession(t, tr, "main"); main.State != agent.StateWorking || label(main) != "Delegating: Find the flaky test" {
		t.Fatalf("after approval main = %s %q", main.State, label(main))
	}
	mustApply(t, tr, ev("claude", "agent-7", agent.KindSubagentStop, t0.Add(6), parent("main")))
	if child = mustSession(t, tr, "agent-7"); child.State != agent.StateEnded {
		t.Fatalf("child after stop = %s", child.State)
	}
	mustApply(t, tr, ev("claude", "agent-8", agent.KindSubagentStart, t0.Add(7), parent("main")))
	mustApply(t, tr, ev("claude", "main", agent.KindSessionEnd, t0.Add(8)))
	if s := mustSession(t, tr, "agent-8"); s.State != agent.StateEnded || s.Note != "its session ended" {
		t.Fatalf("orphan = %s %q", s.State, s.Note)
	}
}

func TestSubagentOfUnknownSessionCreatesTheSession(t *testing.T) {
	tr := newTracker(&clock{t0})
	u := mustApply(t, tr, ev("opencode", "ses_child", agent.KindSessionStart, t0, parent("ses_main")))
	if len(u.Sessions) != 2 {
		t.Fatalf("%d sessions changed", len(u.Sessions))
	}
	main := mustSession(t, tr, "ses_main")
	if main.State != agent.StateUnknown || !slices.Equal(main.Children, []string{"ses_child"}) {
		t.Fatalf("main = %+v", main)
	}
}

func TestClearKeepsTheSessionRecord(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", "old", agent.KindPrompt, t0))
	tr.AddIssue("old", "12")
	mustApply(t, tr, ev("claude", "other", agent.KindPrompt, t0, cwd("/elsewhere")))
	c.Add(time.Second)
	mustApply(t, tr, ev("claude", "old", agent.KindSessionEnd, c.t, reason("clear")))
	c.Add(30 * time.Millisecond)
	u := mustApply(t, tr, ev("claude", "new", agent.KindSessionStart, c.t, reason("clear")))
	s := u.Sessions[0]
	if u.Session != "old" || s.ProviderID != "new" || !slices.Equal(s.Aliases, []string{"old"}) ||
		s.State != agent.StateWaitingInput || !slices.Equal(s.Issues, []string{"12"}) {
		t.Fatalf("after /clear: %+v", s)
	}
	for _, p := range []string{"old", "new"} {
		if id, ok := tr.Lookup("claude", p); !ok || id != "old" {
			t.Errorf("Lookup(%s) = %q %v", p, id, ok)
		}
	}
	if u := tr.Tick(); len(u.Sessions) != 0 {
		t.Errorf("tick after a completed handover changed %v", u.Sessions)
	}
	if n := len(tr.Sessions()); n != 2 {
		t.Errorf("%d sessions, want 2", n)
	}
}

func TestClearArrivingSwappedIsFoldedIntoTheRecord(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", "old", agent.KindStop, t0))
	c.Add(time.Second)
	// The start hook of the new id wins the race against the end hook of the old.
	mustApply(t, tr, ev("claude", "new", agent.KindSessionStart, c.t.Add(5*time.Millisecond), reason("clear")))
	u := mustApply(t, tr, ev("claude", "old", agent.KindSessionEnd, c.t, reason("clear")))
	if u.Session != "old" || !slices.Equal(u.Merged, []string{"new"}) {
		t.Fatalf("update = %+v", u)
	}
	s := mustSession(t, tr, "old")
	if s.ProviderID != "new" || s.State != agent.StateWaitingInput || len(s.Events) != 3 {
		t.Fatalf("merged = %+v", s)
	}
	if _, ok := tr.Session("new"); ok {
		t.Error("the folded record is still there")
	}
	mustApply(t, tr, ev("claude", "new", agent.KindPrompt, c.t.Add(time.Second)))
	if n := len(tr.Sessions()); n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
}

func TestClearWithoutSuccessorEndsAfterTheGrace(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", sid, agent.KindSessionEnd, t0, reason("clear")))
	if s := mustSession(t, tr, sid); s.State == agent.StateEnded {
		t.Fatal("ended before the grace")
	}
	c.Add(2*time.Second + 1)
	u := tr.Tick()
	if len(u.Sessions) != 1 || u.Sessions[0].State != agent.StateEnded {
		t.Fatalf("tick = %+v", u.Sessions)
	}
	// A start after the grace is a new session.
	mustApply(t, tr, ev("claude", "late-new", agent.KindSessionStart, c.t, reason("clear")))
	if n := len(tr.Sessions()); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}
}

func TestPreviousSessionIsFollowedWithoutGuessing(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("pi", "p1", agent.KindSessionStart, t0, cwd("/a")))
	u := mustApply(t, tr, ev("pi", "p2", agent.KindSessionStart, t0.Add(1), cwd("/b"), func(e *agent.Event) { e.Previous = "p1"; e.Reason = "new" }))
	if u.Session != "p1" || u.Sessions[0].ProviderID != "p2" {
		t.Fatalf("update = %+v", u)
	}
}

func TestEventsFromAnOlderGenerationAreRefused(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindPrompt, t0, gen("L1", 2)))
	_, err := tr.Apply(ev("claude", sid, agent.KindStop, t0.Add(1), gen("L1", 1)))
	if desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("older generation: err = %v", err)
	}
	// A new provider session of the same launch is fenced too.
	if _, err := tr.Apply(ev("claude", "s2", agent.KindStop, t0.Add(1), gen("L1", 1))); desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("older generation, new session: err = %v", err)
	}
	if _, ok := tr.Session("s2"); ok {
		t.Fatal("a refused event created a session")
	}
	// Unstamped events are accepted: http hooks carry no environment.
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0.Add(2), tool("Read", "a", "1")))

	tr.Fence("L2", 5)
	if _, err := tr.Apply(ev("codex", "c1", agent.KindPrompt, t0, gen("L2", 4))); desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("fenced launch: err = %v", err)
	}
	mustApply(t, tr, ev("codex", "c1", agent.KindPrompt, t0, gen("L2", 5)))
	if s := mustSession(t, tr, "c1"); s.Generation != 5 || s.Launch != "L2" {
		t.Fatalf("stamps = %d %q", s.Generation, s.Launch)
	}
	if s := mustSession(t, tr, sid); s.State != agent.StateWorking {
		t.Fatalf("refused events moved the state to %s", s.State)
	}
}

func TestWorkingSessionSilentPastTheLeaseReadsUnknown(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("grok", sid, agent.KindPrompt, t0))
	c.Add(agent.DefaultTimers.WorkingLease - time.Second)
	if u := tr.Tick(); len(u.Sessions) != 0 {
		t.Fatal("unknown before the lease ran out")
	}
	c.Add(time.Second)
	u := tr.Tick()
	if len(u.Sessions) != 1 || u.Sessions[0].State != agent.StateUnknown || u.Sessions[0].Note == "" || u.Sessions[0].Inferred {
		t.Fatalf("tick = %+v", u.Sessions)
	}
	s := mustApply(t, tr, ev("grok", sid, agent.KindToolStart, c.t, tool("bash", "ls", "1"))).Sessions[0]
	if s.State != agent.StateWorking || s.Note != "" {
		t.Fatalf("after the next hook: %s %q", s.State, s.Note)
	}
}

func TestWaitingStatesOutliveTheLease(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", sid, agent.KindPermissionRequest, t0, tool("Bash", "make", "")))
	c.Add(3 * time.Hour)
	tr.Tick()
	if s := mustSession(t, tr, sid); s.State != agent.StateNeedsPermission {
		t.Fatalf("state = %s: a waiting prompt is still waiting", s.State)
	}
}

func TestHooksWinOverTranscripts(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", sid, agent.KindPrompt, t0, source(agent.SourceTranscript)))
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0.Add(1), tool("Bash", "make", "1")))
	u := mustApply(t, tr, ev("claude", sid, agent.KindStop, t0.Add(2), source(agent.SourceTranscript)))
	if u.Recorded || u.Note == "" {
		t.Fatalf("transcript event on a hooked session: %+v", u)
	}
	s := mustSession(t, tr, sid)
	if s.State != agent.StateWorking || !s.Hooked || s.Source != agent.SourceHook || len(s.Events) != 2 {
		t.Fatalf("session = %+v", s)
	}
	c.Add(time.Minute)
	tr.Tick()
	if s := mustSession(t, tr, sid); s.State != agent.StateWorking || s.Inferred {
		t.Fatalf("a hooked session got a guess: %s", s.State)
	}
}

func TestTranscriptSessionsGetMarkedGuesses(t *testing.T) {
	tm := agent.DefaultTimers
	cases := []struct {
		name  string
		evs   []agent.Event
		after time.Duration
		state agent.State
	}{
		{"silent shell call needs permission", []agent.Event{
			ev("claude", sid, agent.KindPrompt, t0, source(agent.SourceTranscript)),
			ev("claude", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("Bash", "rm -rf build", "1")),
		}, tm.PermissionGuess, agent.StateNeedsPermission},
		{"not before the delay", []agent.Event{
			ev("claude", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("Bash", "rm -rf build", "1")),
		}, tm.PermissionGuess - time.Millisecond, agent.StateWorking},
		{"reading never asks", []agent.Event{
			ev("claude", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("Read", "a.go", "1")),
		}, time.Minute, agent.StateWorking},
		{"bypass never asks", []agent.Event{
			ev("codex", sid, agent.KindNotice, t0, source(agent.SourceTranscript), func(e *agent.Event) { e.PermissionMode = "never" }),
			ev("codex", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("exec_command", "make", "1")),
		}, time.Minute, agent.StateWorking},
		{"accept edits does not ask for edits", []agent.Event{
			ev("claude", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("Edit", "a.go", "1"), func(e *agent.Event) { e.PermissionMode = "acceptEdits" }),
		}, time.Minute, agent.StateWorking},
		{"text-only answer is done", []agent.Event{
			ev("claude", sid, agent.KindPrompt, t0, source(agent.SourceTranscript)),
			ev("claude", sid, agent.KindMessage, t0, source(agent.SourceTranscript)),
		}, tm.TextIdle, agent.StateDone},
		{"text after tools waits for the turn's end", []agent.Event{
			ev("claude", sid, agent.KindPrompt, t0, source(agent.SourceTranscript)),
			ev("claude", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("Read", "a.go", "1")),
			ev("claude", sid, agent.KindToolEnd, t0, source(agent.SourceTranscript), tool("", "", "1")),
			ev("claude", sid, agent.KindMessage, t0, source(agent.SourceTranscript)),
		}, time.Minute, agent.StateWorking},
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			c := &clock{t0}
			tr := newTracker(c)
			for _, e := range cs.evs {
				mustApply(t, tr, e)
			}
			c.Add(cs.after)
			tr.Tick()
			s := mustSession(t, tr, sid)
			if s.State != cs.state || s.Inferred != (cs.state != agent.StateWorking) {
				t.Fatalf("state %s inferred %v, want %s", s.State, s.Inferred, cs.state)
			}
			if s.State == agent.StateNeedsPermission && s.Permission.Label != "Bash: rm -rf build" {
				t.Errorf("permission = %+v", s.Permission)
			}
		})
	}
}

func TestNewTranscriptDataClearsAGuess(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, source(agent.SourceTranscript), tool("Bash", "make", "1")))
	c.Add(10 * time.Second)
	tr.Tick()
	s := mustApply(t, tr, ev("claude", sid, agent.KindToolProgress, c.t, source(agent.SourceTranscript), tool("", "", "1"))).Sessions[0]
	if s.State != agent.StateWorking || s.Inferred || label(s) != "Running: make" {
		t.Fatalf("after progress: %s inferred=%v %q", s.State, s.Inferred, label(s))
	}
}

func TestMCPEventsMoveOnlySessionsWithoutHooks(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", "hooked", agent.KindStop, t0))
	u := mustApply(t, tr, ev("claude", "hooked", agent.KindToolStart, t0.Add(1), source(agent.SourceMCP), tool("mcp__desk__create_issue", "", "")))
	if !u.Recorded || u.Note == "" || u.Sessions[0].State != agent.StateDone {
		t.Fatalf("hooked: %+v", u)
	}
	s := mustApply(t, tr, ev("codex", "bare", agent.KindToolStart, t0, source(agent.SourceMCP), tool("mcp__desk__create_issue", "", ""))).Sessions[0]
	if s.State != agent.StateWorking || label(s) != "Using desk: create_issue" || s.Activity.Kind != agent.ActivityMCP {
		t.Fatalf("bare: %s %q", s.State, label(s))
	}
}

func TestMatchAnswersOnlyWhenItCanTell(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("codex", "a", agent.KindStop, t0, cwd("/src/desk")))
	if id, ok := tr.Match("codex", "/src/desk/web", time.Time{}); !ok || id != "a" {
		t.Fatalf("one session: %q %v", id, ok)
	}
	if _, ok := tr.Match("claude", "/src/desk", time.Time{}); ok {
		t.Fatal("matched another client's session")
	}
	mustApply(t, tr, ev("codex", "b", agent.KindStop, t0, cwd("/src/desk")))
	if _, ok := tr.Match("codex", "/src/desk", t0.Add(time.Minute)); ok {
		t.Fatal("matched one of two idle sessions")
	}
	mustApply(t, tr, ev("codex", "b", agent.KindPrompt, t0.Add(time.Second), cwd("/src/desk")))
	if id, ok := tr.Match("", "/src/desk", time.Time{}); !ok || id != "b" {
		t.Fatalf("one working of two: %q %v", id, ok)
	}
	mustApply(t, tr, ev("codex", "a", agent.KindPrompt, t0.Add(2*time.Second), cwd("/src/desk")))
	if _, ok := tr.Match("codex", "/src/desk", t0.Add(time.Minute)); ok {
		t.Fatal("matched one of two working sessions silent for a minute")
	}
	// The hook before an MCP call names the session that makes it.
	mustApply(t, tr, ev("codex", "a", agent.KindToolStart, t0.Add(time.Minute), cwd("/src/desk"), tool("mcp__desk__create_issue", "", "c")))
	if id, ok := tr.Match("codex", "/src/desk", t0.Add(time.Minute+50*time.Millisecond)); !ok || id != "a" {
		t.Fatalf("the one that just called: %q %v", id, ok)
	}
	mustApply(t, tr, ev("codex", "c", agent.KindStop, t0, cwd("/src")))
	if id, ok := tr.Match("codex", "/src/desk", t0.Add(time.Minute)); !ok || id != "a" {
		t.Fatalf("the deepest folder should win: %q %v", id, ok)
	}
	if _, ok := tr.Match("codex", "/srcx", time.Time{}); ok {
		t.Fatal("/srcx is not inside /src")
	}
}

func TestIssuesAndProjectAreKeptOnce(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", "main", agent.KindPrompt, t0))
	mustApply(t, tr, ev("claude", "sub", agent.KindSubagentStart, t0, parent("main")))
	if _, ok := tr.AddIssue("main", "12"); !ok {
		t.Fatal("AddIssue")
	}
	if _, ok := tr.AddIssue("main", "12"); ok {
		t.Fatal("AddIssue twice reported a change")
	}
	if _, ok := tr.AddIssue("nope", "12"); ok {
		t.Fatal("AddIssue on an unknown session")
	}
	changed := tr.SetProject("main", "desk")
	if len(changed) != 2 || changed[0].Project != "desk" || changed[1].Project != "desk" {
		t.Fatalf("SetProject changed %+v", changed)
	}
	if changed := tr.SetProject("main", "desk"); changed != nil {
		t.Fatal("SetProject twice reported a change")
	}
	mustApply(t, tr, ev("claude", "sub2", agent.KindSubagentStart, t0, parent("main")))
	if s := mustSession(t, tr, "sub2"); s.Project != "desk" {
		t.Errorf("a new sub-agent's project = %q", s.Project)
	}
	if s := mustSession(t, tr, "main"); !slices.Equal(s.Issues, []string{"12"}) {
		t.Errorf("issues = %v", s.Issues)
	}
}

func TestSessionsListThoseWhoNeedTheOwnerFirst(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", "ended", agent.KindSessionEnd, t0.Add(5)))
	mustApply(t, tr, ev("claude", "working", agent.KindPrompt, t0.Add(4)))
	mustApply(t, tr, ev("claude", "done", agent.KindStop, t0.Add(3)))
	mustApply(t, tr, ev("claude", "waiting", agent.KindNotificationIdle, t0.Add(2)))
	mustApply(t, tr, ev("claude", "perm", agent.KindNotificationPermission, t0.Add(1)))
	mustApply(t, tr, ev("claude", "unknown", agent.KindNotice, t0.Add(6)))
	var ids []string
	for _, s := range tr.Sessions() {
		ids = append(ids, s.ID)
	}
	if want := []string{"perm", "waiting", "working", "done", "unknown", "ended"}; !slices.Equal(ids, want) {
		t.Fatalf("order = %v, want %v", ids, want)
	}
}

func TestEndedSessionsLeaveMemoryAfterRetention(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", sid, agent.KindSessionEnd, t0))
	c.Add(agent.DefaultTimers.Retention)
	tr.Tick()
	if _, ok := tr.Session(sid); ok {
		t.Fatal("still in memory")
	}
	if _, ok := tr.Lookup("claude", sid); ok {
		t.Fatal("still indexed")
	}
}

func TestSnapshotsShareNothingWithTheTracker(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, tool("Bash", "make", "1")))
	tr.AddIssue(sid, "1")
	s := tr.Sessions()[0]
	s.Activity.Label = "changed"
	s.Issues[0] = "changed"
	if again := tr.Sessions()[0]; again.Activity.Label != "Running: make" || again.Issues[0] != "1" {
		t.Fatalf("snapshot edits leaked: %+v", again)
	}
}

func TestApplyRefusesIncompleteEvents(t *testing.T) {
	tr := newTracker(&clock{t0})
	for _, e := range []agent.Event{
		{Session: sid, Kind: agent.KindStop},
		{Client: "claude", Kind: agent.KindStop},
		{Client: "claude", Session: sid},
		{Client: "claude", Session: sid, Kind: "exploded"},
		{Client: "claude", Session: sid, Kind: agent.KindStop, Generation: -1},
	} {
		if _, err := tr.Apply(e); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("Apply(%+v) = %v, want invalid", e, err)
		}
	}
	if n := len(tr.Sessions()); n != 0 {
		t.Fatalf("%d sessions after refusals", n)
	}
}

func TestHistoryKeepsTheLatestEvents(t *testing.T) {
	tr := newTracker(&clock{t0})
	for i := range agent.RecentEvents + 10 {
		mustApply(t, tr, ev("claude", sid, agent.KindHeartbeat, t0.Add(time.Duration(i)*time.Second)))
	}
	s := mustSession(t, tr, sid)
	if len(s.Events) != agent.RecentEvents || !s.Events[0].Time.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("%d events from %v", len(s.Events), s.Events[0].Time)
	}
}

func TestStartAfterCompactionAssertsNoState(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0, tool("Bash", "make", "1")))
	if s := mustApply(t, tr, ev("claude", sid, agent.KindSessionStart, t0.Add(1), reason("compact"))).Sessions[0]; s.State != agent.StateWorking || label(s) != "Running: make" {
		t.Fatalf("mid-turn compaction: %s %q", s.State, label(s))
	}
	if s := mustApply(t, tr, ev("claude", "fresh", agent.KindSessionStart, t0, reason("compact"))).Sessions[0]; s.State != agent.StateUnknown {
		t.Fatalf("first seen after compaction: %s", s.State)
	}
}
