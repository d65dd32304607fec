package agent

import "time"

// transition moves a session's state as one in-order event says. It is the
// one definition of the states for every client:
//
//	session_start                  → waiting_input (a new process sits at its prompt);
//	                                 a start after compaction asserts nothing
//	prompt, busy, message          → working (thinking, unless a tool runs)
//	tool_start                     → working on that tool (one that names no tool:
//	                                 "Using a tool"); asking tools → waiting_input
//	tool_end, tool_failed          → working (the next open tool, else thinking)
//	tool_progress, permission_result → working
//	permission_request,
//	notification_permission        → needs_permission (which tool, which command)
//	notification_idle, interrupt   → waiting_input
//	stop, stop_failed              → done
//	session_end                    → ended, or a handover on /clear and /resume;
//	                                 after it only session_start moves the session
//	                                 (anything else is late: see Tracker.Apply)
//	subagent_start / subagent_stop → the sub-agent works / has ended
//	compact                        → while working, the activity says so
//	heartbeat, notice              → nothing
//
// The session's source follows the event that set its state, and a state set
// here is asserted, never inferred.
func (t *Tracker) transition(r *record, ev *Event, now time.Time, u *Update) {
	at := ev.Time
	// A guess gives way to whatever happens next.
	if r.s.Inferred && ev.Kind != KindHeartbeat && ev.Kind != KindNotice {
		r.s.Inferred = false
		if r.s.State == StateNeedsPermission {
			r.setState(StateWorking, at)
		}
	}
	if ev.Kind != KindHeartbeat && ev.Kind != KindNotice {
		r.lastMessage = false
	}
	asserted := true
	switch ev.Kind {
	case KindSessionStart:
		r.handoverUntil = time.Time{}
		if ev.Reason == "compact" {
			// Compaction restarts a session mid-turn as well as at the
			// prompt: alive, but in no state it says.
			asserted = false
			if r.s.State == StateEnded {
				r.setState(StateUnknown, at)
			}
			break
		}
		r.open, r.turnHadTools = nil, false
		r.setState(StateWaitingInput, at)

	case KindPrompt:
		r.open, r.turnHadTools = nil, false
		r.working(at)

	case KindBusy, KindToolProgress, KindPermissionResult:
		r.working(at)

	case KindMessage:
		r.lastMessage = true
		r.working(at)

	case KindToolStart:
		if describeCall(ev.Tool, ev.Input).Kind == ActivityAsking {
			r.setState(StateWaitingInput, at)
			break
		}
		r.turnHadTools = true
		r.openTool(openTool{id: ev.ToolID, tool: ev.Tool, input: ev.Input, at: at})
		r.working(at)

	case KindToolEnd, KindToolFailed:
		r.closeTool(ev.ToolID, ev.Tool)
		r.working(at)

	case KindPermissionRequest, KindNotificationPermission:
		p := t.permission(r, ev)
		r.setState(StateNeedsPermission, at)
		r.s.Permission = p

	case KindNotificationIdle:
		r.open = nil
		r.setState(StateWaitingInput, at)

	case KindInterrupt:
		r.open = nil
		r.setState(StateWaitingInput, at)
		r.s.Note = "interrupted"

	case KindStop:
		r.open = nil
		r.setState(StateDone, at)

	case KindStopFailed:
		r.open = nil
		r.setState(StateDone, at)
		r.s.Note = "the turn failed"
		if m := first(ev.Message, ev.Reason); m != "" {
			r.s.Note += ": " + m
		}

	case KindSubagentStart:
		r.open = nil
		r.working(at)

	case KindSubagentStop:
		r.end(at, "")

	case KindSessionEnd:
		if handoverReason(ev.Reason) && r.s.Parent == "" {
			if n := t.successor(r, now); n != nil {
				t.merge(r, n, u)
				return
			}
			r.handoverUntil = now.Add(t.Timers.Handover)
			asserted = false
			break
		}
		r.end(at, "")
		for _, id := range r.s.Children {
			if c := t.records[id]; c != nil && c.s.State != StateEnded {
				c.end(at, "its session ended")
				u.touch(c)
			}
		}

	case KindCompact:
		asserted = false
		if r.s.State == StateWorking {
			r.setActivity(Activity{Kind: ActivityCompacting, Label: "Compacting context"}, at)
		}

	default: // heartbeat, notice
		asserted = false
	}
	if asserted {
		r.s.Source = ev.Source
	}
	t.liftToParent(r, at, u)
}

