package desk

import (
	"encoding/json"
	"time"
)

// Apply changes s by u, the fields u sets, after checking u.IfState: a
// Conflict when s is in another state. Every store's UpdateSession applies
// its updates here.
func (u SessionUpdate) Apply(s *Session) error {
	if u.IfState != "" && s.State != u.IfState {
		return Errorf(Conflict, "session %s is %s, not %s", s.ID, s.State, u.IfState)
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.Name, u.Name)
	set(&s.State, u.State)
	set(&s.ExitReason, u.ExitReason)
	set(&s.ResumeID, u.ResumeID)
	set(&s.Project, u.Project)
	set(&s.Note, u.Note)
	set(&s.Hooks, u.Hooks)
	if u.PID != nil {
		s.PID = *u.PID
	}
	if u.ExitCode != nil {
		s.ExitCode = *u.ExitCode
	}
	if u.EndedAt != nil {
		s.EndedAt = *u.EndedAt
	}
	if u.StartedAt != nil {
		s.StartedAt = *u.StartedAt
	}
	if u.Generation != nil {
		s.Generation = *u.Generation
	}
	if u.Command != nil {
		s.Command = *u.Command
	}
	return nil
}

// NoSession is the error of every store for a session id it does not
// keep (a long id is clipped in the message).
func NoSession(id string) error {
	if len(id) > 64 {
		id = id[:64] + "…"
	}
	return Errorf(NotFound, "no session %q", id).WithHint("desk sessions --all lists them")
}

// SessionColumnList is a session's argument list as the stores keep it in
// a column: JSON, [] for none.
func SessionColumnList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// SessionColumnTime is a session's time as the stores keep it: "" for
// none.
func SessionColumnTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return FormatTime(t)
}
