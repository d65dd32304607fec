package desk

// OwnerEvent is something the owner did on a project (or the game, for a
// new report) that the agents working on it should hear about: a comment, a
// verdict, a new report, a status change, a plan note, a merge or a new
// parent. Agent sessions are told these on their next prompt or, with the
// channel, at once.
type OwnerEvent struct {
	Seq     int64  `json:"seq"` // the feed row it comes from
	Project string `json:"project"`
	Issue   string `json:"issue"`
	Kind    string `json:"kind"` // one of the OwnerEvent kinds below
	Actor   string `json:"actor"`
	At      string `json:"at"`
	Title   string `json:"title"`             // the issue's title
	Text    string `json:"text,omitempty"`    // a comment's text, a step's note
	Verdict string `json:"verdict,omitempty"` // passed or failed, for a verdict
	From    string `json:"from,omitempty"`    // the status (or step state) before
	To      string `json:"to,omitempty"`      // the status (or step state) after
	Step    int    `json:"step,omitempty"`    // the plan step, 1 = first
	Other   string `json:"other,omitempty"`   // the merged issue, or the new parent
	Source  string `json:"source,omitempty"`  // owner or game, for a report
}

// Kinds of owner event.
const (
	EventComment = "comment"
	EventVerdict = "verdict"
	EventReport  = "report"
	EventStatus  = "status"
	EventPlan    = "plan"
	EventMerged  = "merged"
	EventParent  = "parent"
)

// NotifyEventOf names the project notify setting (one of NotifyEvents) that
// decides whether an owner event of this kind reaches agent sessions.
func NotifyEventOf(kind string) string {
	switch kind {
	case EventComment, EventPlan:
		return "comments"
	case EventVerdict:
		return "verdicts"
	case EventReport:
		return "reports"
	}
	return "status"
}

// OwnerEvents is the owner's activity on a project after a feed position,
// with the project it was read from (its name, notify setting and lead
// client decide how and to whom it is told).
type OwnerEvents struct {
	Project *Project      `json:"project"`
	Events  []*OwnerEvent `json:"events"` // newest first
	// More counts the events left out by the limit.
	More int `json:"more"`
	// Last is the newest feed row of the whole desk in the snapshot read: a
	// reader's cursor moves here, whether or not anything was found.
	Last int64 `json:"last"`
}

// Brief is what an agent session is told about its project when it starts:
// the project with its counts by status, the latest handoff (version 0 when
// none was written) and the feed position the session's notifications start
// from.
type Brief struct {
	Project *Project `json:"project"`
	Handoff *Handoff `json:"handoff"`
	Seq     int64    `json:"seq"`
}
