// Package live keeps the server's picture of every agent session on the
// machine: it decodes hook reports, applies them to one agent.Tracker,
// persists what changed, and announces it on the change feed, so that the
// API answers from memory and every live stream hears of a change within
// milliseconds.
//
// One Service runs per server. Reports arrive through Receive (the HTTP
// intake) and from the spool that hooks write while no server runs; a loop
// every half second follows transcripts (when asked), runs the tracker's
// timers, replays the spool if it grew and ties the issues agents touched
// through desk's MCP tools to their sessions; a writer goroutine saves
// changes in group commits, so a burst of events costs one transaction.
//
// At Open the Service takes a new agent generation from the store. If
// another server starts on the same data folder later, this one's saves
// are refused, and it answers reports with ErrUnavailable, so their hooks
// spool them for the newer server instead. The team server's replicas
// share one store instead (Options.Shared): they all write with its one
// generation, and each follows the others' saves through the change feed
// (Follow), so the store is the picture and each memory a cache of it.
package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"desk/agent"
	_ "desk/agent/all" // every client's mapping
	"desk/agent/intake"
	"desk/sqlite"
)

// Store is what the Service needs of the store (sqlite.DB implements it).
type Store interface {
	StartAgents(ctx context.Context) (int64, error)
	AgentGeneration(ctx context.Context) (int64, error)
	SaveAgents(ctx context.Context, b sqlite.AgentBatch) error
	TrimAgentEvents(ctx context.Context, sessions []string) error
	LoadAgents(ctx context.Context, since time.Time, limit int) ([]agent.Session, error)
	AgentTouchesAfter(ctx context.Context, after int64) ([]*sqlite.AgentTouch, error)
	LastAgentTouch(ctx context.Context) (int64, error)
	UnmatchedAgentTouches(ctx context.Context, since time.Time) ([]*sqlite.AgentTouch, error)
	PruneAgents(ctx context.Context, before time.Time) (int, error)
}

// Options configure a Service.
type Options struct {
	// DataDir is the data folder: the hook token, the spool and the
	// project links live there.
	DataDir string
	// Logger gets a line for every report refused or ignored, with why.
	Logger *slog.Logger
	// Transcripts turns on the transcript fallback for sessions whose
	// hooks are not installed, reading under Home.
	Transcripts bool
	Home        string
	// Tick is how often timers run, transcripts are read and the spool is
	// checked (default 500 ms).
	Tick time.Duration
	// Keep is how long the store keeps a session after its last event
	// (default a week).
	Keep time.Duration
	// Now is the clock (default time.Now); Timers the tracker's delays
	// (default agent.DefaultTimers).
	Now    func() time.Time
	Timers *agent.Timers
	// Shared says that other servers keep agents in the same store (the
	// team server's replicas on one database). Then every server writes
	// with the store's one generation instead of superseding the others,
	// a report is answered only once its events are saved, and Follow
	// keeps the picture up to date with what the others saved: the store
	// and its feed are the truth, and memory a cache of them.
	Shared bool
}

// ErrUnavailable is returned for reports the Service cannot take now: it
// was closed, a newer server took over, or its queue is full. The hook
// then keeps the report in the spool.
var ErrUnavailable = errors.New("agent tracking is not available here now")

// maxQueued bounds the events waiting for the writer. Past it, reports
// are turned away (and spooled by their hooks) rather than held in memory
// while the store is stuck.
const maxQueued = 100_000

