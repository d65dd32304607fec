package agent_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"desk/agent"
)

// step is what a session looks like after one replayed event.
type step struct {
	event string
	state agent.State
	label string // activity label while working, permission label while needing permission
}

func (s step) String() string { return fmt.Sprintf("%s → %s %q", s.event, s.state, s.label) }

// replay feeds a captured hook run through Decode and a Tracker on the
// run's own clock and returns the session's look after every event.
func replay(t *testing.T, client, path string) (*agent.Tracker, []step) {
	t.Helper()
	c := &clock{}
	tr := newTracker(c)
	var steps []step
	var id string
	for _, l := range readFixture(t, path) {
		c.Set(l.time())
		evs, err := agent.Decode(agent.Input{Client: client, Event: l.Event, Payload: l.Payload, Env: l.Env, Received: l.time()})
		if err != nil {
			t.Fatalf("%s: %v", l.Event, err)
		}
		if len(evs) != 1 {
			t.Fatalf("%s: %d events, want 1", l.Event, len(evs))
		}
		u := mustApply(t, tr, evs[0])
		if u.Late || u.Note != "" {
			t.Fatalf("%s: late=%v note=%q", l.Event, u.Late, u.Note)
		}
		id = u.Session
		s := mustSession(t, tr, id)
		st := step{event: l.Event, state: s.State, label: label(s)}
		if s.Permission != nil {
			st.label = s.Permission.Label
		}
		steps = append(steps, st)
	}
	return tr, steps
}

