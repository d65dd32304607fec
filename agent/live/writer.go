package live

import (
	"context"
	"time"

	"desk"
)

// commitGap is the least time between two commits. An idle desk commits an
// event as soon as it arrives; a busy one gathers what arrives within the
// gap into one transaction, which bounds the commits (and the feed reads
// every commit sets off) to a hundred a second.
const commitGap = 10 * time.Millisecond

// writeLoop saves what the tracker changed, in group commits.
func (s *Service) writeLoop() {
	defer s.wg.Done()
	backoff := 10 * time.Millisecond
	var last time.Time
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.wake:
		}
		if wait := commitGap - time.Since(last); wait > 0 {
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		for {
			err := s.flush(s.ctx)
			if err == nil {
				backoff = 10 * time.Millisecond
				break
			}
			if s.ctx.Err() != nil {
				return
			}
			s.log.Error("save agent sessions", "err", err, "retry_in", backoff.String())
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
		}
	}
}

// flush saves the queued batch. A batch the store fails to take goes back
// in front of the queue; one refused because a newer server took over is
// dropped, and the Service stops taking reports.
func (s *Service) flush(ctx context.Context) error {
	s.mu.Lock()
	b := s.queue
	if b.empty() {
		s.mu.Unlock()
		return nil
	}
	s.queue = newBatch()
	s.mu.Unlock()
	if s.superseded.Load() {
		b.saved(ErrUnavailable)
		return nil
	}
	err := s.store.SaveAgents(ctx, b.store(s.gen))
	if desk.ErrorCode(err) == desk.Conflict && s.opts.Shared && s.adoptGeneration(ctx) {
		err = s.store.SaveAgents(ctx, b.store(s.gen))
	}
	switch {
	case err == nil:
		b.saved(nil)
		s.stats.persisted.Add(int64(len(b.events)))
		s.stats.batches.Add(1)
		s.trimMu.Lock()
		for _, e := range b.events {
			s.untrimmed[e.Session] = true
		}
		s.trimMu.Unlock()
		return nil
	case desk.ErrorCode(err) == desk.Conflict && !s.opts.Shared:
		b.saved(ErrUnavailable)
		if !s.superseded.Swap(true) {
			s.log.Warn("a newer desk server tracks agents on this data folder; this one stops", "err", err)
		}
		return nil
	}
	s.mu.Lock()
	s.queue.prepend(b)
	s.mu.Unlock()
	return err
}

// trim keeps the store's history of each session that gained events to its
// last sqlite.AgentEventsKept; the tick loop calls it.
func (s *Service) trim() {
	s.trimMu.Lock()
	ids := make([]string, 0, len(s.untrimmed))
	for id := range s.untrimmed {
		ids = append(ids, id)
	}
	clear(s.untrimmed)
	s.trimMu.Unlock()
	if err := s.store.TrimAgentEvents(s.ctx, ids); err != nil && s.ctx.Err() == nil {
		s.log.Warn("trim agent events", "err", err)
	}
}

// adoptGeneration takes the shared store's generation when it moved past
// this server's (two servers started on an empty store at once, and each
// took a first one), and reports whether it did.
func (s *Service) adoptGeneration(ctx context.Context) bool {
	gen, err := s.store.AgentGeneration(ctx)
	if err != nil || gen == s.gen {
		return false
	}
	s.log.Info("the shared store's agent generation moved; writing with it", "generation", s.gen, "store", gen)
	s.mu.Lock()
	s.gen = gen
	s.mu.Unlock()
	return true
}
