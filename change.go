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
	// deletion, a setting); agent for agent sessions; office for the
	// office's layout and seats; session for managed sessions (ID the
	// record's row, Actor its id).
	Type    string  `json:"type"`
	ID      int64   `json:"id"` // the comment, activity, handoff or session row
	Action  string  `json:"action"`
	Actor   string  `json:"actor"`
	Verdict *string `json:"verdict"`
	At      string  `json:"at"`
	Version int     `json:"version"` // handoff version; 0 for other rows
}

// Feed row types.
const (
	ChangeComment  = "comment"
	ChangeActivity = "activity"
	ChangeHandoff  = "handoff"
	ChangeIssue    = "issue"
	ChangeProject  = "project"
	ChangeOffice   = "office"
	ChangeAgent    = "agent"
	ChangePair     = "pair" // a pair's transcript grew; ID is the entry
	ChangeSession  = "session"
)

// IsLive reports whether a change is one the live views show as an entry
// (sent as a "change" event) rather than a bare reason to refresh.
func (c *Change) IsLive() bool {
	switch c.Type {
	case ChangeComment, ChangeActivity, ChangeHandoff, ChangeAgent, ChangePair, ChangeSession:
		return true
	case ChangeOffice: // the office reads its layout or seats again
		return true
	case ChangeCode: // the Code view reads the log again
		return true
	}
	return false
}
