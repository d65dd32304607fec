// Package officetest is the test suite every office.Backend passes
// unchanged: the data folder in package office's tests, the team
// server's database in package postgres's.
package officetest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/office"
)

// Announcement is a change a backend told the open offices of.
type Announcement struct {
	Doc      office.Doc
	Revision int64
}

// Backend opens the backends under test.
type Backend struct {
	// New returns a fresh backend that keeps no documents yet, closed
	// when t ends.
	New func(t *testing.T) office.Backend
	// Another returns a second handle on b's documents, as another
	// process or another replica holds.
	Another func(t *testing.T, b office.Backend) office.Backend
	// Announced returns what b's documents' announcements have said so
	// far, oldest first.
	Announced func(t *testing.T, b office.Backend) []Announcement
}

// Run runs the suite against be.
func Run(t *testing.T, be Backend) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"TheDefaultOfficeUntilOneIsSaved", testDefault},
		{"ASaveGoesThroughOnlyOnTheRevisionItWasMadeOn", testRevisions},
		{"ConcurrentSavesOnOneRevisionLetOneThroughAcrossHandles", testConcurrentSaves},
		{"SeatChoicesHoldOneSessionASeat", testSeats},
		{"ASeatIsAChairOfTheSavedLayout", testSeatsFollowTheLayout},
		{"EveryKeptChangeIsAnnouncedOnce", testAnnouncements},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, be) })
	}
}

var ctx = context.Background()

func testDefault(t *testing.T, be Backend) {
	b := be.New(t)
	s := office.New(b)
	l, err := s.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	def := office.Default()
	if l.Revision != 0 || l.Cols != def.Cols || l.Rows != def.Rows || len(l.Furniture) != len(def.Furniture) {
		t.Fatalf("an unsaved office: revision %d, %d×%d, %d items", l.Revision, l.Cols, l.Rows, len(l.Furniture))
	}
	if raw, err := b.Read(ctx, office.DocLayout); raw != nil || err != nil {
		t.Errorf("reading the default office kept a layout: %q, %v", raw, err)
	}
	seats, err := s.Seats(ctx)
	if err != nil || seats.Revision != 0 || seats.Choices == nil || len(seats.Choices) != 0 {
		t.Errorf("no seat choices yet: %+v, %v", seats, err)
	}
}

func testRevisions(t *testing.T, be Backend) {
	b := be.New(t)
	s := office.New(b)
	l, _ := s.Layout(ctx)
	l.Tiles[l.Cols+1] = office.FloorFirst + 3
	saved, err := s.Save(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Revision != 1 {
		t.Errorf("the first save has revision %d", saved.Revision)
	}
	// An edit made on revision 0 is refused, and changes nothing.
	stale := office.Default()
	stale.Tiles[stale.Cols+1] = office.FloorFirst + 5
	if _, err := s.Save(ctx, stale); desk.ErrorCode(err) != desk.Conflict || !strings.Contains(err.Error(), "since revision 0: it is at revision 1") {
		t.Fatalf("a stale save: %v", err)
	}
	// Another handle (a restarted server, another replica) reads what was saved.
	again, err := office.New(be.Another(t, b)).Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Revision != 1 || again.Tiles[again.Cols+1] != office.FloorFirst+3 {
		t.Errorf("through another handle: revision %d, tile %d", again.Revision, again.Tiles[again.Cols+1])
	}
	// An invalid layout is refused before anything is kept.
	bad := *again
	bad.Cols = 99
	if _, err := s.Save(ctx, &bad); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("an invalid save: %v", err)
	}
	// The next save builds on revision 1.
	again.Colors[again.Cols+2] = "#00FF00"
	next, err := s.Save(ctx, again)
	if err != nil || next.Revision != 2 || next.Colors[next.Cols+2] != "#00ff00" {
		t.Fatalf("the second save: %+v, %v", next, err)
	}
	if l, _ := s.Layout(ctx); l.Revision != 2 || l.Tiles[l.Cols+1] != office.FloorFirst+3 {
		t.Errorf("after the second save: revision %d", l.Revision)
	}
}

