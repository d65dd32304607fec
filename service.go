package desk

import (
	"context"
	"io"
)

// The services below are what every surface (HTTP, MCP, CLI, hooks) calls.
// Each method owns its transaction and enforces the rules of the data
// model; the surfaces only parse, call and format. Errors are *Error with
// the codes Invalid, NotFound, Conflict and Forbidden; anything else is a
// failure of the store.

// ProjectService manages projects and their settings.
type ProjectService interface {
	// Projects lists every project by name, with status counts.
	Projects(ctx context.Context) ([]*Project, error)
	// Project returns a project with its overview: counts, areas, tags and
	// the time of its last change. NotFound for an unknown slug.
	Project(ctx context.Context, slug string) (*ProjectDetail, error)
	// CreateProject adds a project. Conflict when the slug or prefix is taken.
	CreateProject(ctx context.Context, p NewProject, actor string) (*Project, error)
	// UpdateProject changes a project's name, default seed, notify setting
	// or lead client.
	UpdateProject(ctx context.Context, slug string, u ProjectUpdate, actor string) (*Project, error)
	// BackfillSeed gives the project's default seed to its agent issues and
	// checks that have no seed, and returns how many it changed.
	BackfillSeed(ctx context.Context, slug, actor string) (int, error)
}

// BuildService publishes the builds the owner plays.
type BuildService interface {
	// BuildState returns the project's current build and whether it uses builds.
	BuildState(ctx context.Context, slug string) (*BuildState, error)
	// SetBuild publishes a build and stamps it on every issue waiting in
	// to_check. The same build again changes nothing (Unchanged).
	SetBuild(ctx context.Context, slug string, in BuildInput) (*BuildResult, error)
	// ClearBuild leaves the project with no current build (agents cannot
	// hand over until the next one), or with off stops using builds.
	ClearBuild(ctx context.Context, slug string, off bool, actor string) (*BuildState, error)
}

// CreateOptions are the parts of a new issue that are not issue fields.
type CreateOptions struct {
	Author      string
	Attachments []AttachmentInput
	// Agent files under AgentIssue's defaults instead of DefaultIssue's: a
	// check, from source agent, waiting for the owner (to_check) when he
	// can check it and for the agent's own verification (auto_check) when
	// he cannot yet. MCP's tools set it.
	Agent bool
	// SkipDuplicate makes CreateIssue return (nil, nil) when an issue with
	// the same external_ref exists in the project, for imports.
	SkipDuplicate bool
}

// MergeResult answers a merge.
type MergeResult struct {
	Target string       `json:"target"`
	Merged []string     `json:"merged"`
	Issue  *IssueDetail `json:"issue"`
}

// UnmergeResult answers an unmerge.
type UnmergeResult struct {
	Source string       `json:"source"`
	Target string       `json:"target"`
	Issue  *IssueDetail `json:"issue"`
}

// Group is a proposal to merge duplicates or group related issues under a
// parent. It is only a proposal: nothing changes until someone merges.
type Group struct {
	Action  string            `json:"action"` // merge or group
	Target  string            `json:"target"`
	Issues  []string          `json:"issues"`
	Titles  map[string]string `json:"titles"`
	Score   float64           `json:"score"`
	Reasons []string          `json:"reasons"`
	Hint    string            `json:"hint"`
}

// IssueService reads and changes issues. Writes answer with the issue as a
// list shows it (body and plan included, without its comments and
// timeline), which costs the same on any issue; Issue reads the rest.
type IssueService interface {
	// Issues lists a project's issues, filtered, sorted and paged, with the
	// facet counts of the whole filtered set.
	Issues(ctx context.Context, slug string, f IssueFilter) (*IssueList, error)
	// Issue returns an issue with its comments, attachments, activity,
	// children and last commands. A merged issue's id returns its target
	// with RedirectedFrom set.
	Issue(ctx context.Context, id string) (*IssueDetail, error)
	// CreateIssue files an issue in a project.
	CreateIssue(ctx context.Context, slug string, f IssueFields, o CreateOptions) (*IssueDetail, error)
	// UpdateIssue changes the given fields; an edit of a merged issue lands
	// on its target. A status change follows SetStatus's rules.
	UpdateIssue(ctx context.Context, id string, f IssueFields, actor string) (*Issue, error)
	// SetStatus moves an issue. Only the owner marks passed; an agent hands
	// over (to_check) only finished work with a location command and a
	// current build where the project publishes builds.
	SetStatus(ctx context.Context, id, status, actor string) (*Issue, error)
	// DeleteIssue removes an issue with its comments, activity and files.
	// Conflict while other issues are merged into it.
	DeleteIssue(ctx context.Context, id, actor string) error
	// SetParent makes an issue part of another one in the same project, or
	// with parent nil part of none. Loops are refused.
	SetParent(ctx context.Context, id string, parent *string, actor string) (*Issue, error)
	// Merge folds sources into target: their comments, attachments and
	// activity move with merged_from, and their ids redirect to target.
	Merge(ctx context.Context, target string, sources []string, actor string) (*MergeResult, error)
	// Unmerge undoes the merge of id into its target.
	Unmerge(ctx context.Context, id, actor string) (*UnmergeResult, error)
	// SuggestGroups proposes merges of likely duplicates and groups of
	// related issues.
	SuggestGroups(ctx context.Context, slug string, limit int) ([]Group, error)
}

