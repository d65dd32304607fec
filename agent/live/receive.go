package live

import (
	"fmt"
	"time"

	"desk"
	"desk/agent"
	"desk/agent/intake"
	"desk/sqlite"
)

// Result says what a report did.
type Result struct {
	Events  int    // events applied
	Session string // the record the last event went to
	State   agent.State
	Late    bool   // an event was older than one already applied
	Note    string // why an event did not move the state, when it did not
}

// Receive decodes one hook report and applies its events. The change is
// visible to Sessions at once and reaches the store and the feed within
// one group commit. Errors are *desk.Error: not found for an unknown
// client, invalid for a payload its client's mapper cannot read, conflict
// for an event from a producer that outlived its session's restart; or
// ErrUnavailable. Each is logged once, with its reason.
func (s *Service) Receive(r *intake.Report) (Result, error) {
	s.stats.reports.Add(1)
	if r.Truncated > 0 {
		err := desk.Errorf(desk.Invalid, "%s payload of %d bytes is over the %d byte limit", r.Client, r.Truncated, intake.MaxPayload).
			WithHint("the report was dropped; the session's next event sets its state again")
		s.ignore(r, err)
		return Result{}, err
	}
	evs, err := agent.Decode(r.Input())
	if err != nil {
		s.ignore(r, err)
		return Result{}, err
	}
	if len(evs) == 0 {
		return Result{}, nil // a known event that says nothing about state
	}
	res, saved, err := s.apply(evs)
	if saved == nil {
		return res, err
	}
	select {
	case serr := <-saved:
		if serr != nil {
			return Result{}, serr
		}
	case <-time.After(commitWait):
		return Result{}, fmt.Errorf("%w: the store took no events for %v", ErrUnavailable, commitWait)
	}
	return res, err
}

// apply applies decoded events and queues what they changed. On a shared
// Service, saved hears when what they changed is in the store.
func (s *Service) apply(evs []agent.Event) (res Result, saved <-chan error, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.superseded.Load() {
		return Result{}, nil, ErrUnavailable
	}
	if s.queue.pending() >= maxQueued {
		return Result{}, nil, fmt.Errorf("%w: %d events wait for the store", ErrUnavailable, s.queue.pending())
	}
	var firstErr error
	for _, ev := range evs {
		u, err := s.tracker.Apply(ev)
		if err != nil {
			s.ignoreEvent(ev, err)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		s.stats.events.Add(1)
		if u.Late {
			s.stats.late.Add(1)
			res.Late = true
			s.log.Debug("agent event late", "client", ev.Client, "session", ev.Session, "event", ev.Name, "reason", u.Note)
		}
		if u.Note != "" {
			res.Note = u.Note
			if !u.Recorded {
				s.stats.ignored.Add(1)
				s.log.Debug("agent event dropped", "client", ev.Client, "session", ev.Session, "event", ev.Name, "reason", u.Note)
			}
		}
		if u.Recorded {
			ev.Late = u.Late
			s.queue.events = append(s.queue.events, sqlite.AgentEvent{Session: u.Session, Event: ev})
			res.Events++
			res.Session = u.Session
		}
		for _, m := range u.Merged {
			s.queue.merged = append(s.queue.merged, sqlite.AgentMerge{From: m, Into: u.Session})
			s.links.forget(m)
		}
		s.queueSessions(u.Sessions)
	}
	if res.Session != "" {
		if snap, ok := s.queue.sessions[res.Session]; ok {
			res.State = snap.State
		}
	}
	if s.opts.Shared && !s.queue.empty() {
		ch := make(chan error, 1)
		s.queue.waiters = append(s.queue.waiters, ch)
		saved = ch
	}
	if res.Events == 0 && firstErr != nil {
		return res, saved, firstErr
	}
	return res, saved, nil
}

// queueSessions queues snapshots, giving each its project first. Callers
// hold s.mu.
func (s *Service) queueSessions(sessions []agent.Session) {
	for _, snap := range sessions {
		s.queue.put(snap)
		if slug, changed := s.links.project(snap.ID, snap.Parent, snap.Cwd, snap.Project); changed {
			for _, c := range s.tracker.SetProject(snap.ID, slug) {
				s.queue.put(c)
			}
		}
	}
	s.signal()
}

// signal wakes the writer.
func (s *Service) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// ignore logs a report the Service refused.
func (s *Service) ignore(r *intake.Report, err error) {
	s.stats.ignored.Add(1)
	s.log.Info("agent report ignored", "client", r.Client, "event", r.Event, "bytes", len(r.Payload), "reason", reason(err))
}

// ignoreEvent logs an event the tracker refused.
func (s *Service) ignoreEvent(ev agent.Event, err error) {
	s.stats.ignored.Add(1)
	s.log.Info("agent event refused", "client", ev.Client, "session", ev.Session, "event", ev.Name, "reason", reason(err))
}

// reason is an error's message with its hint, for a log line.
func reason(err error) string { return err.Error() }

// batch is what waits for the writer.
type batch struct {
	sessions map[string]agent.Session // the latest snapshot of each changed session
	order    []string
	events   []sqlite.AgentEvent
	merged   []sqlite.AgentMerge
	matched  []sqlite.AgentMatch
	waiters  []chan error // reports waiting for the batch to be saved
}

func newBatch() *batch { return &batch{sessions: map[string]agent.Session{}} }

func (b *batch) put(s agent.Session) {
	if _, ok := b.sessions[s.ID]; !ok {
		b.order = append(b.order, s.ID)
	}
	s.Events = nil
	b.sessions[s.ID] = s
}

func (b *batch) pending() int { return len(b.events) + len(b.order) }

func (b *batch) empty() bool {
	return len(b.order) == 0 && len(b.events) == 0 && len(b.merged) == 0 && len(b.matched) == 0
}

// prepend puts an earlier batch (one the store did not take) in front of
// this one; this one's snapshots are newer and win.
func (b *batch) prepend(old *batch) {
	for _, id := range old.order {
		if _, ok := b.sessions[id]; !ok {
			b.sessions[id] = old.sessions[id]
			b.order = append(b.order, id)
		}
	}
	b.events = append(old.events, b.events...)
	b.merged = append(old.merged, b.merged...)
	b.matched = append(old.matched, b.matched...)
	b.waiters = append(old.waiters, b.waiters...)
}

// saved tells the reports waiting for the batch how saving it ended.
func (b *batch) saved(err error) {
	for _, w := range b.waiters {
		w <- err
	}
	b.waiters = nil
}

func (b *batch) store(gen int64) sqlite.AgentBatch {
	out := sqlite.AgentBatch{Generation: gen, Events: b.events, Merged: b.merged, Matched: b.matched}
	out.Sessions = make([]agent.Session, 0, len(b.order))
	for _, id := range b.order {
		out.Sessions = append(out.Sessions, b.sessions[id])
	}
	return out
}
