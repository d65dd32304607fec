package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"desk"
)

func ids(l *desk.IssueList) []string {
	out := make([]string, len(l.Issues))
	for i, is := range l.Issues {
		out[i] = is.ID
	}
	return out
}

func testListFacetsIgnoreTheirOwnFilter(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("a"), Status: ptr("open"), Priority: ptr("p1"), Area: ptr("Terrain"), Size: ptr("S"), Milestone: ptr("Beta")}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("b"), Status: ptr("closed"), Priority: ptr("p1"), Area: ptr("terrain"), Seed: seedPtr(42)}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("c"), Status: ptr("open"), Priority: ptr("p2"), Area: ptr("ai"), Milestone: ptr("beta")}, "owner")
	l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Status: []string{"open"}, Priority: []string{"p1"}, Area: []string{"TERRAIN"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 1 || l.Issues[0].ID != "MG-1" {
		t.Fatalf("total %d %v", l.Total, ids(l))
	}
	c := l.Counts
	if c.Status["open"] != 1 || c.Status["closed"] != 1 {
		t.Errorf("status facet %v (should ignore the status filter only)", c.Status)
	}
	if c.Priority["p1"] != 1 || c.Priority["p2"] != 0 {
		t.Errorf("priority facet %v", c.Priority)
	}
	if c.Area["Terrain"] != 1 || c.Area["ai"] != 0 {
		t.Errorf("area facet %v", c.Area)
	}
	all, _ := db.Issues(ctx, "mygame", desk.IssueFilter{})
	if all.Counts.Area["Terrain"] != 2 || all.Counts.Milestone["Beta"] != 2 || all.Counts.Seed["42"] != 1 || all.Counts.Size["none"] != 2 {
		t.Errorf("case-insensitive facets %+v", all.Counts)
	}
	byID, err := db.Issues(ctx, "mygame", desk.IssueFilter{IDs: []string{"mg-3", "MG-1"}, Sort: "number"})
	if err != nil || len(byID.Issues) != 2 || byID.Issues[0].ID != "MG-3" || byID.Issues[1].ID != "MG-1" {
		t.Errorf("id filter: %v %v", ids(byID), err)
	}
	if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{IDs: []string{"nonsense"}}); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("bad id: %v", err)
	}
	seed := int64(42)
	bySeed, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Seed: &seed})
	sized, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Size: []string{"none"}})
	if bySeed.Total != 1 || sized.Total != 2 {
		t.Errorf("seed %d size-none %d", bySeed.Total, sized.Total)
	}
}

func seedPtr(n int64) **int64 { p := &n; return &p }

