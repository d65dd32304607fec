package code

import (
	"context"
	"time"

	"desk"
)

// Repo is a repository of code: an owner and a name (acme/game), and the
// desk project it belongs to, whose page shows its code.
type Repo struct {
	ID        int64  `json:"-"`
	Owner     string `json:"owner"`
	Name      string `json:"name"`
	Project   string `json:"project"` // a project's slug, or ""
	CreatedAt string `json:"created_at"`
}

// Slug returns owner/name.
func (r *Repo) Slug() string { return r.Owner + "/" + r.Name }

// RepoSummary is a repository as GET /v1/repos lists it.
type RepoSummary struct {
	Repo
	Slug     string `json:"slug"`
	Head     *ID    `json:"head"` // nil before the first landing
	Landings int64  `json:"landings"`
}

// ChangeRow is the row of an indexed change. It holds nothing that the
// change object does not (its generation follows from its parents), so a
// lost table is made again from the objects (Changes.Index).
type ChangeRow struct {
	ID         ID
	Tree       ID
	Parents    []ID
	Author     string
	Time       time.Time
	Message    string
	Intents    []string
	Generation int64 // 1 with no parent, else 1 + the largest of its parents'
}

// Head is where main stands: its change (nil while main does not exist)
// and its revision, which grows by one with every move. Landing swaps
// the head only at the revision it read.
type Head struct {
	Change *ID
	Rev    int64
}

// LogEntry is one landing on main: the change main moved to, the change
// its author submitted (the same one unless the landing made a new change
// on a moved main), and the change's fields for the log.
type LogEntry struct {
	Seq       int64 // dense: 1, 2, 3, ... per repository
	Change    ID
	Submitted ID
	Rebased   bool
	LandedBy  string
	LandedAt  time.Time
	Row       ChangeRow // the landed change
}

// Move is one compare-and-swap of main: from the head at revision FromRev
// to To, indexing NewChanges (their objects already stored) and appending
// Entries to the log, oldest first, in one transaction.
type Move struct {
	Repo       int64
	FromRev    int64 // the revision the mover read; 0 while main does not exist
	To         ID
	NewChanges []ChangeRow
	Entries    []LogEntry // Seq, LandedAt and Row are filled by the store; LandedBy too when empty
	By         string     // who landed the entries that do not say
	// GitCommits maps git commits to changes in the same transaction
	// (an import).
	GitCommits []GitCommit
}

// GitCommit maps a git commit to the change made of it (import) or that
// made it (export).
type GitCommit struct {
	Commit string // 40 hex digits
	Change ID
}

// OpenChange is the newest change of a work folder that has not landed,
// with the paths it touches against its first parent.
type OpenChange struct {
	Repo      int64     `json:"-"`
	Workspace string    `json:"workspace"`
	Change    ID        `json:"change"`
	Author    string    `json:"author"`
	Intents   []string  `json:"intents"`
	Paths     []string  `json:"paths"`
	SentAt    time.Time `json:"sent_at"`
}

// LogQuery selects landings, newest first.
type LogQuery struct {
	Before  int64    // entries with a smaller seq; 0 for the newest
	Limit   int      // at most this many
	Intents []string // only entries whose change names one of these issues
}

// Store keeps the code's tables: repositories, indexed changes, the ref of
// main, the log of landings, the open changes of work folders and the map
// of git commits. It holds no object: those are in an ObjectStore, and
// every row is written after its object. Errors are *desk.Error with
// NotFound and Conflict where said; any other is a failure of the store.
//
// Every backend passes the suite of package code/codetest unchanged.
type Store interface {
	// CreateRepo adds a repository. Conflict when owner/name exists.
	CreateRepo(ctx context.Context, owner, name, project string) (*Repo, error)
	// Repo returns a repository. NotFound when there is none.
	Repo(ctx context.Context, owner, name string) (*Repo, error)
	// Repos lists every repository by slug, with its head and landings.
	Repos(ctx context.Context) ([]*RepoSummary, error)
	// LinkRepo links a repository to a project ("" for none).
	LinkRepo(ctx context.Context, repo int64, project string) error

	// IndexChanges adds the rows not there yet, in one transaction; rows
	// already there are left. A row's parents are indexed before it or
	// come earlier in rows.
	IndexChanges(ctx context.Context, repo int64, rows []ChangeRow) error
	// Change returns a row. NotFound when the change is not indexed.
	Change(ctx context.Context, repo int64, id ID) (*ChangeRow, error)
	// HasChanges reports which changes are indexed, in their order.
	HasChanges(ctx context.Context, repo int64, ids []ID) ([]bool, error)

	// Head returns where main stands.
	Head(ctx context.Context, repo int64) (Head, error)
	// MoveMain swaps main from the revision m.FromRev to m.To, indexes
	// m.NewChanges, appends m.Entries to the log with the next numbers,
	// removes the open changes that landed (their submitted changes), maps
	// m.GitCommits, and records each landing on the desk issues its change
	// names, all in one transaction. It returns the entries as written.
	// Conflict (ErrMoved) when main is no longer at m.FromRev: nothing is
	// written then.
	MoveMain(ctx context.Context, m Move) ([]LogEntry, error)
	// Landed returns the log entry whose submitted change is id, or nil.
	Landed(ctx context.Context, repo int64, id ID) (*LogEntry, error)
	// Log returns landings, newest first.
	Log(ctx context.Context, repo int64, q LogQuery) ([]LogEntry, error)
	// LogCount returns the number of landings.
	LogCount(ctx context.Context, repo int64) (int64, error)

	// PutOpenChange records the open change of a work folder, replacing
	// the folder's earlier one.
	PutOpenChange(ctx context.Context, o OpenChange) error
	// OpenChanges lists the open changes sent at or after since.
	OpenChanges(ctx context.Context, repo int64, since time.Time) ([]OpenChange, error)

	// GitCommits returns the map of git commits to changes.
	GitCommits(ctx context.Context, repo int64) ([]GitCommit, error)
	// AddGitCommits adds entries to the map; entries there already are left.
	AddGitCommits(ctx context.Context, repo int64, m []GitCommit) error
}

// ErrMoved is MoveMain's answer when main moved since it was read.
var ErrMoved = desk.Errorf(desk.Conflict, "main moved since it was read")
