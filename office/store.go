package office

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"desk"
)

// Doc names one of the two documents the office keeps.
type Doc string

// The office's documents.
const (
	DocLayout Doc = "layout" // the saved layout
	DocSeats  Doc = "seats"  // the owner's seat choices
)

// Backend keeps the office's documents as the JSON the rules wrote: in
// the data folder for the embedded desk (Folder), in the database for the
// team server. It knows nothing of what they hold; every rule is Store's.
// Every backend passes the suite in package officetest unchanged.
type Backend interface {
	// Read returns the saved document, or nil when none was saved.
	Read(ctx context.Context, doc Doc) ([]byte, error)
	// Change runs fn holding the documents against every other change,
	// by this process or any other, so that what fn reads stays what is
	// saved until it writes. Each write is announced to every open
	// office (the change feed) once it is kept.
	Change(ctx context.Context, fn func(Tx) error) error
	// Where says where doc is kept, for messages: a file's path, or a
	// table.
	Where(doc Doc) string
}

// Tx is what a change reads and writes.
type Tx interface {
	// Read returns the saved document, or nil.
	Read(doc Doc) ([]byte, error)
	// Write replaces doc with b, which holds revision.
	Write(doc Doc, b []byte, revision int64) error
}

// MaxSeatChoices bounds the seat choices kept; the oldest go first.
const MaxSeatChoices = 500

// Store keeps the office's layout and the owner's seat choices in a
// Backend, under the office's rules: a layout is checked before it is
// saved, and saved only on the revision it was made on; a seat holds one
// session and names a chair of the saved layout.
type Store struct {
	b Backend
}

// New returns the office kept by b.
func New(b Backend) *Store { return &Store{b: b} }

// NewStore returns the office kept in data folder dir, with no
// announcements (see NewFolder).
func NewStore(dir string) *Store { return New(NewFolder(dir, nil)) }

// Layout returns the saved layout, or the Default one when none was saved.
// A saved layout that breaks the rules (edited by hand) is an error that
// names where it is, rather than an office drawn from half of it.
func (s *Store) Layout(ctx context.Context) (*Layout, error) {
	b, err := s.b.Read(ctx, DocLayout)
	if err != nil {
		return nil, err
	}
	return s.layoutOf(b)
}

func (s *Store) layoutOf(b []byte) (*Layout, error) {
	if b == nil {
		return Default(), nil
	}
	l, err := Decode(b)
	if err == nil {
		err = l.Check()
	}
	if err != nil {
		return nil, desk.Errorf(desk.Internal, "the saved office in %s is not a valid layout: %s", s.b.Where(DocLayout), desk.ErrorMessage(err)).
			WithHint("fix or delete it; desk then shows its default office")
	}
	return l, nil
}

// Save checks l and replaces the saved layout with it, if l was made on
// the layout saved now: l.Revision must be the saved revision (0 before
// the first save). A save made on an older revision is a conflict, and
// nothing changes. It returns the layout as saved, with its new revision.
func (s *Store) Save(ctx context.Context, l *Layout) (*Layout, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	var saved *Layout
	err := s.b.Change(ctx, func(tx Tx) error {
		b, err := tx.Read(DocLayout)
		if err != nil {
			return err
		}
		cur, err := s.layoutOf(b)
		if err != nil {
			return err
		}
		if l.Revision != cur.Revision {
			return desk.Errorf(desk.Conflict, "the office changed since revision %d: it is at revision %d now, saved from elsewhere", l.Revision, cur.Revision).
				WithHint("read the layout again (GET /api/office/layout) and make the change on top of it")
		}
		next := *l
		next.Revision = cur.Revision + 1
		out, err := json.Marshal(&next)
		if err != nil {
			return err
		}
		if err := tx.Write(DocLayout, out, next.Revision); err != nil {
			return fmt.Errorf("save the office: %w", err)
		}
		saved = &next
		return nil
	})
	return saved, err
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
func (s *Store) Seats(ctx context.Context) (*Seats, error) {
	b, err := s.b.Read(ctx, DocSeats)
	if err != nil {
		return nil, err
	}
	return s.seatsOf(b)
}

func (s *Store) seatsOf(b []byte) (*Seats, error) {
	out := Seats{Choices: []SeatChoice{}}
	if b == nil {
		return &out, nil
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, desk.Errorf(desk.Internal, "%s is not a list of seat choices: %v", s.b.Where(DocSeats), err).
			WithHint("delete it; the office then seats agents by itself")
	}
	if out.Choices == nil {
		out.Choices = []SeatChoice{}
	}
	return &out, nil
}

// Choose seats session on the chair seat of the saved layout, or lets the
// office seat it by itself again when seat is "". A seat holds one
// session: whoever had chosen it before loses the choice.
func (s *Store) Choose(ctx context.Context, session, seat string, now time.Time) (*Seats, error) {
	if session == "" || len(session) > MaxSessionID {
		return nil, desk.Errorf(desk.Invalid, "session: give the agent session's id (1 to %d bytes)", MaxSessionID)
	}
	var next *Seats
	err := s.b.Change(ctx, func(tx Tx) error {
		if seat != "" {
			b, err := tx.Read(DocLayout)
			if err != nil {
				return err
			}
			l, err := s.layoutOf(b)
			if err != nil {
				return err
			}
			if _, ok := l.Chair(seat); !ok {
				return desk.Errorf(desk.Invalid, "seat: the office has no chair %q", clip(seat)).
					WithHint("seats are the uids of the layout's chairs (GET /api/office/layout)")
			}
		}
		b, err := tx.Read(DocSeats)
		if err != nil {
			return err
		}
		cur, err := s.seatsOf(b)
		if err != nil {
			return err
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
		next = &Seats{Revision: cur.Revision + 1, Choices: kept}
		out, err := json.Marshal(next)
		if err != nil {
			return err
		}
		if err := tx.Write(DocSeats, out, next.Revision); err != nil {
			return fmt.Errorf("save the seat choices: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return next, nil
}
