package agent_test

import (
	"testing"
	"time"

	"desk/agent"
)

// FuzzTracker applies arbitrary sequences of events — any kind, a few
// sessions and sub-agents, /clear handovers, times going back and forth,
// timers firing in between — and checks what must always hold.
func FuzzTracker(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{0x10, 0x31, 0x02, 0x95, 0x41, 0x22, 0x13, 0xa4, 0x05, 0xc7})
	f.Add([]byte{0x0f, 0x60, 0x1f, 0x20, 0x7f, 0x11, 0xe3})
	kinds := []agent.Kind{
		agent.KindSessionStart, agent.KindSessionEnd, agent.KindPrompt, agent.KindBusy, agent.KindToolStart,
		agent.KindToolEnd, agent.KindToolFailed, agent.KindToolProgress, agent.KindPermissionRequest,
		agent.KindPermissionResult, agent.KindNotificationPermission, agent.KindNotificationIdle,
		agent.KindMessage, agent.KindStop, agent.KindStopFailed, agent.KindInterrupt,
		agent.KindSubagentStart, agent.KindSubagentStop, agent.KindCompact, agent.KindHeartbeat, agent.KindNotice,
	}
	sessions := []string{"a", "b", "c", "d"}
	tools := []string{"Bash", "Read", "Edit", "mcp__desk__x", "AskUserQuestion", "Task", ""}
	f.Fuzz(func(t *testing.T, ops []byte) {
		c := &clock{t0}
		tr := newTracker(c)
		for i, op := range ops {
			if op == 0xff {
				c.Add(3 * time.Second)
				tr.Tick()
				continue
			}
			e := agent.Event{
				Client:  "claude",
				Session: sessions[int(op>>4)%len(sessions)],
				Kind:    kinds[int(op)%len(kinds)],
				Time:    t0.Add(time.Duration(int(op&7)-3+i) * time.Second),
				Cwd:     "/p",
				Source:  []agent.Source{agent.SourceHook, agent.SourceTranscript, agent.SourceMCP}[int(op>>6)%3],
				Tool:    tools[int(op>>3)%len(tools)],
				ToolID:  string(rune('0' + op%3)),
			}
			switch {
			case e.Kind == agent.KindSubagentStart || e.Kind == agent.KindSubagentStop:
				e.Parent, e.Session = e.Session, e.Session+"-sub"
			case op&0x60 == 0x60:
				e.Reason = "clear"
			}
			if op&0x80 != 0 && e.Kind == agent.KindSessionStart {
				e.Session += "-new"
			}
			if _, err := tr.Apply(e); err != nil {
				t.Fatalf("Apply(%+v): %v", e, err)
			}
			c.Add(100 * time.Millisecond)
		}
		c.Add(time.Hour)
		tr.Tick()
		all := tr.Sessions()
		ids := map[string]bool{}
		for _, s := range all {
			ids[s.ID] = true
		}
		for _, s := range all {
			switch {
			case s.State == "":
				t.Fatalf("%s has no state", s.ID)
			case (s.State == agent.StateWorking) != (s.Activity != nil):
				t.Fatalf("%s: state %s with activity %+v", s.ID, s.State, s.Activity)
			case (s.State == agent.StateNeedsPermission) != (s.Permission != nil):
				t.Fatalf("%s: state %s with permission %+v", s.ID, s.State, s.Permission)
			case s.Parent != "" && !ids[s.Parent] && s.State != agent.StateEnded:
				t.Fatalf("%s: live child of a forgotten session %s", s.ID, s.Parent)
			case s.Since.Before(s.StartedAt.Add(-time.Minute)):
				t.Fatalf("%s: since %v before start %v", s.ID, s.Since, s.StartedAt)
			}
			if id, ok := tr.Lookup(s.Client, s.ProviderID); !ok || id != s.ID {
				t.Fatalf("%s: its provider id %s finds %q", s.ID, s.ProviderID, id)
			}
		}
	})
}

