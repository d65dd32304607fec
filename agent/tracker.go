package agent

import (
	"strconv"
	"sync"
	"time"

	"desk"
)

// Limits on what a Tracker holds in memory; the store keeps the rest.
const (
	MaxSessions = 2000 // records; the least recently updated ended one goes first
	MaxIssues   = 100  // issues listed per session
	maxOpen     = 16   // tool calls tracked as running at once per session
	maxAliases  = 32   // provider ids remembered per record
)

// Timers are the delays of the state machine. The heuristic ones apply only
// to sessions known from transcripts alone; hooks make them unnecessary.
type Timers struct {
	// WorkingLease is how long a working session may stay silent before its
	// state is no longer asserted by anything and reads unknown.
	WorkingLease time.Duration
	// PermissionGuess is the silence after a tool that may need approval
	// starts, past which a transcript-only session is guessed to be waiting
	// for permission.
	PermissionGuess time.Duration
	// TextIdle is the silence after a text-only answer past which a
	// transcript-only session is guessed to be done.
	TextIdle time.Duration
	// Handover is how long a session ended by /clear or /resume waits for the
	// session that continues it, and how long a session started by them
	// waits for the end of the one it continues when the two arrive swapped.
	Handover time.Duration
	// ClearIdle is how long a transcript-only session must have been quiet to
	// be taken over by a new transcript that starts with /clear.
	ClearIdle time.Duration
	// Retention is how long an ended session stays in memory.
	Retention time.Duration
}

// DefaultTimers are the delays a NewTracker starts with.
var DefaultTimers = Timers{
	WorkingLease:    15 * time.Minute,
	PermissionGuess: 7 * time.Second,
	TextIdle:        5 * time.Second,
	Handover:        2 * time.Second,
	ClearIdle:       2 * time.Second,
	Retention:       time.Hour,
}

// Tracker holds every known session in memory and applies events to them
// with one state machine for all clients. It is safe for concurrent use.
// It starts no goroutine: call Tick every few hundred milliseconds to run
// its timers.
type Tracker struct {
	// Now is the clock. Set it, and Timers, before the first call.
	Now    func() time.Time
	Timers Timers

	mu      sync.Mutex
	records map[string]*record // by record id
	index   map[string]*record // by client and provider session id, aliases included
	fences  map[string]int64   // by launch: the highest generation seen
}

// NewTracker returns an empty Tracker on the wall clock.
func NewTracker() *Tracker {
	return &Tracker{
		Now:     time.Now,
		Timers:  DefaultTimers,
		records: map[string]*record{},
		index:   map[string]*record{},
		fences:  map[string]int64{},
	}
}

// record is a session and what the state machine needs to know about it
// beyond its snapshot.
type record struct {
	s              Session
	keys           []string   // index keys pointing here
	open           []openTool // tool calls started and not ended, oldest first
	turnHadTools   bool       // the current turn ran a tool (text-idle heuristic)
	lastMessage    bool       // the last event was model text (text-idle heuristic)
	lastAt         time.Time  // time of the latest event applied to the state
	lastData       time.Time  // when the latest event arrived, by the Tracker's clock
	handoverUntil  time.Time  // ended by /clear or /resume: waiting for its successor
	adoptableUntil time.Time  // started by /clear or /resume: may still meet its predecessor
	events         ring
}

type openTool struct {
	id, tool, input string
	at              time.Time
}

// Update says what an Apply or a Tick changed, for the caller to persist and
// announce.
type Update struct {
	Session  string    // the record the event was attributed to; "" when refused or dropped, and for Tick
	Recorded bool      // the event went into that session's history
	Late     bool      // the event was older than one already applied; it did not move the state
	Sessions []Session // snapshots, after the change, of every session the call changed
	Merged   []string  // records folded into another (a /clear seen out of order); delete them
	Note     string    // why the event did not move the state, for the log
	changed  []*record
}

func (u *Update) touch(r *record) {
	for _, c := range u.changed {
		if c == r {
			return
		}
	}
	u.changed = append(u.changed, r)
}

