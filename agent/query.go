package agent

import (
	"slices"
	"strings"
	"time"
)

// Sessions returns a snapshot of every session, the ones that need their
// owner first (needs permission, then waiting for input), then working,
// done, unknown and ended; the most recently updated first within each.
// Snapshots carry no events; Session does.
func (t *Tracker) Sessions() []Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Sort pointers, not the wide snapshots.
	recs := make([]*record, 0, len(t.records))
	for _, r := range t.records {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b *record) int {
		if d := a.s.State.attention() - b.s.State.attention(); d != 0 {
			return d
		}
		if c := b.s.UpdatedAt.Compare(a.s.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.s.ID, b.s.ID)
	})
	out := make([]Session, len(recs))
	for i, r := range recs {
		out[i] = r.s.clone()
	}
	return out
}

// Session returns one session by record id, with its recent events.
func (t *Tracker) Session(id string) (Session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.records[id]
	if r == nil {
		return Session{}, false
	}
	s := r.s.clone()
	s.Events = r.events.list()
	return s, true
}

// Lookup returns the record id of a client's provider session id, aliases
// included. An MCP call from Claude Code carries CLAUDE_CODE_SESSION_ID, and
// this is how it finds its session.
func (t *Tracker) Lookup(client, provider string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.index[key(client, provider)]
	if r == nil {
		return "", false
	}
	return r.s.ID, true
}

// MatchWindow is how close to a call a session's latest event must be for
// Match to pick it among several in the same folder.
const MatchWindow = 10 * time.Second

// Match finds the session behind a caller that says only which client it is
// (or "" for any), which folder it works in and when it called, as an MCP
// server of a client that passes no session id does. It answers only when
// it can tell: the one live top-level session in that folder; or, of
// several, the one working; or, of several still, the one whose latest
// event (the hook before the tool call) lies within MatchWindow of at. A
// folder inside a session's folder counts as that session's, the deepest
// session folder first.
func (t *Tracker) Match(client, cwd string, at time.Time) (string, bool) {
	if cwd == "" {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []*record
	best := -1
	for _, r := range t.records {
		if r.s.Parent != "" || r.s.State == StateEnded || r.s.Cwd == "" || client != "" && r.s.Client != client {
			continue
		}
		if !within(cwd, r.s.Cwd) {
			continue
		}
		switch d := len(r.s.Cwd); {
		case d > best:
			best, live = d, nil
		case d < best:
			continue
		}
		live = append(live, r)
	}
	if len(live) == 1 {
		return live[0].s.ID, true
	}
	if w := filter(live, func(r *record) bool { return r.s.State == StateWorking }); len(w) == 1 {
		return w[0].s.ID, true
	} else if len(w) > 1 {
		live = w
	}
	if at.IsZero() {
		at = t.now()
	}
	near := filter(live, func(r *record) bool {
		d := at.Sub(r.s.UpdatedAt)
		return -MatchWindow <= d && d <= MatchWindow
	})
	if len(near) == 1 {
		return near[0].s.ID, true
	}
	return "", false
}

func filter(rs []*record, keep func(*record) bool) []*record {
	var out []*record
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// within reports whether dir is root or inside it.
func within(dir, root string) bool {
	dir, root = strings.TrimRight(dir, "/"), strings.TrimRight(root, "/")
	return dir == root || strings.HasPrefix(dir, root+"/") || root == ""
}

// SetProject sets the project a session works on, and its sub-agents' with
// it. It returns the changed snapshots; none when the id is unknown or the
// project is already set.
func (t *Tracker) SetProject(id, project string) []Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.records[id]
	if r == nil || r.s.Project == project {
		return nil
	}
	var u Update
	r.s.Project = project
	u.touch(r)
	for _, cid := range r.s.Children {
		if c := t.records[cid]; c != nil && c.s.Project != project {
			c.s.Project = project
			u.touch(c)
		}
	}
	return u.finish().Sessions
}

// AddIssue notes that a session touched an issue ("12", or "proj#12" when
// the caller prefers). It returns the changed snapshot and false when the id
// is unknown or the issue is already listed.
func (t *Tracker) AddIssue(id, issue string) (Session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.records[id]
	if r == nil || issue == "" || !r.addIssue(issue) {
		return Session{}, false
	}
	return r.s.clone(), true
}

// addIssue lists an issue once; the oldest go when the list is full.
func (r *record) addIssue(issue string) bool {
	if slices.Contains(r.s.Issues, issue) {
		return false
	}
	if len(r.s.Issues) == MaxIssues {
		r.s.Issues = r.s.Issues[1:]
	}
	r.s.Issues = append(r.s.Issues, issue)
	return true
}

// Restore loads sessions a store kept (with their events) into an empty or
// running Tracker, replacing records of the same id. States come back as they
// were saved; the working lease then runs from their last event, so a session
// that was working long ago reads unknown at the next Tick. Running tool
// calls are not restored: no permission is guessed for them, and their end
// leaves the session thinking.
func (t *Tracker) Restore(sessions []Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range sessions {
		s := sessions[i]
		if s.ID == "" || s.Client == "" {
			continue
		}
		if old := t.records[s.ID]; old != nil {
			t.unindex(old)
		}
		r := &record{s: s.clone(), lastAt: s.UpdatedAt, lastData: s.UpdatedAt}
		if r.s.ProviderID == "" {
			r.s.ProviderID = s.ID
		}
		if !r.s.State.valid() {
			r.s.State = StateUnknown
		}
		for _, p := range append(slices.Clone(r.s.Aliases), r.s.ProviderID) {
			k := key(r.s.Client, p)
			r.keys = append(r.keys, k)
			t.index[k] = r
		}
		for _, e := range s.Events {
			r.events.push(e)
		}
		if t := r.events.latest(); t.After(r.lastAt) {
			r.lastAt = t
		}
		t.records[s.ID] = r
	}
}

// Remove forgets session id, with its sub-agents: another server merged it
// into another session, or the store no longer keeps it.
func (t *Tracker) Remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.records[id]; r != nil {
		t.forget(r)
	}
}
