package desk

// ActLanded is the timeline entry an issue gets when a change that names
// it in its intents lands on main.
const ActLanded = "landed"

// Landing is a change landed on main for an issue, as the issue lists it.
// It is also the detail of the "landed" timeline entry.
type Landing struct {
	Repo      string `json:"repo"`      // owner/name
	Seq       int64  `json:"seq"`       // the landing's number in the repository's log
	Change    string `json:"change"`    // the change main moved to
	Submitted string `json:"submitted"` // the change its author sent
	Rebased   bool   `json:"rebased"`   // the landing made a new change on a moved main
	Message   string `json:"message"`   // the first line of the change's message
	Author    string `json:"author"`
	LandedBy  string `json:"landed_by"`
	LandedAt  string `json:"landed_at"`
}

// ChangeCode is the feed row of a landing on main: its ID is the
// landing's number in the repository's log, its project the project the
// repository is linked to.
const ChangeCode = "code"
