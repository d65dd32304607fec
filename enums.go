package desk

import "strings"

// Kinds of issue.
const (
	KindBug   = "bug"
	KindCheck = "check"
	KindIdea  = "idea"
	KindTask  = "task"
)

// Kinds lists every issue kind; the first is the default.
var Kinds = []string{KindBug, KindCheck, KindIdea, KindTask}

// Issue statuses.
const (
	StatusReported   = "reported"
	StatusOpen       = "open"
	StatusInProgress = "in_progress"
	StatusAutoCheck  = "auto_check"
	StatusToCheck    = "to_check"
	StatusPassed     = "passed"
	StatusFailed     = "failed"
	StatusParked     = "parked"
	StatusClosed     = "closed"
)

// Statuses lists every status in the order of the data model.
var Statuses = []string{
	StatusReported, StatusOpen, StatusInProgress, StatusAutoCheck, StatusToCheck,
	StatusPassed, StatusFailed, StatusParked, StatusClosed,
}

// TriageOrder is the order of statuses in the triage sort: what waits for the
// owner first, what is finished last.
var TriageOrder = []string{
	StatusToCheck, StatusAutoCheck, StatusReported, StatusFailed, StatusOpen,
	StatusInProgress, StatusParked, StatusPassed, StatusClosed,
}

// UnfinishedStatuses are the statuses of the default list view.
var UnfinishedStatuses = []string{
	StatusToCheck, StatusAutoCheck, StatusReported, StatusFailed, StatusOpen, StatusInProgress,
}

// IsDone reports whether status ends the work on an issue; closed_at is set
// while an issue is in one of these.
func IsDone(status string) bool { return status == StatusPassed || status == StatusClosed }

// Priorities, most urgent first; p2 is the default.
var Priorities = []string{"p0", "p1", "p2", "p3"}

// Sources of an issue.
const (
	SourceOwner = "owner"
	SourceAgent = "agent"
	SourceGame  = "game"
)

// Sources lists every source; the first is the default.
var Sources = []string{SourceOwner, SourceAgent, SourceGame}

// Verdicts the owner gives on a comment.
var Verdicts = []string{StatusPassed, StatusFailed}

// Sizes of work for the backlog order; "" means not sized.
var Sizes = []string{"S", "M", "L"}

// Plan step states.
const (
	StepTodo    = "todo"
	StepDoing   = "doing"
	StepDone    = "done"
	StepDropped = "dropped"
)

// StepStates lists every plan step state.
var StepStates = []string{StepTodo, StepDoing, StepDone, StepDropped}

// Sorts of an issue list. SortRelevance is the default when a search text is
// given, SortTriage otherwise.
const (
	SortTriage    = "triage"
	SortRelevance = "relevance"
	SortUpdated   = "updated"
	SortCreated   = "created"
	SortOldest    = "oldest"
	SortPriority  = "priority"
	SortNumber    = "number"
	SortBacklog   = "backlog"
)

// Sorts lists every sort order.
var Sorts = []string{SortTriage, SortRelevance, SortUpdated, SortCreated, SortOldest, SortPriority, SortNumber, SortBacklog}

// NotifyEvents are the kinds of owner activity a project can route to its
// agent sessions.
var NotifyEvents = []string{"comments", "verdicts", "reports", "status"}

// LeadClients are the agent clients that can be a project's lead: only its
// top-level sessions hear the owner. opencode reads the desk only at session
// start, so it cannot lead.
var LeadClients = []string{"claude", "codex", "antigravity", "muse", "gemini", "qwen", "kimi", "grok", "pi"}

// OwnerActor is the actor name of the person who owns the desk. Only the
// owner gives verdicts and marks issues passed.
const OwnerActor = "owner"

// IsOwner reports whether actor is the owner.
func IsOwner(actor string) bool { return strings.EqualFold(strings.TrimSpace(actor), OwnerActor) }

// OneOf reports whether v is in set.
func OneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// checkEnum returns an Invalid error naming field when v is not in set.
func checkEnum(field, v string, set []string) error {
	if OneOf(v, set) {
		return nil
	}
	return Errorf(Invalid, "%s: %q is not one of %s", field, v, strings.Join(set, ", "))
}

// CheckEnum returns an Invalid error naming field and the allowed values when
// v is not one of set.
func CheckEnum(field, v string, set []string) error { return checkEnum(field, v, set) }

// Field limits. Longer input is refused, never cut, except the title, whose
// white space is collapsed first.
const (
	MaxTitle        = 300
	MaxBody         = 200_000
	MaxArea         = 80
	MaxTag          = 60
	MaxTags         = 50
	MaxExternalRef  = 300
	MaxMilestone    = 120
	MaxAuthor       = 80
	MaxCommentText  = 200_000
	MaxCommand      = 2000
	MaxCommandLabel = 80
	MaxCommands     = 20
	MaxPlanSteps    = 100
	MaxStepText     = 500
	MaxCommit       = 80
	MaxNote         = 2000
	MaxVerification = 2000
	MaxHandoff      = 200_000
	MaxHandoffNote  = 300
	MaxBuildPath    = 1000
	MaxBuildLabel   = 80
	MaxPlaceText    = 200
	MaxName         = 120

	// MaxAttachment is the largest file accepted over HTTP or as base64.
	MaxAttachment = 50 << 20
	// MaxAttachmentByPath is the largest local file the CLI and MCP attach by path.
	MaxAttachmentByPath = 25 << 20
	// MaxRequestBody is the largest HTTP request body.
	MaxRequestBody = 80 << 20
)
