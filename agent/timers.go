package agent

import "time"

// Tick runs the Tracker's timers and returns the sessions they changed:
//
//   - a handover window that closed without a successor ends its session;
//   - a working session silent for Timers.WorkingLease reads unknown, since
//     nothing asserts it works any more;
//   - a session known from transcripts alone, silent for
//     Timers.PermissionGuess after a tool that may need approval started,
//     is guessed to need permission, and one silent for Timers.TextIdle
//     after a text-only answer is guessed to be done; both are Inferred;
//   - an ended session older than Timers.Retention leaves memory.
//
// Call it every few hundred milliseconds; it costs one pass over the
// sessions.
func (t *Tracker) Tick() Update {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var u Update
	for _, r := range t.records {
		if !r.adoptableUntil.IsZero() && now.After(r.adoptableUntil) {
			r.adoptableUntil = time.Time{}
		}
		if !r.handoverUntil.IsZero() && now.After(r.handoverUntil) {
			r.end(later(r.handoverUntil, r.s.UpdatedAt), "its /clear or /resume successor never started")
			u.touch(r)
			continue
		}
		if r.s.State == StateEnded {
			if now.Sub(r.s.UpdatedAt) >= t.Timers.Retention && now.Sub(r.lastData) >= t.Timers.Retention {
				t.forget(r)
			}
			continue
		}
		if r.s.State != StateWorking {
			continue
		}
		silent := now.Sub(r.lastData)
		// A producer's clock may run ahead of ours; a state never begins
		// before the event it follows.
		at := later(now, r.s.UpdatedAt)
		switch {
		case silent >= t.Timers.WorkingLease:
			r.open = nil
			r.setState(StateUnknown, at)
			r.s.Note = "no event for " + t.Timers.WorkingLease.String()
			r.s.Inferred = false
			u.touch(r)
			t.liftToParent(r, at, &u)
		case r.s.Hooked || r.s.Source != SourceTranscript:
			// Hooks assert every state change; nothing to guess.
		case silent >= t.Timers.PermissionGuess && r.mayWaitForApproval():
			o := r.waitingTool()
			r.setState(StateNeedsPermission, at)
			r.s.Permission = permissionFor(o.tool, o.input)
			r.s.Inferred = true
			u.touch(r)
			t.liftToParent(r, at, &u)
		case silent >= t.Timers.TextIdle && r.lastMessage && !r.turnHadTools && len(r.open) == 0:
			r.setState(StateDone, at)
			r.s.Inferred = true
			u.touch(r)
		}
	}
	return u.finish()
}

// waitingTool returns the latest running tool call that could be waiting
// for approval.
func (r *record) waitingTool() *openTool {
	for i := len(r.open) - 1; i >= 0; i-- {
		k := describeCall(r.open[i].tool, r.open[i].input).Kind
		if k.exempt() || k == ActivityEditing && r.s.PermissionMode == "acceptEdits" {
			continue
		}
		return &r.open[i]
	}
	return nil
}

// mayWaitForApproval reports whether the session could be at a permission
// prompt: a tool that asks runs, and the client was not told to never ask.
func (r *record) mayWaitForApproval() bool {
	switch r.s.PermissionMode {
	case "bypassPermissions", "never", "yolo", "dontAsk":
		return false
	}
	return r.waitingTool() != nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
