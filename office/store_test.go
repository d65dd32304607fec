package office_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/office"
)

func TestTheStoreSavesOnTheRevisionItWasMadeOn(t *testing.T) {
	dir := t.TempDir()
	s := office.NewStore(dir)
	l, err := s.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if l.Revision != 0 {
		t.Fatalf("an unsaved office has revision %d", l.Revision)
	}
	if _, err := os.Stat(filepath.Join(dir, office.LayoutName)); !os.IsNotExist(err) {
		t.Fatalf("reading the default office wrote a file: %v", err)
	}
	l.Tiles[l.Cols+1] = office.FloorFirst + 3
	saved, err := s.Save(l)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Revision != 1 {
		t.Errorf("first save has revision %d", saved.Revision)
	}
	// A second edit made on revision 0 is refused, and changes nothing.
	stale := office.Default()
	stale.Tiles[stale.Cols+1] = office.FloorFirst + 5
	if _, err := s.Save(stale); desk.ErrorCode(err) != desk.Conflict || !strings.Contains(err.Error(), "since revision 0: it is at revision 1") {
		t.Fatalf("a stale save: %v", err)
	}
	// A new store on the same folder (a restarted server) reads what was saved.
	again, err := office.NewStore(dir).Layout()
	if err != nil {
		t.Fatal(err)
	}
	if again.Revision != 1 || again.Tiles[again.Cols+1] != office.FloorFirst+3 {
		t.Errorf("after a restart: revision %d, tile %d", again.Revision, again.Tiles[again.Cols+1])
	}
	// An invalid layout is refused before the file is touched.
	bad := *again
	bad.Cols = 99
	if _, err := s.Save(&bad); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("an invalid save: %v", err)
	}
	if l, _ := s.Layout(); l.Revision != 1 {
		t.Errorf("revision %d after refused saves", l.Revision)
	}
}

func TestConcurrentSavesOnOneRevisionLetOneThrough(t *testing.T) {
	dir := t.TempDir()
	// Two stores: two servers (or a server and a restarted one) on one folder.
	stores := []*office.Store{office.NewStore(dir), office.NewStore(dir)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			l := office.Default()
			l.Colors[l.Cols+1] = "#0000" + string(rune('a'+i%6)) + "0"
			_, err := stores[i%2].Save(l)
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
		}(i)
	}
	wg.Wait()
	if won != 1 || lost != 15 {
		t.Errorf("%d saves went through and %d were refused; want 1 and 15", won, lost)
	}
}

func TestABrokenSavedFileIsNamedNotHalfDrawn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, office.LayoutName), []byte(`{"version":1,"cols":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := office.NewStore(dir).Layout()
	if err == nil || !strings.Contains(err.Error(), "office.json is not a valid layout") {
		t.Errorf("error %v", err)
	}
}

func TestSeatChoicesHoldOneSessionASeat(t *testing.T) {
	dir := t.TempDir()
	s := office.NewStore(dir)
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.Choose("a", "chair-11", now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Choose("b", "chair-12", now); err != nil {
		t.Fatal(err)
	}
	// b takes a's seat: a loses it.
	seats, err := s.Choose("b", "chair-11", now)
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
		{strings.Repeat("x", 201), "chair-11", "session: give"},
	} {
		if _, err := s.Choose(c.session, c.seat, now); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Choose(%.10q, %q): %v", c.session, c.seat, err)
		}
	}
	// "" gives the seat back to the office.
	seats, err = s.Choose("b", "", now)
	if err != nil || len(seats.Choices) != 0 {
		t.Errorf("after clearing: %+v %v", seats, err)
	}
}
