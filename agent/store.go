package agent

import (
	"context"
	"time"
)

// EventsKept is how many events a store keeps per session once it is
// trimmed (Store.TrimAgentEvents); the oldest go.
const EventsKept = 200

// Batch is what the server's agent tracker persists in one transaction:
// the sessions its events changed, the events themselves, the records a
// /clear folded into others, and the issue touches it matched to sessions.
type Batch struct {
	// Generation is the writing server's, from StartAgents. A batch from an
	// older generation is refused: that server outlived a newer one's start.
	Generation int64
	Sessions   []Session // snapshots to keep, latest last; their Events are ignored
	Events     []StoredEvent
	Merged     []Merge
	Matched    []Match
}

// StoredEvent is one event of one session, as the tracker recorded it.
type StoredEvent struct {
	Session string // the record id
	Event   Event
}

// Merge says that record From was folded into record Into; its events and
// issues move there and it is deleted.
type Merge struct{ From, Into string }

// Match ties an issue touch (Touch.ID) to the session behind it.
type Match struct {
	Touch   int64
	Session string
}

// Touch is one issue an agent touched through desk's MCP tools, with what
// the MCP server knew of the session behind the call.
type Touch struct {
	ID       int64
	Session  string // the record id; "" until matched
	Client   string
	Provider string // the provider session id the client passed, if any
	Cwd      string
	Project  string
	Issue    string // the issue key, "MG-12"
	At       time.Time
}

// Store keeps the agent sessions of a desk: every backend of the work's
// records implements it (the embedded one and the team server's), and one
// test suite holds them to the same behaviour.
type Store interface {
	// StartAgents makes the caller the server that tracks agents: it
	// returns a new generation, and batches saved under any older one are
	// refused from then on.
	StartAgents(ctx context.Context) (int64, error)
	// AgentGeneration returns the generation of the server that tracks
	// agents now (0 when none ever did).
	AgentGeneration(ctx context.Context) (int64, error)
	// SaveAgents persists one batch in one transaction, with one agent feed
	// row per session it changed.
	SaveAgents(ctx context.Context, b Batch) error
	// TrimAgentEvents keeps the latest EventsKept events of each listed
	// session (record ids).
	TrimAgentEvents(ctx context.Context, sessions []string) error
	// LoadAgents returns the sessions updated since since, the most
	// recently updated first, at most limit, with their recent events and
	// every issue they touched.
	LoadAgents(ctx context.Context, since time.Time, limit int) ([]Session, error)
	// AgentEvents returns a session's last n events, oldest first, with
	// their raw payloads.
	AgentEvents(ctx context.Context, session string, n int) ([]Event, error)
	// AgentTouched records that an agent touched an issue through desk's
	// MCP tools.
	AgentTouched(ctx context.Context, client, provider, cwd, issue string) error
	// AgentTouchesAfter returns the touches recorded after touch after,
	// oldest first, at most 1000.
	AgentTouchesAfter(ctx context.Context, after int64) ([]*Touch, error)
	// LastAgentTouch returns the id of the latest touch, 0 for none.
	LastAgentTouch(ctx context.Context) (int64, error)
	// UnmatchedAgentTouches returns the touches not yet tied to a session,
	// made at or after since, oldest first.
	UnmatchedAgentTouches(ctx context.Context, since time.Time) ([]*Touch, error)
	// AgentLastSeen returns, per client, when its hooks last reached the
	// store.
	AgentLastSeen(ctx context.Context) (map[string]time.Time, error)
	// PruneAgents deletes sessions last heard of before before, with their
	// rows, and the agent rows of the feed written before then.
	PruneAgents(ctx context.Context, before time.Time) (int, error)
}