func testConcurrentSaves(t *testing.T, be Backend) {
	b := be.New(t)
	stores := []*office.Store{office.New(b), office.New(be.Another(t, b))}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := office.Default()
			l.Colors[l.Cols+1] = "#0000" + string(rune('a'+i%6)) + "0"
			_, err := stores[i%2].Save(ctx, l)
			mu.Lock()
			defer mu.Unlock()
			switch desk.ErrorCode(err) {
			case "":
				won++
			case desk.Conflict:
				lost++
			default:
				t.Errorf("save %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || lost != 15 {
		t.Errorf("%d saves went through and %d were refused; want 1 and 15", won, lost)
	}
	if l, _ := stores[1].Layout(ctx); l.Revision != 1 {
		t.Errorf("after the race the office is at revision %d", l.Revision)
	}
}

func testSeats(t *testing.T, be Backend) {
	b := be.New(t)
	s := office.New(b)
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.Choose(ctx, "a", "chair-11", now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Choose(ctx, "b", "chair-12", now); err != nil {
		t.Fatal(err)
	}
	// b takes a's seat: a loses it, and b leaves its own.
	seats, err := s.Choose(ctx, "b", "chair-11", now)
	if err != nil {
		t.Fatal(err)
	}
	if len(seats.Choices) != 1 || seats.Choices[0] != (office.SeatChoice{Session: "b", Seat: "chair-11", At: "2026-08-01T12:00:00.000Z"}) || seats.Revision != 3 {
		t.Errorf("choices %+v revision %d", seats.Choices, seats.Revision)
	}
	for _, c := range []struct{ session, seat, want string }{
		{"a", "desk-8", `no chair "desk-8"`},
		{"a", "nothing", `no chair "nothing"`},
		{"", "chair-11", "session: give"},
		{strings.Repeat("x", office.MaxSessionID+1), "chair-11", "session: give"},
	} {
		if _, err := s.Choose(ctx, c.session, c.seat, now); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Choose(%.10q, %q): %v", c.session, c.seat, err)
		}
	}
	// The refusals changed nothing, as another handle sees.
	kept, err := office.New(be.Another(t, b)).Seats(ctx)
	if err != nil || kept.Revision != 3 || len(kept.Choices) != 1 {
		t.Errorf("after the refusals: %+v, %v", kept, err)
	}
	// "" gives the seat back to the office.
	seats, err = s.Choose(ctx, "b", "", now)
	if err != nil || len(seats.Choices) != 0 || seats.Revision != 4 {
		t.Errorf("after clearing: %+v %v", seats, err)
	}
}

// A seat must be a chair of the layout saved when it is chosen: one the
// owner removed is no seat.
func testSeatsFollowTheLayout(t *testing.T, be Backend) {
	b := be.New(t)
	s := office.New(b)
	l, _ := s.Layout(ctx)
	var chair string
	l.Furniture = slices.DeleteFunc(l.Furniture, func(it office.Item) bool {
		if it.Type == "chair" && chair == "" {
			chair = it.UID
			return true
		}
		return false
	})
	if chair == "" {
		t.Fatal("the default office has no chair")
	}
	if _, err := s.Save(ctx, l); err != nil {
		t.Fatal(err)
	}
	if _, err := office.New(be.Another(t, b)).Choose(ctx, "a", chair, time.Now()); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("choosing the removed chair %s: %v", chair, err)
	}
}

func testAnnouncements(t *testing.T, be Backend) {
	b := be.New(t)
	s := office.New(b)
	l, _ := s.Layout(ctx)
	if _, err := s.Save(ctx, l); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, office.Default()); desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("a stale save: %v", err)
	}
	if _, err := s.Choose(ctx, "a", "chair-11", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Choose(ctx, "a", "no-such-chair", time.Now()); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("a choice of no chair: %v", err)
	}
	got := be.Announced(t, b)
	want := []Announcement{{office.DocLayout, 1}, {office.DocSeats, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("announced %+v, want %+v", got, want)
	}
}
