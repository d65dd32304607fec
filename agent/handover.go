package agent

import (
	"slices"
	"time"
)

// A conversation moves to a new provider session id in the same window on
// /clear and /resume. Clients report it in one of three ways, and the record
// stays the same in all of them:
//
//   - Claude Code and its kin end the old id (reason clear or resume) and,
//     milliseconds later, start the new one (source clear or resume) in the
//     same folder. The end opens a short handover window; the start adopts
//     the newest record in the same client and folder whose window is open.
//   - The same two hooks run as separate processes and can arrive swapped.
//     A start for an unknown id opens an adoption window on the new record;
//     an end that finds such a record in its folder folds it in.
//   - A client that names the session it continues (Pi's session switch)
//     sets Event.Previous, and that record is moved without guessing.
//
// Without hooks, a Claude Code /clear only shows as a new transcript whose
// first prompt is the /clear command; it takes over the quietest transcript
// session of the same folder, as the transcript reader of the reference did.

// adopt finds the record that a session_start for an unknown provider id
// continues and moves it to the new id. It returns nil when there is none.
func (t *Tracker) adopt(ev Event, now time.Time) *record {
	if ev.Previous != "" {
		if r := t.index[key(ev.Client, ev.Previous)]; r != nil {
			t.rekey(r, ev.Session)
			return r
		}
	}
	if !handoverReason(ev.Reason) {
		return nil
	}
	var best *record
	for _, r := range t.records {
		if r.s.Client != ev.Client || r.s.Parent != "" || ev.Cwd == "" || r.s.Cwd != ev.Cwd {
			continue
		}
		announced := !r.handoverUntil.IsZero() && !now.After(r.handoverUntil)
		quiet := ev.Source == SourceTranscript && !r.s.Hooked && r.s.Source == SourceTranscript &&
			r.s.State != StateEnded && now.Sub(r.lastData) >= t.Timers.ClearIdle
		if (announced || quiet) && (best == nil || r.lastData.After(best.lastData)) {
			best = r
		}
	}
	if best != nil {
		best.handoverUntil = time.Time{}
		t.rekey(best, ev.Session)
		return best
	}
	return nil
}

// rekey points a record at a new provider session id, keeping the old ones
// as aliases so late events for them still land here.
func (t *Tracker) rekey(r *record, provider string) {
	if provider == r.s.ProviderID {
		return
	}
	k := key(r.s.Client, provider)
	t.index[k] = r
	r.keys = append(r.keys, k)
	r.s.Aliases = append(r.s.Aliases, r.s.ProviderID)
	r.s.ProviderID = provider
	if len(r.s.Aliases) > maxAliases {
		r.s.Aliases = r.s.Aliases[1:]
	}
	if len(r.keys) > maxAliases+1 {
		if t.index[r.keys[0]] == r {
			delete(t.index, r.keys[0])
		}
		r.keys = r.keys[1:]
	}
}

// successor finds a record that was started by /clear or /resume in r's
// folder before r's own end arrived.
func (t *Tracker) successor(r *record, now time.Time) *record {
	var best *record
	for _, n := range t.records {
		if n == r || n.s.Client != r.s.Client || n.s.Parent != "" || n.s.Cwd == "" || n.s.Cwd != r.s.Cwd ||
			n.adoptableUntil.IsZero() || now.After(n.adoptableUntil) {
			continue
		}
		if best == nil || n.s.StartedAt.After(best.s.StartedAt) {
			best = n
		}
	}
	return best
}

// merge folds n, the session that continues r, into r: r keeps its id and
// history and takes n's provider id, state and events. n is forgotten.
func (t *Tracker) merge(r, n *record, u *Update) {
	for _, k := range n.keys {
		t.index[k] = r
	}
	r.keys = append(r.keys, n.keys...)
	r.s.Aliases = append(r.s.Aliases, r.s.ProviderID)
	r.s.Aliases = append(r.s.Aliases, n.s.Aliases...)
	r.s.ProviderID = n.s.ProviderID
	r.s.State, r.s.Since = n.s.State, n.s.Since
	r.s.Activity, r.s.Permission, r.s.Note = n.s.Activity, n.s.Permission, n.s.Note
	r.s.Source, r.s.Inferred = n.s.Source, n.s.Inferred
	r.s.Hooked = r.s.Hooked || n.s.Hooked
	if n.s.Transcript != "" {
		r.s.Transcript = n.s.Transcript
	}
	if n.s.UpdatedAt.After(r.s.UpdatedAt) {
		r.s.UpdatedAt = n.s.UpdatedAt
	}
	if n.lastAt.After(r.lastAt) {
		r.lastAt = n.lastAt
	}
	r.open, r.turnHadTools, r.lastMessage = n.open, n.turnHadTools, n.lastMessage
	r.handoverUntil = time.Time{}
	for _, e := range n.events.list() {
		r.events.push(e)
	}
	for _, is := range n.s.Issues {
		r.addIssue(is)
	}
	for _, id := range n.s.Children {
		if c := t.records[id]; c != nil {
			c.s.Parent = r.s.ID
			r.s.Children = append(r.s.Children, id)
		}
	}
	delete(t.records, n.s.ID)
	u.Merged = append(u.Merged, n.s.ID)
	u.changed = slices.DeleteFunc(u.changed, func(c *record) bool { return c == n })
	u.touch(r)
}
