package desk

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
