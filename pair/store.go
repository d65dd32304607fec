package pair

import (
	"context"
	"encoding/json"
	"time"

	"desk"
)

// Event is one entry of a pair's transcript: a letter, a note, a claim, a
// phase change, a refusal, an approval of a prompt. The transcript is
// append-only; its ids grow with every entry of every pair.
type Event struct {
	ID     int64  `json:"id"`
	Pair   string `json:"pair"`
	Round  int    `json:"round"`
	At     string `json:"at"`
	Role   string `json:"role"` // who acted: a role, "owner" or "pilot"
	Kind   string `json:"kind"` // see the Event kinds
	Rule   string `json:"rule"` // the rule a refusal names, "" for other kinds
	Text   string `json:"text"`
	Detail any    `json:"detail"` // JSON object with the kind's particulars, null for none
}

// Event kinds.
const (
	EventCreated      = "created"
	EventJoined       = "joined"
	EventClaim        = "claim"
	EventRelease      = "release"
	EventAdvance      = "advance"
	EventVeto         = "veto"
	EventRoundClosed  = "round_closed"
	EventRoundOpened  = "round_opened"
	EventLetter       = "letter"
	EventNote         = "note"
	EventTask         = "task"
	EventPatch        = "patch"
	EventEvidence     = "evidence"
	EventRefusal      = "refusal"
	EventOwnerOK      = "owner_ok"
	EventBudget       = "budget"
	EventDelivered    = "delivered"
	EventNudge        = "nudge"
	EventApproved     = "unblock_approved"
	EventDenied       = "unblock_refused"
	EventRestart      = "restart"
	EventPatchWaiting = "patch_waiting"
	EventParked       = "pilot_parked"
	EventStopped      = "stopped"
	EventSwap         = "swap"
	EventReport       = "report"
)

// Letter is one message in a member's mailbox.
type Letter struct {
	ID    int64  `json:"id"`
	Pair  string `json:"pair"`
	From  string `json:"from"`
	To    string `json:"to"`
	Body  string `json:"body"`
	At    string `json:"at"`
	Event int64  `json:"event"` // the transcript entry that records it
	// Deferred is set on a letter whose pointer could not be typed into
	// the peer's terminal yet; the supervisor types it once it can.
	Deferred bool `json:"deferred,omitempty"`
}

// Note kinds.
const (
	NotePlan     = "plan"
	NoteDecision = "decision"
	NoteFinding  = "finding"
	NoteVerdict  = "verdict"
	NoteHandoff  = "handoff"
)

// NoteKinds lists the kinds of notes.
var NoteKinds = []string{NotePlan, NoteDecision, NoteFinding, NoteVerdict, NoteHandoff}

// NoteEntry is one entry appended to a note.
type NoteEntry struct {
	ID    int64  `json:"id"`
	Kind  string `json:"kind"`
	Role  string `json:"role"`
	Round int    `json:"round"`
	Text  string `json:"text"`
	At    string `json:"at"`
}

// NoteInfo sums up one note for the index.
type NoteInfo struct {
	Kind    string `json:"kind"`
	Entries int    `json:"entries"`
	Bytes   int    `json:"bytes"`
	Lines   int    `json:"lines"`
	LastAt  string `json:"last_at"`
}

// Task states.
const (
	TaskOpen    = "open"
	TaskDone    = "done"
	TaskDropped = "dropped"
)

// Task is one entry of the shared task list.
type Task struct {
	N        int     `json:"n"` // 1, 2, ... within the pair
	Text     string  `json:"text"`
	State    string  `json:"state"`
	Round    int     `json:"round"`
	AddedBy  string  `json:"added_by"`
	AddedAt  string  `json:"added_at"`
	ClosedBy string  `json:"closed_by"` // "" while open
	ClosedAt *string `json:"closed_at"`
	Reason   string  `json:"reason"` // why it was dropped
}