// Service is the live agent picture of one server. It is safe for
// concurrent use.
type Service struct {
	store   Store
	opts    Options
	log     *slog.Logger
	tracker *agent.Tracker
	watcher *agent.Watcher
	gen     int64
	token   string
	links   *links

	mu      sync.Mutex // orders Apply with the queue, so later snapshots win
	queue   *batch
	wake    chan struct{}
	started bool
	closed  bool

	lastTouch int64 // the latest issue touch matched; the tick loop's own

	trimMu    sync.Mutex
	untrimmed map[string]bool // sessions saved with new events since the last trim

	superseded atomic.Bool
	stats      counters

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a Service over store. It does nothing until Start.
func New(store Store, o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tick <= 0 {
		o.Tick = 500 * time.Millisecond
	}
	if o.Keep <= 0 {
		o.Keep = 7 * 24 * time.Hour
	}
	s := &Service{store: store, opts: o, log: o.Logger, queue: newBatch(), wake: make(chan struct{}, 1),
		links: newLinks(o.DataDir), untrimmed: map[string]bool{}}
	s.tracker = agent.NewTracker()
	s.tracker.Now = o.Now
	if o.Timers != nil {
		s.tracker.Timers = *o.Timers
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// Start makes this server the one that tracks agents on the data folder
// (a new generation), restores the sessions the store kept, replays the
// reports hooks spooled while no server ran, and starts the goroutines.
// Close stops them and saves what is pending.
func (s *Service) Start(ctx context.Context) error {
	if s.opts.DataDir == "" {
		return errors.New("live: no data folder")
	}
	var err error
	if s.token, err = intake.Token(s.opts.DataDir); err != nil {
		return err
	}
	if s.opts.Shared {
		s.gen, err = s.sharedGeneration(ctx)
	} else {
		s.gen, err = s.store.StartAgents(ctx)
	}
	if err != nil {
		return fmt.Errorf("start agent tracking: %w", err)
	}
	if err := s.restore(ctx); err != nil {
		return err
	}
	s.drainSpool()
	if err := s.matchOpenTouches(ctx); err != nil {
		return err
	}
	if s.opts.Transcripts {
		s.watcher = agent.NewWatcher(s.opts.Home)
		s.watcher.Now = s.opts.Now
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	s.wg.Add(2)
	go s.writeLoop()
	go s.tickLoop()
	return nil
}

// restoreWithin is how recently a session must have been heard from to be
// restored: one silent for longer is most likely gone without saying so,
// and would only read unknown. The store keeps it for its history.
const restoreWithin = 24 * time.Hour

// restore loads the sessions the store kept into the tracker, with the
// launch fences their generations imply. The tracker forgets the ended
// ones on its own once they are older than its retention.
func (s *Service) restore(ctx context.Context) error {
	now := s.opts.Now()
	sessions, err := s.store.LoadAgents(ctx, now.Add(-restoreWithin), agent.MaxSessions)
	if err != nil {
		return fmt.Errorf("restore agent sessions: %w", err)
	}
	s.tracker.Restore(sessions)
	for _, ss := range sessions {
		if ss.Launch != "" && ss.Generation > 0 {
			s.tracker.Fence(ss.Launch, ss.Generation)
		}
	}
	if len(sessions) > 0 {
		s.log.Info("restored agent sessions", "sessions", len(sessions), "generation", s.gen)
	}
	return nil
}

// Close stops the Service and saves what is pending.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	started := s.started
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	if !started {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.flush(ctx)
}

// Token is the install's hook token, which POST /api/hooks requires.
func (s *Service) Token() string { return s.token }

// Generation is this server's agent generation: later than every server
// that ran on the data folder before it.
func (s *Service) Generation() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Stats counts what the Service did since it opened.
func (s *Service) Stats() Stats { return s.stats.snapshot() }

// Stats are the Service's counters.
type Stats struct {
	Reports   int64 // reports received, spool replays included
	Events    int64 // events applied to the tracker (late ones included)
	Late      int64 // events older than one already applied
	Ignored   int64 // reports or events refused or dropped, each logged with why
	Persisted int64 // events saved to the store
	Batches   int64 // transactions the writer committed
	Spooled   int64 // reports replayed from the spool
	Followed  int64 // sessions read again after another server saved them (Options.Shared)
}

type counters struct {
	reports, events, late, ignored, persisted, batches, spooled, followed atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Reports: c.reports.Load(), Events: c.events.Load(), Late: c.late.Load(), Ignored: c.ignored.Load(),
		Persisted: c.persisted.Load(), Batches: c.batches.Load(), Spooled: c.spooled.Load(),
		Followed: c.followed.Load(),
	}
}
