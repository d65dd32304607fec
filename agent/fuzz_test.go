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
