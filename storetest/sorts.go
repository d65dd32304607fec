package storetest

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"desk"
)

// Every sort, paged, gives the order its definition gives, computed here
// from the issues' own fields.
func testEverySortMatchesItsDefinition(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	r := rand.New(rand.NewPCG(11, 12))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	day0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	statuses := []string{"reported", "open", "in_progress", "failed", "parked", "closed", "passed"}
	for i := 0; i < 60; i++ {
		// Few distinct times, so that many ties fall to the number.
		at := day0.Add(time.Duration(r.IntN(6)) * time.Hour)
		be.SetClock(db, func() time.Time { return at })
		f := desk.IssueFields{Title: ptr("issue"), Status: ptr(pick(statuses)), Priority: ptr(pick(desk.Priorities)),
			Size: ptr(pick([]string{"", "S", "M", "L"})), Area: ptr(pick([]string{"", "terrain", "Terrain", "ui", "Audio", "audio"}))}
		MustIssue(t, db, f, "owner")
	}
	all, err := db.Issues(ctx, "mygame", desk.IssueFilter{Limit: 5000, Status: desk.Statuses})
	if err != nil || len(all.Issues) != 60 {
		t.Fatalf("%v, %d issues", err, len(all.Issues))
	}
	// The definitions are the domain's (desk.IssueOrder); this store
	// computes its lists its own way, and must give the same pages.
	defs := map[string]func(a, b *desk.Issue) int{}
	for _, sort := range []string{desk.SortTriage, desk.SortUpdated, desk.SortCreated, desk.SortOldest, desk.SortPriority,
		desk.SortNumber, desk.SortBacklog} {
		defs[sort] = desk.IssueOrder(sort, desk.BacklogAreaRanks(all.Issues))
	}
	for sort, def := range defs {
		want := slices.Clone(all.Issues)
		slices.SortStableFunc(want, def)
		for _, page := range [][2]int{{0, 60}, {0, 7}, {3, 7}, {20, 25}, {55, 10}} {
			l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Sort: sort, Offset: page[0], Limit: page[1], Status: desk.Statuses})
			if err != nil {
				t.Fatal(err)
			}
			end := min(page[0]+page[1], len(want))
			if len(l.Issues) != end-page[0] {
				t.Fatalf("%s %v: %d issues; want %d", sort, page, len(l.Issues), end-page[0])
			}
			for i, is := range l.Issues {
				if w := want[page[0]+i]; is.ID != w.ID {
					t.Fatalf("%s, offset %d limit %d: place %d holds %s (%s %s %s %q); want %s (%s %s %s %q)", sort, page[0], page[1], page[0]+i,
						is.ID, is.Status, is.Priority, is.Size, is.Area, w.ID, w.Status, w.Priority, w.Size, w.Area)
				}
			}
		}
	}
}