// Patch states.
const (
	PatchReserved = "reserved" // the file exists, empty or being written
	PatchSealed   = "sealed"   // its SHA-256 is recorded
	PatchVerified = "verified" // the writer checked the seal just now
	PatchApplied  = "applied"
	PatchFailed   = "failed" // the writer's apply failed
	PatchReleased = "released"
)

// Patch is a critic's proposed change: a unified diff in a file of the
// pair's patch folder, sealed with its SHA-256.
type Patch struct {
	N          int      `json:"n"`
	Path       string   `json:"path"`
	Role       string   `json:"role"` // the critic who proposed it
	State      string   `json:"state"`
	Round      int      `json:"round"`
	Summary    string   `json:"summary"`
	Seal       string   `json:"sha256"` // "" until sealed
	Size       int      `json:"size"`
	Files      []string `json:"files"` // the paths the diff changes; [] until sealed
	Note       string   `json:"note"`
	ReservedAt string   `json:"reserved_at"`
	SealedAt   *string  `json:"sealed_at"`
	VerifiedAt *string  `json:"verified_at"`
	DoneAt     *string  `json:"done_at"` // applied, failed or released
	Reported   bool     `json:"-"`       // the supervisor said nobody applied it
}

// MarshalJSON writes the patch with files a list even before its diff is
// written, so that a patch names the same keys in every state.
func (p Patch) MarshalJSON() ([]byte, error) {
	type wire Patch
	w := wire(p)
	if w.Files == nil {
		w.Files = []string{}
	}
	return json.Marshal(w)
}

// pending reports whether the patch blocks closing its round: sealed (or
// verified) and neither applied nor released, or failed to apply.
func (p *Patch) pending() bool {
	switch p.State {
	case PatchSealed, PatchVerified, PatchFailed:
		return true
	}
	return false
}

// Evidence kinds.
const (
	EvidenceTests     = "tests"
	EvidenceLint      = "lint"
	EvidenceTypecheck = "typecheck"
	EvidenceCommit    = "commit"
	EvidencePR        = "pr"
)

// EvidenceKinds lists the kinds of evidence.
var EvidenceKinds = []string{EvidenceTests, EvidenceLint, EvidenceTypecheck, EvidenceCommit, EvidencePR}