// CommentService adds comments and files.
type CommentService interface {
	// AddComment comments on an issue; a verdict moves its status.
	AddComment(ctx context.Context, id string, in CommentInput) (*Comment, *Issue, error)
	// AddAttachments attaches files to an issue or to one of its comments.
	AddAttachments(ctx context.Context, id string, commentID *int64, files []AttachmentInput, author string) ([]*Attachment, error)
	// Attachment returns an attachment's description.
	Attachment(ctx context.Context, attID int64) (*Attachment, error)
	// OpenAttachment opens an attachment's bytes for streaming.
	OpenAttachment(ctx context.Context, attID int64) (*Attachment, io.ReadSeekCloser, error)
	// DeleteAttachment removes an attachment and its file.
	DeleteAttachment(ctx context.Context, attID int64, actor string) error
}

// PlanService keeps the agents' plans.
type PlanService interface {
	// SetPlan replaces an issue's steps, keeping the state of steps whose
	// text is unchanged; a nil verification keeps the old one.
	SetPlan(ctx context.Context, id string, steps []Step, verification *string, actor string) (*Issue, error)
	// UpdateStep changes step n (1 = first). A step that starts moves the
	// issue to in_progress; the last one finished moves it to auto_check.
	UpdateStep(ctx context.Context, id string, n int, p StepPatch, actor string) (*Issue, error)
}

// CommandService is the queue of commands for the running game.
type CommandService interface {
	// QueueCommand queues a command text, or an issue's command.
	QueueCommand(ctx context.Context, slug string, in CommandInput) (*Command, error)
	// NextCommand hands the oldest pending command to client, once; nil
	// when there is none.
	NextCommand(ctx context.Context, slug, client string) (*Command, error)
	// Commands lists recent commands, newest first.
	Commands(ctx context.Context, slug string, limit int) ([]*Command, error)
	// Command returns one command with its state.
	Command(ctx context.Context, id int64) (*Command, error)
}

// HandoffService keeps each project's versioned handoff.
type HandoffService interface {
	// Handoff returns a version (0: the latest), or version 0 when none exists.
	Handoff(ctx context.Context, slug string, version int) (*Handoff, error)
	// SaveHandoff saves a whole document as a new version; the same text
	// again saves nothing.
	SaveHandoff(ctx context.Context, slug, markdown, author, note string) (*Handoff, error)
	// UpdateHandoffSection replaces one section as a new version.
	UpdateHandoffSection(ctx context.Context, slug, section, text, author string) (*Handoff, error)
	// HandoffHistory lists versions, newest first.
	HandoffHistory(ctx context.Context, slug string) ([]HandoffVersion, error)
	// HandoffDiff returns the unified diff between two versions (to 0: latest).
	HandoffDiff(ctx context.Context, slug string, from, to int) (*HandoffDiff, error)
}

// HandoffDiff is the difference between two handoff versions.
type HandoffDiff struct {
	Project string `json:"project"`
	From    int    `json:"from"`
	To      int    `json:"to"`
	Diff    string `json:"diff"`
}

// ChangeFilter selects feed rows.
type ChangeFilter struct {
	After   int64  // rows after this sequence number
	Project string // only this project's rows; "" for all
	Limit   int
}

// FeedService reads the change feed.
type FeedService interface {
	// Changes returns feed rows in sequence order.
	Changes(ctx context.Context, f ChangeFilter) ([]*Change, error)
	// LastSeq returns the sequence number of the newest feed row.
	LastSeq(ctx context.Context) (int64, error)
}

// Service is everything the desk store offers.
type Service interface {
	ProjectService
	BuildService
	IssueService
	CommentService
	PlanService
	CommandService
	HandoffService
	FeedService
}
