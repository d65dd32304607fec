package agent_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"desk/agent"
)

func TestSessionWireShape(t *testing.T) {
	tr := newTracker(&clock{t0})
	mustApply(t, tr, ev("claude", sid, agent.KindStop, t0.Add(1500*time.Millisecond)))
	b, err := json.Marshal(tr.Sessions()[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for k, want := range map[string]any{
		"id": sid, "client": "claude", "project": "", "cwd": "/home/me/proj", "state": "done",
		"activity": nil, "since": "2026-11-30T14:00:01.500Z", "started_at": "2026-11-30T14:00:01.500Z",
		"updated_at": "2026-11-30T14:00:01.500Z", "issues": []any{}, "source": "hook", "inferred": false,
	} {
		if got, ok := m[k]; !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v (present %v), want %#v", k, got, ok, want)
		}
	}

	mustApply(t, tr, ev("claude", sid, agent.KindToolStart, t0.Add(2*time.Second), tool("Bash", "make", "1")))
	b, _ = json.Marshal(tr.Sessions()[0])
	if !strings.Contains(string(b), `"activity":{"kind":"running","label":"Running: make","tool":"Bash","since":"2026-11-30T14:00:02.000Z"}`) {
		t.Errorf("working session JSON = %s", b)
	}
}

// What a store writes as JSON comes back through Restore as it was: state,
// history, aliases, issues, parentage.
func TestRestoreBringsBackWhatWasSaved(t *testing.T) {
	c := &clock{t0}
	tr := newTracker(c)
	mustApply(t, tr, ev("claude", "old", agent.KindPrompt, t0))
	mustApply(t, tr, ev("claude", "old", agent.KindSessionEnd, t0.Add(time.Second), reason("clear")))
	mustApply(t, tr, ev("claude", "new", agent.KindSessionStart, t0.Add(time.Second), reason("clear")))
	mustApply(t, tr, ev("claude", "new", agent.KindToolStart, t0.Add(2*time.Second), tool("Task", "Split the file", "t")))
	mustApply(t, tr, ev("claude", "kid", agent.KindSubagentStart, t0.Add(3*time.Second), parent("new")))
	mustApply(t, tr, ev("claude", "new", agent.KindPermissionRequest, t0.Add(4*time.Second), tool("Bash", "rm -rf build", ""),
		func(e *agent.Event) { e.Raw = []byte(`{"x":1}`) }))
	tr.AddIssue("old", "7")
	tr.SetProject("old", "desk")

	var saved []agent.Session
	for _, s := range tr.Sessions() {
		full := mustSession(t, tr, s.ID)
		b, err := json.Marshal(full)
		if err != nil {
			t.Fatal(err)
		}
		var back agent.Session
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		saved = append(saved, back)
	}

	tr2 := newTracker(c)
	tr2.Restore(saved)
	for _, s := range tr.Sessions() {
		want := mustSession(t, tr, s.ID)
		got := mustSession(t, tr2, s.ID)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("restored %s:\n got %+v\nwant %+v", s.ID, got, want)
		}
	}
	if id, ok := tr2.Lookup("claude", "old"); !ok || id != "old" {
		t.Errorf("alias lookup after restore = %q %v", id, ok)
	}
	// The restored tracker carries on: the approval resumes the work.
	s := mustApply(t, tr2, ev("claude", "new", agent.KindPermissionResult, t0.Add(5*time.Second))).Sessions[0]
	if s.ID != "old" || s.State != agent.StateWorking {
		t.Fatalf("after restore: %s %s", s.ID, s.State)
	}
}

func TestRestoredWorkingSessionFromLongAgoReadsUnknown(t *testing.T) {
	c := &clock{t0.Add(time.Hour)}
	tr := newTracker(c)
	tr.Restore([]agent.Session{{ID: "x", Client: "codex", State: agent.StateWorking, UpdatedAt: t0, Since: t0, StartedAt: t0,
		Activity: &agent.Activity{Kind: agent.ActivityThinking, Label: "Thinking"}}})
	tr.Tick()
	if s := mustSession(t, tr, "x"); s.State != agent.StateUnknown {
		t.Fatalf("state = %s", s.State)
	}
}

func TestEventJSONRoundTrip(t *testing.T) {
	e := ev("gemini", sid, agent.KindToolFailed, t0.Add(123*time.Millisecond), tool("run_shell_command", "false", "c1"),
		func(e *agent.Event) {
			e.Raw, e.Message, e.Generation, e.Launch, e.Late = []byte(`{"a":[1,2]}`), "exit 1", 4, "L", true
		})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"time":"2026-11-30T14:00:00.123Z"`) || !strings.Contains(string(b), `"raw":{"a":[1,2]}`) {
		t.Errorf("json = %s", b)
	}
	var back agent.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, e) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, e)
	}
}