func (u *Update) finish() Update {
	for _, r := range u.changed {
		u.Sessions = append(u.Sessions, r.s.clone())
	}
	u.changed = nil
	return *u
}

func key(client, provider string) string { return client + "\x00" + provider }

func (t *Tracker) now() time.Time { return t.Now().UTC() }

// Apply applies one event. It creates the session when the event is the
// first seen for it, keeps the event in the session's history and moves the
// state as the event says, unless the event is late (older than one already
// applied, or after the session's end with no new start since), comes from
// a transcript while hooks report the session, or comes
// from MCP while hooks report the session; Update.Note says which. It refuses
// (code invalid) an event missing its client, session or kind, and (code
// conflict) an event stamped with an older generation than its launch or
// session has seen.
func (t *Tracker) Apply(ev Event) (Update, error) {
	if err := ev.validate(); err != nil {
		return Update{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if ev.Time.IsZero() {
		ev.Time = now
	}
	ev.Time = ev.Time.UTC()

	rec := t.index[key(ev.Client, ev.Session)]
	if err := t.checkGeneration(ev, rec); err != nil {
		return Update{}, err
	}
	if rec != nil && rec.s.Hooked && ev.Source == SourceTranscript {
		return Update{Note: "hooks report this session; transcript event dropped"}, nil
	}

	var u Update
	if rec == nil && ev.Kind == KindSessionStart {
		rec = t.adopt(ev, now)
	}
	if rec == nil {
		rec = t.create(ev, &u)
		if ev.Kind == KindSessionStart && handoverReason(ev.Reason) {
			// Its predecessor's end may still be on its way (handover.go).
			rec.adoptableUntil = now.Add(t.Timers.Handover)
		}
	}
	if ev.Generation > rec.s.Generation {
		rec.s.Generation = ev.Generation
	}
	u.Session, u.Recorded = rec.s.ID, true
	u.touch(rec)

	ev.Late = ev.Time.Before(rec.lastAt)
	// After the session's end only a new start says anything about it: an
	// event from the ended process (a tool hook still on its way) is taken
	// as late, so that it cannot bring the session back to life.
	afterEnd := !ev.Late && rec.s.State == StateEnded && movesState(ev.Kind)
	ev.Late = ev.Late || afterEnd
	u.Late = ev.Late
	rec.events.push(ev)
	rec.lastData = now
	rec.absorb(&ev)
	if ev.Source == SourceHook {
		rec.s.Hooked = true
	}
	switch {
	case afterEnd:
		u.Note = "late event: the session ended and no new start followed; kept in the history, the session stays ended"
	case ev.Late:
		u.Note = "late event: kept in the history; the state stays as newer events left it"
	case ev.Source == SourceMCP && rec.s.Hooked:
		u.Note = "hooks report this session; MCP event kept in the history only"
	default:
		rec.lastAt = ev.Time
		t.transition(rec, &ev, now, &u)
	}
	return u.finish(), nil
}

// movesState reports whether an event of kind can move an ended session:
// every kind but a new start, which may, and the ones that assert nothing.
func movesState(kind Kind) bool {
	switch kind {
	case KindSessionStart, KindHeartbeat, KindNotice:
		return false
	}
	return true
}

// checkGeneration refuses an event stamped with an older generation than
// its launch or its session has seen.
func (t *Tracker) checkGeneration(ev Event, rec *record) error {
	if ev.Generation == 0 {
		return nil
	}
	if g := t.fences[ev.Launch]; ev.Launch != "" && ev.Generation < g {
		return desk.Errorf(desk.Conflict, "%s event from generation %d refused: launch %s is at generation %d", ev.Client, ev.Generation, ev.Launch, g)
	}
	if rec != nil && ev.Generation < rec.s.Generation {
		return desk.Errorf(desk.Conflict, "%s event from generation %d refused: session %s is at generation %d", ev.Client, ev.Generation, rec.s.ID, rec.s.Generation)
	}
	if ev.Launch != "" {
		t.fences[ev.Launch] = ev.Generation
	}
	return nil
}

// Fence refuses, from now on, events of launch stamped with a generation
// lower than gen. The launcher calls it when it restarts a session, before
// the old producer has a chance to speak.
func (t *Tracker) Fence(launch string, gen int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen > t.fences[launch] {
		t.fences[launch] = gen
	}
}

// create makes the record for the first event of a provider session. A
// sub-agent's parent is created first when it is not known yet.
func (t *Tracker) create(ev Event, u *Update) *record {
	t.evict()
	var p *record
	if ev.Parent != "" && ev.Parent != ev.Session {
		if p = t.index[key(ev.Client, ev.Parent)]; p == nil {
			pe := ev
			pe.Session, pe.Parent = ev.Parent, ""
			p = t.create(pe, u)
		}
	}
	id := ev.Session
	for i := 2; t.records[id] != nil; i++ {
		id = ev.Client + ":" + ev.Session
		if i > 2 {
			id += "#" + strconv.Itoa(i)
		}
	}
	r := &record{s: Session{
		ID: id, Client: ev.Client, ProviderID: ev.Session,
		Cwd: ev.Cwd, State: StateUnknown, Source: ev.Source,
		Since: ev.Time, StartedAt: ev.Time, UpdatedAt: ev.Time,
	}}
	k := key(ev.Client, ev.Session)
	r.keys = []string{k}
	t.index[k] = r
	t.records[id] = r
	if p != nil {
		r.s.Parent = p.s.ID
		if r.s.Cwd == "" {
			r.s.Cwd = p.s.Cwd
		}
		r.s.Project = p.s.Project
		p.s.Children = append(p.s.Children, id)
		u.touch(p)
	}
	return r
}

// evict makes room for one more record by forgetting the least recently
// updated one, ended ones first.
func (t *Tracker) evict() {
	if len(t.records) < MaxSessions {
		return
	}
	var victim *record
	for _, r := range t.records {
		if victim == nil || worseToKeep(r, victim) {
			victim = r
		}
	}
	t.forget(victim)
}

// worseToKeep reports whether a is a better record to forget than b: ended
// before live, then the least recently updated.
func worseToKeep(a, b *record) bool {
	ae, be := a.s.State == StateEnded, b.s.State == StateEnded
	if ae != be {
		return ae
	}
	return a.s.UpdatedAt.Before(b.s.UpdatedAt)
}

// forget removes a record from memory, with its sub-agents: they mean
// nothing without the session they belong to.
func (t *Tracker) forget(r *record) {
	for _, id := range r.s.Children {
		if c := t.records[id]; c != nil && c.s.Parent == r.s.ID {
			c.s.Parent = "" // already going; spare it the search in our list
			t.forget(c)
		}
	}
	t.unindex(r)
}

// unindex removes one record from memory and from its parent's children.
func (t *Tracker) unindex(r *record) {
	for _, k := range r.keys {
		if t.index[k] == r {
			delete(t.index, k)
		}
	}
	delete(t.records, r.s.ID)
	if p := t.records[r.s.Parent]; p != nil {
		p.s.Children = remove(p.s.Children, r.s.ID)
	}
}

func remove(ss []string, s string) []string {
	out := ss[:0]
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// absorb takes from an event what describes the session rather than its
// state: where it runs, its transcript, its model, its permission mode.
func (r *record) absorb(ev *Event) {
	if ev.Cwd != "" && (r.s.Cwd == "" || !ev.Late) {
		r.s.Cwd = ev.Cwd
	}
	if ev.Transcript != "" && (r.s.Transcript == "" || !ev.Late) {
		r.s.Transcript = ev.Transcript
	}
	if ev.Model != "" && (r.s.Model == "" || !ev.Late) {
		r.s.Model = ev.Model
	}
	if ev.PermissionMode != "" && (r.s.PermissionMode == "" || !ev.Late) {
		r.s.PermissionMode = ev.PermissionMode
	}
	if ev.Launch != "" {
		r.s.Launch = ev.Launch
	}
	if ev.Time.After(r.s.UpdatedAt) {
		r.s.UpdatedAt = ev.Time
	}
	if ev.Time.Before(r.s.StartedAt) {
		r.s.StartedAt = ev.Time // a late event shows it began earlier
	}
}
