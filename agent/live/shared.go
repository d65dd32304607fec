package live

import (
	"context"
	"time"

	"desk"
	"desk/agent"
)

// SessionLoader reads one session as the store keeps it, with its recent
// events and issues. A store shared by several servers (the team server's
// PostgreSQL) implements it, so that each server's picture follows what
// the others saved.
type SessionLoader interface {
	LoadAgent(ctx context.Context, session string) (agent.Session, bool, error)
}

// Follow brings this server's picture up to date with agent rows of the
// change feed that any server sharing the store wrote: each session
// updated is read again from the store, each one merged away is dropped.
// The server calls it with every batch of the feed before its live streams
// get the batch, so that a stream that hears of a change and asks for the
// agents sees it. A Service that is not Options.Shared ignores it: it is
// the only writer of its store, and its memory already holds every change.
//
// A snapshot older than the session this server holds is skipped: that is
// this server's own save coming back (the store keeps times to the
// millisecond, so its copy reads older than the memory's), which would
// drop what memory alone holds, such as the tool calls running.
func (s *Service) Follow(ctx context.Context, cs []*desk.Change) {
	if !s.opts.Shared {
		return
	}
	loader, ok := s.store.(SessionLoader)
	if !ok {
		return
	}
	seen := map[string]bool{}
	for i := len(cs) - 1; i >= 0; i-- { // the latest row of each session decides
		c := cs[i]
		if c.Type != desk.ChangeAgent || c.Actor == "" || seen[c.Actor] {
			continue
		}
		switch c.Action {
		case "updated":
			seen[c.Actor] = true
			snap, found, err := loader.LoadAgent(ctx, c.Actor)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("read an agent session another server saved", "session", c.Actor, "err", err)
				}
				continue
			}
			if found {
				s.absorb(snap)
			}
		case "removed":
			seen[c.Actor] = true
			s.mu.Lock()
			s.tracker.Remove(c.Actor)
			s.links.forget(c.Actor)
			s.mu.Unlock()
		}
	}
}

// absorb puts a session read from the store into the tracker, unless the
// tracker holds a later state of it.
func (s *Service) absorb(snap agent.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.tracker.Session(snap.ID); ok && snap.UpdatedAt.Before(cur.UpdatedAt) {
		return
	}
	s.tracker.Restore([]agent.Session{snap})
	if snap.Launch != "" && snap.Generation > 0 {
		s.tracker.Fence(snap.Launch, snap.Generation)
	}
	s.stats.followed.Add(1)
}

// sharedGeneration is the generation every server sharing the store writes
// with: the store's, or a first one when none tracked agents on it yet.
// Servers sharing a store never supersede each other.
func (s *Service) sharedGeneration(ctx context.Context) (int64, error) {
	gen, err := s.store.AgentGeneration(ctx)
	if err != nil || gen > 0 {
		return gen, err
	}
	return s.store.StartAgents(ctx)
}

// commitWait bounds how long a report to a shared Service waits for its
// events to be saved before it is answered.
const commitWait = 10 * time.Second