func TestGoldenClaudeInteractiveRun(t *testing.T) {
	tr, got := replay(t, "claude", "testdata/hooks/claude-code-2.1.197-interactive.jsonl")
	want := []step{
		{"SessionStart", agent.StateWaitingInput, ""},
		{"UserPromptSubmit", agent.StateWorking, "Thinking"},
		{"PreToolUse", agent.StateWorking, "Using desk-gosdk: echo"},
		{"PermissionRequest", agent.StateNeedsPermission, "desk-gosdk: echo"},
		{"Notification", agent.StateNeedsPermission, "desk-gosdk: echo"},
		{"PostToolUse", agent.StateWorking, "Thinking"},
		{"Stop", agent.StateDone, ""},
		{"SessionEnd", agent.StateEnded, ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("steps:\n got %v\nwant %v", got, want)
	}

	all := tr.Sessions()
	if len(all) != 1 {
		t.Fatalf("%d sessions, want 1", len(all))
	}
	s := mustSession(t, tr, all[0].ID)
	if s.ID != "547f7264-e9b6-4b28-a037-7b11995f935f" || s.Client != "claude" || s.Cwd != "/home/user/cc/proj" ||
		s.Model != "claude-opus-4-8[1m]" || !s.Hooked || s.Source != agent.SourceHook || s.Inferred {
		t.Errorf("session = %+v", s)
	}
	if want := at("2026-11-30T12:01:37.930Z"); !s.Since.Truncate(1e6).Equal(want) || !s.UpdatedAt.Equal(s.Since) {
		t.Errorf("since %v updated %v, want both at SessionEnd %v", s.Since, s.UpdatedAt, want)
	}
	if want := at("2026-11-30T12:01:15.934Z"); !s.StartedAt.Truncate(1e6).Equal(want) {
		t.Errorf("started_at %v, want %v", s.StartedAt, want)
	}
	if len(s.Events) != 8 || s.Events[3].Kind != agent.KindPermissionRequest || s.Events[3].Raw != nil {
		t.Errorf("events = %d, [3] = %+v; want 8 without raw payloads", len(s.Events), s.Events[3])
	}
}

// The notification six seconds after the permission request keeps the state
// and its since: the owner has been asked since the request.
func TestGoldenClaudePermissionSinceIsTheRequest(t *testing.T) {
	c := &clock{}
	tr := newTracker(c)
	var sinceAfter []string
	for _, l := range readFixture(t, "testdata/hooks/claude-code-2.1.197-interactive.jsonl") {
		c.Set(l.time())
		evs, _ := agent.Decode(agent.Input{Client: "claude", Payload: l.Payload, Env: l.Env, Received: l.time()})
		u := mustApply(t, tr, evs[0])
		if s := u.Sessions[0]; s.State == agent.StateNeedsPermission {
			sinceAfter = append(sinceAfter, s.Since.Format("15:04:05.000"))
		}
	}
	if want := []string{"12:01:21.488", "12:01:21.488"}; !slices.Equal(sinceAfter, want) {
		t.Fatalf("needs_permission since = %v, want %v", sinceAfter, want)
	}
}

func TestGoldenCodexExecRun(t *testing.T) {
	tr, got := replay(t, "codex", "testdata/hooks/codex-0.171.0-exec.jsonl")
	want := []step{
		{"SessionStart", agent.StateWaitingInput, ""},
		{"UserPromptSubmit", agent.StateWorking, "Thinking"},
		{"PreToolUse", agent.StateWorking, "Running: echo from-codex-shell"},
		{"PostToolUse", agent.StateWorking, "Thinking"},
		{"Stop", agent.StateDone, ""},
		{"SessionEnd", agent.StateEnded, ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("steps:\n got %v\nwant %v", got, want)
	}
	s := tr.Sessions()[0]
	if s.ID != "01a22c56-d2b2-78b0-9829-98271ef98ba1" || s.PermissionMode != "bypassPermissions" || s.Model != "mock-model" ||
		s.Transcript == "" || s.Cwd != "/home/user/cx/proj" {
		t.Errorf("session = %+v", s)
	}
}

// Hooks run as separate processes and can reach desk in any order; applied
// shuffled, the run ends in the same state with the stragglers marked late.
func TestGoldenClaudeRunOutOfOrder(t *testing.T) {
	lines := readFixture(t, "testdata/hooks/claude-code-2.1.197-interactive.jsonl")
	order := []int{0, 2, 1, 3, 5, 4, 7, 6} // tool start before prompt, post before notification, end before stop
	c := &clock{}
	tr := newTracker(c)
	var late []string
	for _, i := range order {
		l := lines[i]
		c.Set(l.time())
		evs, err := agent.Decode(agent.Input{Client: "claude", Payload: l.Payload, Env: l.Env, Received: l.time()})
		if err != nil {
			t.Fatal(err)
		}
		if u := mustApply(t, tr, evs[0]); u.Late {
			late = append(late, l.Event)
		}
	}
	if want := []string{"UserPromptSubmit", "Notification", "Stop"}; !slices.Equal(late, want) {
		t.Errorf("late = %v, want %v", late, want)
	}
	s := tr.Sessions()[0]
	if s.State != agent.StateEnded {
		t.Errorf("state = %s, want ended", s.State)
	}
	full := mustSession(t, tr, s.ID)
	var kinds []agent.Kind
	for _, e := range full.Events {
		kinds = append(kinds, e.Kind)
	}
	want := []agent.Kind{agent.KindSessionStart, agent.KindPrompt, agent.KindToolStart, agent.KindPermissionRequest,
		agent.KindNotificationPermission, agent.KindToolEnd, agent.KindStop, agent.KindSessionEnd}
	if !slices.Equal(kinds, want) {
		t.Errorf("history in time order = %v, want %v", kinds, want)
	}
}

// replayLines feeds hook runs through Decode and a Tracker, as replay does,
// and returns the session's look after each with whether the event was
// taken as late.
func replayLines(t *testing.T, client string, lines []fixtureLine) ([]step, []bool) {
	t.Helper()
	c := &clock{}
	tr := newTracker(c)
	var steps []step
	var late []bool
	for _, l := range lines {
		c.Set(l.time())
		evs, err := agent.Decode(agent.Input{Client: client, Event: l.Event, Payload: l.Payload, Env: l.Env, Received: l.time()})
		if err != nil {
			t.Fatalf("%s: %v", l.Event, err)
		}
		for _, e := range evs {
			u := mustApply(t, tr, e)
			s := mustSession(t, tr, u.Session)
			st := step{event: l.Event, state: s.State, label: label(s)}
			if s.Permission != nil {
				st.label = s.Permission.Label
			}
			steps = append(steps, st)
			late = append(late, u.Late)
			if u.Late && !strings.Contains(u.Note, "late") {
				t.Errorf("%s: late with the note %q", l.Event, u.Note)
			}
		}
	}
	return steps, late
}

// later returns line l as if it came d after the line at.
func later(l, at fixtureLine, d time.Duration) fixtureLine {
	l.TS = at.TS + d.Seconds()
	return l
}

// withoutTool returns line l with the tool's name and input taken out of
// its payload.
func withoutTool(t *testing.T, l fixtureLine) fixtureLine {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(l.Payload, &p); err != nil {
		t.Fatal(err)
	}
	delete(p, "tool_name")
	delete(p, "tool_input")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	l.Payload = b
	return l
}

// A tool hook of the ended process, after SessionEnd and with no new
// SessionStart, leaves the session ended and is kept as late; only a new
// start (a resume) brings it back.
func TestGoldenClaudeToolHookAfterSessionEndStaysEnded(t *testing.T) {
	run := readFixture(t, "testdata/hooks/claude-code-2.1.197-interactive.jsonl")
	end := run[len(run)-1]
	lines := append(slices.Clone(run),
		later(run[2], end, time.Second),   // PreToolUse
		later(run[5], end, 2*time.Second), // PostToolUse
		later(run[1], end, 3*time.Second), // UserPromptSubmit
		later(run[0], end, 4*time.Second), // SessionStart: the session is resumed
		later(run[2], end, 5*time.Second)) // PreToolUse of the resumed session
	got, late := replayLines(t, "claude", lines)
	want := []step{
		{"SessionStart", agent.StateWaitingInput, ""},
		{"UserPromptSubmit", agent.StateWorking, "Thinking"},
		{"PreToolUse", agent.StateWorking, "Using desk-gosdk: echo"},
		{"PermissionRequest", agent.StateNeedsPermission, "desk-gosdk: echo"},
		{"Notification", agent.StateNeedsPermission, "desk-gosdk: echo"},
		{"PostToolUse", agent.StateWorking, "Thinking"},
		{"Stop", agent.StateDone, ""},
		{"SessionEnd", agent.StateEnded, ""},
		{"PreToolUse", agent.StateEnded, ""},
		{"PostToolUse", agent.StateEnded, ""},
		{"UserPromptSubmit", agent.StateEnded, ""},
		{"SessionStart", agent.StateWaitingInput, ""},
		{"PreToolUse", agent.StateWorking, "Using desk-gosdk: echo"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("steps:\n got %v\nwant %v", got, want)
	}
	if wantLate := []bool{false, false, false, false, false, false, false, false, true, true, true, false, false}; !slices.Equal(late, wantLate) {
		t.Errorf("late = %v, want %v", late, wantLate)
	}
}

// A PreToolUse that names no tool is still a tool call: the session works,
// on a tool it does not name, rather than staying where it was or being
// given a guessed activity. It does so straight after SessionStart too.
func TestGoldenClaudeToolHookWithoutAToolNameIsAnUnnamedTool(t *testing.T) {
	run := readFixture(t, "testdata/hooks/claude-code-2.1.197-interactive.jsonl")
	lines := slices.Clone(run)
	lines[2] = withoutTool(t, run[2])
	got, late := replayLines(t, "claude", lines)
	want := []step{
		{"SessionStart", agent.StateWaitingInput, ""},
		{"UserPromptSubmit", agent.StateWorking, "Thinking"},
		{"PreToolUse", agent.StateWorking, "Using a tool"},
		{"PermissionRequest", agent.StateNeedsPermission, "desk-gosdk: echo"},
		{"Notification", agent.StateNeedsPermission, "desk-gosdk: echo"},
		{"PostToolUse", agent.StateWorking, "Thinking"},
		{"Stop", agent.StateDone, ""},
		{"SessionEnd", agent.StateEnded, ""},
	}
	if !slices.Equal(got, want) || slices.Contains(late, true) {
		t.Fatalf("steps:\n got %v (late %v)\nwant %v", got, late, want)
	}

	got, _ = replayLines(t, "claude", []fixtureLine{run[0], withoutTool(t, run[2]), withoutTool(t, run[5])})
	want = []step{
		{"SessionStart", agent.StateWaitingInput, ""},
		{"PreToolUse", agent.StateWorking, "Using a tool"},
		{"PostToolUse", agent.StateWorking, "Thinking"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("right after the start:\n got %v\nwant %v", got, want)
	}
}
