package live

import (
	"slices"

	"desk"
	"desk/agent"
)

// Filter selects sessions; an empty field matches every session.
type Filter struct {
	Project string
	State   []agent.State
	Client  []string
}

// Validate refuses states and clients that no session can have, so that a
// typo in a filter says so instead of answering an empty list.
func (f Filter) Validate() error {
	for _, st := range f.State {
		switch st {
		case agent.StateWorking, agent.StateNeedsPermission, agent.StateWaitingInput,
			agent.StateDone, agent.StateEnded, agent.StateUnknown:
		default:
			return desk.Errorf(desk.Invalid, "state: %q is not a session state", st).
				WithHint("states: working, needs_permission, waiting_input, done, ended, unknown")
		}
	}
	return nil
}

// Sessions returns the sessions f selects, the ones that need their owner
// first (see agent.Tracker.Sessions).
func (s *Service) Sessions(f Filter) []agent.Session {
	all := s.tracker.Sessions()
	out := all[:0]
	for _, ss := range all {
		if f.Project != "" && ss.Project != f.Project ||
			len(f.State) > 0 && !slices.Contains(f.State, ss.State) ||
			len(f.Client) > 0 && !slices.Contains(f.Client, ss.Client) {
			continue
		}
		out = append(out, ss)
	}
	return out
}

// Session returns one session with its recent events.
func (s *Service) Session(id string) (agent.Session, bool) {
	return s.tracker.Session(id)
}

// OnIssue returns the live sessions (not ended) that touched issue key,
// the ones that need their owner first.
func (s *Service) OnIssue(key string) []agent.Session {
	var out []agent.Session
	for _, ss := range s.tracker.Sessions() {
		if ss.State != agent.StateEnded && slices.Contains(ss.Issues, key) {
			out = append(out, ss)
		}
	}
	return out
}

// ByLaunch returns the session whose hooks carry a managed launch's id
// (DESK_SESSION_ID): of several (a /clear, a sub-agent), the top-level one
// updated last, with its recent events.
func (s *Service) ByLaunch(launch string) (agent.Session, bool) {
	var best *agent.Session
	for _, ss := range s.tracker.Sessions() {
		if ss.Launch != launch || ss.Parent != "" {
			continue
		}
		if best == nil || ss.UpdatedAt.After(best.UpdatedAt) {
			c := ss
			best = &c
		}
	}
	if best == nil {
		return agent.Session{}, false
	}
	return s.tracker.Session(best.ID)
}

// Fence refuses, from now on, reports of a managed launch stamped with a
// generation older than gen: the launcher calls it when it resumes a
// session, before the new run's hooks speak.
func (s *Service) Fence(launch string, gen int64) { s.tracker.Fence(launch, gen) }