// FuzzStatesAreAsserted applies arbitrary sequences of one hooked session's
// events (any kind, tools named, unnamed and asking, times that go back,
// silences long enough for the working lease) and checks after every one
// that the session shows the state its client last asserted, or unknown
// where nothing asserts one: never a state no event said. The model below
// restates the transition table; an event after the session's end moves
// nothing until a new start.
func FuzzStatesAreAsserted(f *testing.F) {
	// The two bad inputs: a tool hook after SessionEnd with no new
	// SessionStart, and a tool hook that names no tool.
	f.Add([]byte{0, 3, 5, 2, 5 + 21})
	f.Add([]byte{0, 5 + 21, 7, 14})
	f.Add([]byte{0, 3, 5 + 21, 0xff, 6, 1, 0, 2, 1, 18, 0xfe, 9, 10})
	type kind struct {
		k      agent.Kind
		reason string
	}
	kinds := []kind{
		{agent.KindSessionStart, "startup"}, {agent.KindSessionStart, "compact"}, {agent.KindSessionEnd, ""},
		{agent.KindPrompt, ""}, {agent.KindBusy, ""}, {agent.KindToolStart, ""}, {agent.KindToolEnd, ""},
		{agent.KindToolFailed, ""}, {agent.KindToolProgress, ""}, {agent.KindPermissionRequest, ""},
		{agent.KindPermissionResult, ""}, {agent.KindNotificationPermission, ""}, {agent.KindNotificationIdle, ""},
		{agent.KindMessage, ""}, {agent.KindStop, ""}, {agent.KindStopFailed, ""}, {agent.KindInterrupt, ""},
		{agent.KindSubagentStart, ""}, {agent.KindCompact, ""}, {agent.KindHeartbeat, ""}, {agent.KindNotice, ""},
	}
	tools := []string{"Bash", "", "AskUserQuestion", "Read", "mcp__desk__create_issue", "Edit"}
	// asserts is the transition table: the state an event of kind k says
	// the session is in, and whether it says one at all.
	asserts := func(k kind, tool string) (agent.State, bool) {
		switch k.k {
		case agent.KindSessionStart:
			return agent.StateWaitingInput, k.reason != "compact"
		case agent.KindSessionEnd:
			return agent.StateEnded, true
		case agent.KindToolStart:
			if tool == "AskUserQuestion" {
				return agent.StateWaitingInput, true
			}
			return agent.StateWorking, true
		case agent.KindPrompt, agent.KindBusy, agent.KindToolEnd, agent.KindToolFailed, agent.KindToolProgress,
			agent.KindPermissionResult, agent.KindMessage, agent.KindSubagentStart:
			return agent.StateWorking, true
		case agent.KindPermissionRequest, agent.KindNotificationPermission:
			return agent.StateNeedsPermission, true
		case agent.KindNotificationIdle, agent.KindInterrupt:
			return agent.StateWaitingInput, true
		case agent.KindStop, agent.KindStopFailed:
			return agent.StateDone, true
		}
		return "", false // compact, heartbeat, notice
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64] // long enough for any pattern; cheap enough for many runs
		}
		c := &clock{t0}
		tr := newTracker(c)
		tr.Timers.Retention = 1000 * time.Hour // an ended session is never forgotten here
		want := agent.StateUnknown             // what the client last said; nothing yet
		var last time.Time                     // the time of the latest event applied
		mayBeUnknown := true                   // nothing asserts the state now (the lease ran out)
		for i, op := range ops {
			switch op {
			case 0xff: // a silence past the working lease
				c.Add(tr.Timers.WorkingLease + time.Second)
				tr.Tick()
				if want == agent.StateWorking {
					mayBeUnknown = true
				}
				continue
			case 0xfe:
				c.Add(3 * time.Second)
				tr.Tick()
				continue
			}
			k := kinds[int(op)%len(kinds)]
			tool := tools[int(op)/len(kinds)%len(tools)]
			c.Add(time.Second)
			when := c.Now()
			if op&0x80 != 0 && i > 0 {
				when = when.Add(-3 * time.Second) // may be older than the last event applied
			}
			e := agent.Event{Client: "claude", Session: "s", Kind: k.k, Reason: k.reason, Time: when, Cwd: "/p",
				Source: agent.SourceHook, Tool: tool, ToolID: string(rune('a' + i%3))}
			u, err := tr.Apply(e)
			if err != nil {
				t.Fatalf("event %d %s: %v", i, k.k, err)
			}
			late := when.Before(last) ||
				want == agent.StateEnded && k.k != agent.KindSessionStart && k.k != agent.KindHeartbeat && k.k != agent.KindNotice
			if u.Late != late {
				t.Fatalf("event %d %s at %v (last %v, state %s): late %v, want %v", i, k.k, when, last, want, u.Late, late)
			}
			if !late {
				last = when
				if st, ok := asserts(k, tool); ok {
					want, mayBeUnknown = st, false
				} else if k.k == agent.KindSessionStart && want == agent.StateEnded {
					want, mayBeUnknown = agent.StateUnknown, true // compaction of an ended session: alive, state unsaid
				}
			}
			s := mustSession(t, tr, "s")
			if s.State != want && !(mayBeUnknown && s.State == agent.StateUnknown) {
				t.Fatalf("event %d %s (tool %q, late %v): state %s, but the client last said %s", i, k.k, tool, late, s.State, want)
			}
			if s.Inferred {
				t.Fatalf("event %d %s: a hooked session's state %s is a guess", i, k.k, s.State)
			}
			if (s.State == agent.StateWorking) != (s.Activity != nil) {
				t.Fatalf("event %d %s: state %s with activity %+v", i, k.k, s.State, s.Activity)
			}
			// A tool that starts is what the session does, named or not;
			// one that names no tool is not taken for thinking.
			if k.k == agent.KindToolStart && !late && s.State == agent.StateWorking {
				if a := s.Activity; a.Tool != tool || tool == "" && (a.Kind != agent.UnnamedTool.Kind || a.Label != agent.UnnamedTool.Label) {
					t.Fatalf("event %d: tool %q started, activity %+v", i, tool, a)
				}
			}
		}
	})
}
