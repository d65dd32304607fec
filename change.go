package desk

// Change is one row of the change feed. Every write appends its rows in the
// same transaction, so whatever follows the feed (the live streams, the
// channel, the prompt hooks) never announces what was not committed.
type Change struct {
	Seq     int64   `json:"seq"`     // the feed's own, ever growing id
	Project string  `json:"project"` // slug; "" for writes that concern no one project
	Issue   *string `json:"issue"`
	// Type is comment, activity or handoff for the rows the live views show;
	// issue and project for writes they only need to refresh after (a
	// deletion, a setting); agent for agent sessions; session for managed
	// sessions (ID the record's row, Actor its id).
	Type    string  `json:"type"`
	ID      int64   `json:"id"` // the comment, activity, handoff or session row
	Action  string  `json:"action"`
	Actor   string  `json:"actor"`
	Verdict *string `json:"verdict,omitempty"`
	At      string  `json:"at"`
	Version int     `json:"version,omitempty"` // handoff version
}

// Feed row types.
const (
	ChangeComment  = "comment"
	ChangeActivity = "activity"
	ChangeHandoff  = "handoff"
	ChangeIssue    = "issue"
	ChangeProject  = "project"
	ChangeAgent    = "agent"
	ChangeSession  = "session"
)

// IsLive reports whether a change is one the live views show as an entry
// (sent as a "change" event) rather than a bare reason to refresh.
func (c *Change) IsLive() bool {
	switch c.Type {
	case ChangeComment, ChangeActivity, ChangeHandoff, ChangeAgent, ChangeSession:
		return true
	}
	return false
}
