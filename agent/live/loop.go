package live

import (
	"context"
	"fmt"
	"time"

	"desk/agent"
	"desk/agent/intake"
	"desk/sqlite"
)

// pruneEvery is how often sessions older than Options.Keep leave the store.
const pruneEvery = time.Hour

// tickLoop runs what happens on a clock: transcripts, the tracker's
// timers, issue touches, trimming histories, the spool, pruning.
func (s *Service) tickLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.Tick)
	defer t.Stop()
	var pruned time.Time
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if s.standDown() {
			continue
		}
		if s.watcher != nil {
			s.pollTranscripts()
		}
		s.tick()
		s.followTouches()
		s.trim()
		if intake.Pending(s.opts.DataDir) {
			s.drainSpool()
		}
		if now := s.opts.Now(); now.Sub(pruned) >= pruneEvery {
			pruned = now
			if n, err := s.store.PruneAgents(s.ctx, now.Add(-s.opts.Keep)); err != nil && s.ctx.Err() == nil {
				s.log.Warn("prune agent sessions", "err", err)
			} else if n > 0 {
				s.log.Info("pruned agent sessions", "sessions", n)
			}
		}
	}
}

// standDown reports whether a newer server tracks agents on this data
// folder. Then that one drains the spool and keeps the store, and this one
// only answers what it showed last. Checking before every drain keeps
// this one from taking reports it could no longer save.
func (s *Service) standDown() bool {
	if s.opts.Shared || s.superseded.Load() {
		return s.superseded.Load()
	}
	gen, err := s.store.AgentGeneration(s.ctx)
	if err != nil || gen == s.gen {
		return false
	}
	if !s.superseded.Swap(true) {
		s.log.Warn("a newer desk server tracks agents on this data folder; this one stops", "generation", s.gen, "newer", gen)
	}
	return true
}

// tick runs the tracker's timers and queues what they changed.
func (s *Service) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.tracker.Tick(); len(u.Sessions) > 0 {
		s.queueSessions(u.Sessions)
	}
}

// pollTranscripts applies what the transcripts of hookless sessions gained.
func (s *Service) pollTranscripts() {
	evs, err := s.watcher.Poll()
	if err != nil {
		s.log.Debug("read agent transcripts", "err", err)
	}
	if len(evs) > 0 {
		s.apply(evs)
	}
}

// drainSpool replays the reports hooks spooled while no server took them,
// in the order they were written.
func (s *Service) drainSpool() {
	n, bad, err := intake.Drain(s.opts.DataDir, func(r *intake.Report) {
		s.stats.spooled.Add(1)
		s.Receive(r)
	})
	if n > 0 || bad > 0 {
		s.log.Info("replayed spooled agent reports", "reports", n, "unreadable", bad)
	}
	if err != nil {
		s.log.Warn("replay spooled agent reports", "err", err)
	}
}

// followTouches ties the issues agents touched since the last tick to
// their sessions. Other processes (the MCP servers) record touches in the
// store; a query per tick costs less than waking on every commit.
func (s *Service) followTouches() {
	ts, err := s.store.AgentTouchesAfter(s.ctx, s.lastTouch)
	if err != nil {
		if s.ctx.Err() == nil {
			s.log.Warn("read agent touches", "err", err)
		}
		return
	}
	for _, t := range ts {
		s.lastTouch = t.ID
		s.match(t)
	}
}

// matchOpenTouches matches the touches made while no server ran, and
// notes where following them starts.
func (s *Service) matchOpenTouches(ctx context.Context) error {
	// Following starts after the latest touch as it is before the
	// unmatched ones are read: a touch an agent makes in between is then
	// followed too (matched twice at worst, which adds nothing new), never
	// missed by both.
	last, err := s.store.LastAgentTouch(ctx)
	if err != nil {
		return fmt.Errorf("read the latest agent touch: %w", err)
	}
	open, err := s.store.UnmatchedAgentTouches(ctx, s.opts.Now().Add(-24*time.Hour))
	if err != nil {
		return fmt.Errorf("read unmatched agent touches: %w", err)
	}
	for _, t := range open {
		s.match(t)
	}
	s.lastTouch = last
	return nil
}

// match ties one touch to its session and queues the change.
func (s *Service) match(t *sqlite.AgentTouch) {
	client := t.Client
	if _, known := agent.Lookup(client); !known {
		client = "" // an MCP client that named itself oddly: any client's session in its folder
	}
	id := t.Session
	if id == "" && t.Provider != "" && client != "" {
		id, _ = s.tracker.Lookup(client, t.Provider)
	}
	if id == "" {
		id, _ = s.tracker.Match(client, t.Cwd, t.At)
	}
	if id == "" {
		s.log.Info("agent touch not matched to a session", "issue", t.Issue, "client", t.Client, "cwd", t.Cwd,
			"reason", "no session of that client in that folder, or several and none clearly the caller")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Session == "" {
		s.queue.matched = append(s.queue.matched, sqlite.AgentMatch{Touch: t.ID, Session: id})
	}
	if snap, ok := s.tracker.AddIssue(id, t.Issue); ok {
		s.queue.put(snap)
	}
	s.signal()
}