func testListSortsAndPagesMatchIndependentKeys(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	be.SetClock(db, fixedClock(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)))
	MustProject(t, db)
	statuses := desk.Statuses
	sizes := []string{"S", "M", "L", ""}
	areas := []string{"", "terrain", "AI", "ui"}
	for i := 0; i < 18; i++ {
		MustIssue(t, db, desk.IssueFields{Title: ptr(fmt.Sprintf("issue %d", i)), Status: ptr(statuses[i%len(statuses)]),
			Priority: ptr(desk.Priorities[(i*7)%4]), Size: ptr(sizes[(i*5)%4]), Area: ptr(areas[(i*3)%4])}, "owner")
	}
	// Touch some so that updated_at differs from created_at order.
	for _, id := range []string{"MG-3", "MG-9", "MG-1"} {
		db.UpdateIssue(ctx, id, desk.IssueFields{Body: ptr("touched")}, "owner")
	}
	full, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Limit: 100})
	rank := func(list []string, v string) int {
		for i, s := range list {
			if strings.EqualFold(s, v) {
				return i
			}
		}
		return len(list)
	}
	keys := map[string]func(a, b *desk.Issue) bool{
		"triage": func(a, b *desk.Issue) bool {
			if ra, rb := rank(desk.TriageOrder, a.Status), rank(desk.TriageOrder, b.Status); ra != rb {
				return ra < rb
			}
			if a.Priority != b.Priority {
				return a.Priority < b.Priority
			}
			if a.UpdatedAt != b.UpdatedAt {
				return a.UpdatedAt > b.UpdatedAt
			}
			return a.Number > b.Number
		},
		"updated": func(a, b *desk.Issue) bool {
			if a.UpdatedAt != b.UpdatedAt {
				return a.UpdatedAt > b.UpdatedAt
			}
			return a.Number > b.Number
		},
		"oldest": func(a, b *desk.Issue) bool { return a.Number < b.Number },
		"number": func(a, b *desk.Issue) bool { return a.Number > b.Number },
		"backlog": func(a, b *desk.Issue) bool {
			if a.Priority != b.Priority {
				return a.Priority < b.Priority
			}
			if sa, sb := rank([]string{"S", "M", "L", ""}, a.Size), rank([]string{"S", "M", "L", ""}, b.Size); sa != sb {
				return sa < sb
			}
			if (a.Area == "") != (b.Area == "") {
				return b.Area == ""
			}
			if la, lb := strings.ToLower(a.Area), strings.ToLower(b.Area); la != lb {
				return la < lb
			}
			return a.Number < b.Number
		},
	}
	for name, less := range keys {
		t.Run(name, func(t *testing.T) {
			want := append([]*desk.Issue(nil), full.Issues...)
			sort.SliceStable(want, func(i, j int) bool { return less(want[i], want[j]) })
			got, err := db.Issues(ctx, "mygame", desk.IssueFilter{Sort: name, Offset: 3, Limit: 7})
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs []string
			for _, is := range want[3:10] {
				wantIDs = append(wantIDs, is.ID)
			}
			if strings.Join(ids(got), " ") != strings.Join(wantIDs, " ") || got.Total != 18 {
				t.Fatalf("got %v, want %v", ids(got), wantIDs)
			}
		})
	}
}

func testListSummaryKeepsMetadata(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("x"), Body: ptr("long body")}, "owner")
	db.SetPlan(ctx, is.ID, []desk.Step{{Text: "a", State: "done"}, {Text: "b"}}, nil, "owner")
	full, _ := db.Issues(ctx, "mygame", desk.IssueFilter{})
	sum, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Summary: true})
	if full.Issues[0].Body != "long body" || len(full.Issues[0].Plan.Steps) != 2 {
		t.Fatalf("full list lacks body or plan: %+v", full.Issues[0])
	}
	if sum.Issues[0].Progress != (desk.Progress{Done: 1, Total: 2}) {
		t.Fatalf("summary lost progress")
	}
	b, _ := sum.MarshalJSON()
	if strings.Contains(string(b), "long body") || strings.Contains(string(b), `"steps"`) || !strings.Contains(string(b), `"plan_progress"`) {
		t.Fatalf("summary JSON %s", b)
	}
}

func testListErrors(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	for name, f := range map[string]desk.IssueFilter{
		"ErrStatus": {Status: []string{"done"}}, "ErrSort": {Sort: "random"}, "ErrSize": {Size: []string{"XL"}},
		"ErrSince": {Since: "yesterday"}, "ErrOffset": {Offset: -1}, "ErrKind": {Kind: []string{"epic"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := db.Issues(ctx, "mygame", f)
			wantCode(t, err, desk.Invalid)
		})
	}
	_, err := db.Issues(ctx, "nope", desk.IssueFilter{})
	wantCode(t, err, desk.NotFound)
}

// A title holding the index's field separator still lists right.
func testListRowWithSeparatorInTitle(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("odd\x1ftitle"), Area: ptr("a\x1fb"), Tags: &[]string{"t"}}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("plain"), Tags: &[]string{"t"}}, "owner")
	l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Sort: "oldest", Tag: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 2 || l.Issues[0].Title != "odd\x1ftitle" || l.Issues[0].Area != "a\x1fb" || l.Issues[0].ID != "MG-1" || len(l.Issues[0].Tags) != 1 {
		t.Fatalf("%+v", l.Issues[0])
	}
}