// Evidence is a fact an agent recorded for a round: a test run, a lint, a
// commit, a PR. It is self-declared; the transcript says who declared it.
type Evidence struct {
	ID     int64  `json:"id"`
	Round  int    `json:"round"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Passed bool   `json:"passed"`
	Role   string `json:"role"`
	At     string `json:"at"`
}

// TaskFilter selects tasks: of one round (0: every round), in one state
// ("": any), at most Limit (0: all).
type TaskFilter struct {
	Round int
	State string
	Limit int
}

// PatchFilter selects patches: of one round (0: every round), in one of
// States (none: any state).
type PatchFilter struct {
	Round  int
	States []string
}

// PendingStates are the states of a patch that keeps a round from
// closing: sealed (or verified) and neither applied nor released, or
// failed to apply.
var PendingStates = []string{PatchSealed, PatchVerified, PatchFailed}

// TranscriptFilter selects transcript entries: the last Limit of those
// after entry After (or at or after time Since), oldest first.
type TranscriptFilter struct {
	After int64
	Since string
	Kinds []string // only these kinds; empty for all
	Round int      // only this round; 0 for all
	Limit int
}

// PairFilter selects pairs.
type PairFilter struct {
	Project string // a project's slug; "" for every project
	Folder  string // pairs on this working folder; "" for any
	Live    bool   // only live pairs
}

// NewPair is a pair to make; the store gives it its id.
type NewPair struct {
	Project, Folder, Task          string
	Mode, Autonomy, AutonomySource string
	PinnedWriter                   string
	Members                        []string
	Budget                         Budget
}

// Store keeps pairs. It runs each rule in one transaction: Update's
// function reads and writes through its Tx, and an error it returns rolls
// everything back. Every write that adds to the transcript also appends a
// row to desk's change feed (type pair) in the same transaction, which is
// how other processes hear of it: Watch follows that feed.
//
// Every backend passes the suite in package pairtest unchanged.
type Store interface {
	// CreatePair makes a pair in project slug (NotFound for an unknown
	// project) with its members, and returns it.
	CreatePair(ctx context.Context, n NewPair, by string) (*Pair, error)
	// Pairs lists pairs, newest first.
	Pairs(ctx context.Context, f PairFilter) ([]*Pair, error)
	// View runs fn in a read transaction on pair id: every read in it sees
	// one snapshot. NotFound for an unknown pair.
	View(ctx context.Context, id string, fn func(ReadTx) error) error
	// Update runs fn in a write transaction on pair id and commits it
	// unless fn fails. The pair is read inside the transaction, after
	// any other writer's commit: two processes never both act on a state
	// one of them is about to change.
	Update(ctx context.Context, id string, fn func(Tx) error) error
	// Watch calls fn with every batch of feed rows committed after seq
	// after, by this process or any other, until ctx ends.
	Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error
}

// ReadTx is what a rule reads.
type ReadTx interface {
	// Now is the transaction's one time.
	Now() time.Time
	// Seq is the change feed's position as of this transaction: a wait
	// that begins after it misses nothing committed later.
	Seq() (int64, error)
	// Pair is the pair with its roster.
	Pair() *Pair
	// Tasks returns the tasks the filter selects, oldest first.
	Tasks(f TaskFilter) ([]Task, error)
	// CountTasks counts the tasks the filter selects (its Limit aside).
	CountTasks(f TaskFilter) (int, error)
	// Task returns task n, or nil.
	Task(n int) (*Task, error)
	// Patches returns the patches the filter selects, oldest first.
	Patches(f PatchFilter) ([]Patch, error)
	// Patch returns patch n, or nil; PatchAt the patch whose file is at
	// path, or nil.
	Patch(n int) (*Patch, error)
	PatchAt(path string) (*Patch, error)
	// Evidence returns a round's evidence, newest last, at most limit (0:
	// all of it, else the newest limit).
	Evidence(round, limit int) ([]Evidence, error)
	// CountEvidence counts a round's evidence, only the passing with passed.
	CountEvidence(round int, passed bool) (int, error)
	// Letters returns the letters to any of roles with ids after after,
	// oldest first, at most limit.
	Letters(roles []string, after int64, limit int) ([]Letter, error)
	// CountLetters counts the letters to any of roles after after.
	CountLetters(roles []string, after int64) (int, error)
	// DeferredLetters returns the letters whose delivery waits, oldest first.
	DeferredLetters() ([]Letter, error)
	NoteIndex() ([]NoteInfo, error)
	// NoteTail returns a note's newest entries, newest first, at most limit.
	NoteTail(kind string, limit int) ([]NoteEntry, error)
	// LastNote returns the newest entry of a note, nil for none.
	LastNote(kind string) (*NoteEntry, error)
	Transcript(f TranscriptFilter) ([]Event, error)
	// CountEvents counts a round's entries of the given kinds.
	CountEvents(round int, kinds ...string) (int, error)
}

// Tx is what a rule writes.
type Tx interface {
	ReadTx
	// SavePair writes the pair's fields and its roster as p holds them.
	SavePair(p *Pair) error
	AddTask(t *Task) error // sets t.N
	SaveTask(t *Task) error
	AddPatch(p *Patch) error // sets p.N
	SavePatch(p *Patch) error
	AddEvidence(e *Evidence) error
	// Send puts a letter in a mailbox and sets its id.
	Send(l *Letter) error
	// Delivered marks a deferred letter delivered.
	Delivered(letter int64) error
	AddNote(n *NoteEntry) error
	// Log appends e to the transcript (and a row to the change feed) and
	// sets its id, time and round.
	Log(e *Event) error
}
