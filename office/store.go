package office

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"desk"
	"desk/link"
)

// Files in the data folder.
const (
	LayoutName = "office.json"       // the saved layout
	SeatsName  = "office-seats.json" // the owner's seat choices
	lockName   = "office.lock"       // held while either is read for a change and written
)

// MaxSeatChoices bounds the seat choices kept; the oldest go first.
const MaxSeatChoices = 500

// Store keeps the office's layout and the owner's seat choices in the data
// folder. Every change is a read, a check and an atomic replace of the
// file under a lock that other processes on the folder honour too, so two
// saves never interleave and a crash leaves the old file or the new one.
type Store struct {
	dir string
	mu  sync.Mutex // the lock file serialises processes; this, the goroutines of one
}

// NewStore returns the store of the office in data folder dir.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Layout returns the saved layout, or the Default one when none was saved.
// A saved file that breaks the rules (edited by hand) is an error that
// names it, rather than an office drawn from half of it.
func (s *Store) Layout() (*Layout, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, LayoutName))
	if errors.Is(err, os.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, err
	}
	l, err := Decode(b)
	if err == nil {
		err = l.Check()
	}
	if err != nil {
		return nil, desk.Errorf(desk.Internal, "the saved office in %s is not a valid layout: %s", filepath.Join(s.dir, LayoutName), desk.ErrorMessage(err)).
			WithHint("fix or delete the file; desk then shows its default office")
	}
	return l, nil
}

// Save checks l and replaces the saved layout with it, if l was made on
// the layout saved now: l.Revision must be the saved revision (0 before
// the first save). A save made on an older revision is a conflict, and
// nothing changes. It returns the layout as saved, with its new revision.
func (s *Store) Save(l *Layout) (*Layout, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := s.Layout()
	if err != nil {
		return nil, err
	}
	if l.Revision != cur.Revision {
		return nil, desk.Errorf(desk.Conflict, "the office changed since revision %d: it is at revision %d now, saved from elsewhere", l.Revision, cur.Revision).
			WithHint("read the layout again (GET /api/office/layout) and make the change on top of it")
	}
	saved := *l
	saved.Revision = cur.Revision + 1
	b, err := json.Marshal(&saved)
	if err != nil {
		return nil, err
	}
	if err := link.WriteFileAtomic(filepath.Join(s.dir, LayoutName), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("save the office: %w", err)
	}
	return &saved, nil
}

// SeatChoice is the owner's choice of a seat (a chair's uid) for one agent
// session.
type SeatChoice struct {
	Session string `json:"session"`
	Seat    string `json:"seat"`
	At      string `json:"at"`
}

// Seats are the seat choices, oldest first, with a count of their changes.
type Seats struct {
	Revision int64        `json:"revision"`
	Choices  []SeatChoice `json:"choices"`
}

// MaxSessionID bounds the session ids a seat choice may name.
const MaxSessionID = 200

// Seats returns the seat choices kept.
func (s *Store) Seats() (*Seats, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, SeatsName))
	if errors.Is(err, os.ErrNotExist) {
		return &Seats{Choices: []SeatChoice{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var out Seats
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, desk.Errorf(desk.Internal, "%s is not a list of seat choices: %v", filepath.Join(s.dir, SeatsName), err).
			WithHint("delete the file; the office then seats agents by itself")
	}
	if out.Choices == nil {
		out.Choices = []SeatChoice{}
	}
	return &out, nil
}

// Choose seats session on the chair seat of the saved layout, or lets the
// office seat it by itself again when seat is "". A seat holds one
// session: whoever had chosen it before loses the choice.
func (s *Store) Choose(session, seat string, now time.Time) (*Seats, error) {
	if session == "" || len(session) > MaxSessionID {
		return nil, desk.Errorf(desk.Invalid, "session: give the agent session's id (1 to %d bytes)", MaxSessionID)
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if seat != "" {
		l, err := s.Layout()
		if err != nil {
			return nil, err
		}
		if _, ok := l.Chair(seat); !ok {
			return nil, desk.Errorf(desk.Invalid, "seat: the office has no chair %q", clip(seat)).
				WithHint("seats are the uids of the layout's chairs (GET /api/office/layout)")
		}
	}
	cur, err := s.Seats()
	if err != nil {
		return nil, err
	}
	kept := make([]SeatChoice, 0, len(cur.Choices)+1)
	for _, c := range cur.Choices {
		if c.Session != session && (seat == "" || c.Seat != seat) {
			kept = append(kept, c)
		}
	}
	if seat != "" {
		kept = append(kept, SeatChoice{Session: session, Seat: seat, At: desk.FormatTime(now)})
	}
	if len(kept) > MaxSeatChoices {
		kept = kept[len(kept)-MaxSeatChoices:]
	}
	next := &Seats{Revision: cur.Revision + 1, Choices: kept}
	b, err := json.Marshal(next)
	if err != nil {
		return nil, err
	}
	if err := link.WriteFileAtomic(filepath.Join(s.dir, SeatsName), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("save the seat choices: %w", err)
	}
	return next, nil
}

// lock serialises changes across goroutines and processes.
func (s *Store) lock() (func(), error) {
	s.mu.Lock()
	release, err := lockFile(filepath.Join(s.dir, lockName))
	if err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("lock the office: %w", err)
	}
	return func() {
		release()
		s.mu.Unlock()
	}, nil
}