// handoverReason reports whether a session ended or started because a
// conversation moved to a new provider session in the same window.
func handoverReason(reason string) bool {
	return reason == "clear" || reason == "resume"
}

// setState moves to st; since moves, and the note goes, only when the
// state changes.
func (r *record) setState(st State, at time.Time) {
	if r.s.State != st {
		r.s.State = st
		r.s.Since = at
		r.s.Note = ""
	}
	if st != StateWorking {
		r.s.Activity = nil
	}
	if st != StateNeedsPermission {
		r.s.Permission = nil
	}
}

// working sets the state to working with the activity of the latest open
// tool, or thinking.
func (r *record) working(at time.Time) {
	r.setState(StateWorking, at)
	var a Activity
	if n := len(r.open); n > 0 {
		o := r.open[n-1]
		a = describeCall(o.tool, o.input)
		if o.at.After(at) {
			at = o.at
		}
	} else {
		a = Describe("", "")
	}
	r.setActivity(a, at)
}

// setActivity sets the activity; its since moves only when it changes.
func (r *record) setActivity(a Activity, at time.Time) {
	if c := r.s.Activity; c != nil && c.Kind == a.Kind && c.Label == a.Label && c.Tool == a.Tool {
		return
	}
	a.Since = at
	r.s.Activity = &a
}

func (r *record) end(at time.Time, note string) {
	r.open, r.handoverUntil = nil, time.Time{}
	r.setState(StateEnded, at)
	if note != "" {
		r.s.Note = note
	}
}

// openTool notes a tool call as running. Tools can run in parallel; the
// latest started is the one the activity shows.
func (r *record) openTool(o openTool) {
	if o.id != "" {
		for i := range r.open {
			if r.open[i].id == o.id {
				r.open = append(r.open[:i], r.open[i+1:]...)
				break
			}
		}
	}
	if len(r.open) == maxOpen {
		r.open = append(r.open[:0], r.open[1:]...)
	}
	r.open = append(r.open, o)
}

// closeTool forgets the tool call that ended: by id when the client gives
// ids, else the latest call of that tool, else the latest call.
func (r *record) closeTool(id, tool string) {
	match := -1
	for i := len(r.open) - 1; i >= 0; i-- {
		o := r.open[i]
		if id != "" && o.id == id {
			match = i
			break
		}
		if match < 0 && (id == "" || o.id == "") && (tool == "" || o.tool == tool) {
			match = i
		}
	}
	if match < 0 && id == "" && tool == "" && len(r.open) > 0 {
		match = len(r.open) - 1
	}
	if match >= 0 {
		r.open = append(r.open[:match], r.open[match+1:]...)
	}
}

// permission says what the session asks to be allowed: the event's own tool
// when it names one, else a sub-agent's pending request, else the tool that
// runs.
func (t *Tracker) permission(r *record, ev *Event) *Permission {
	if ev.Tool != "" {
		return permissionFor(ev.Tool, ev.Input)
	}
	if p := r.s.Permission; p != nil && r.s.State == StateNeedsPermission {
		c := *p
		return &c
	}
	for _, id := range r.s.Children {
		if c := t.records[id]; c != nil && c.s.State == StateNeedsPermission && c.s.Permission != nil {
			p := *c.s.Permission
			p.Agent = c.s.ID
			return &p
		}
	}
	if n := len(r.open); n > 0 {
		return permissionFor(r.open[n-1].tool, r.open[n-1].input)
	}
	return permissionFor("", "")
}

// liftToParent shows a sub-agent's permission request on its session too:
// the owner answers it in the session's terminal, and the session is stuck
// until they do.
func (t *Tracker) liftToParent(r *record, at time.Time, u *Update) {
	p := t.records[r.s.Parent]
	if p == nil || p.s.State == StateEnded {
		return
	}
	switch {
	case r.s.State == StateNeedsPermission && r.s.Permission != nil:
		perm := *r.s.Permission
		perm.Agent = r.s.ID
		p.setState(StateNeedsPermission, at)
		p.s.Permission = &perm
		p.s.Source, p.s.Inferred = r.s.Source, r.s.Inferred
		u.touch(p)
	case p.s.State == StateNeedsPermission && p.s.Permission != nil && p.s.Permission.Agent == r.s.ID:
		p.working(at)
		p.s.Source, p.s.Inferred = r.s.Source, r.s.Inferred
		u.touch(p)
	}
}
