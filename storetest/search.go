package storetest

import (
	"context"
	"strings"
	"testing"

	"desk"
)

func searchDesk(t *testing.T, be *Backend) *searchDB {
	t.Helper()
	db := be.Open(t)
	MustProject(t, db)
	ctx := context.Background()
	MustIssue(t, db, desk.IssueFields{Title: ptr("Harbor crane is floating"), Body: ptr("The lava near the dock glows")}, "owner")                   // MG-1 body hit
	MustIssue(t, db, desk.IssueFields{Title: ptr("Lava tips are square"), Area: ptr("terrain")}, "owner")                                            // MG-2 title hit
	c := MustIssue(t, db, desk.IssueFields{Title: ptr("Rendering glitch"), Area: ptr("rendering")}, "owner")                                         // MG-3 comment hit
	MustIssue(t, db, desk.IssueFields{Title: ptr("Workers idle"), Body: ptr("tips of the lava flows look wrong"), Tags: &[]string{"lava"}}, "owner") // MG-4 words apart
	MustIssue(t, db, desk.IssueFields{Title: ptr("Refactor WorldStore saving"), Area: ptr("save")}, "owner")                                         // MG-5
	MustIssue(t, db, desk.IssueFields{Title: ptr("Crash"), Body: ptr("lava tips crash the game"), Area: ptr("terrain")}, "owner")                    // MG-6 words side by side
	db.AddComment(ctx, c.ID, desk.CommentInput{Text: "I saw lava through the wall"})
	return &searchDB{db}
}

type searchDB struct{ Store }

func (s *searchDB) q(t *testing.T, f desk.IssueFilter) *desk.IssueList {
	t.Helper()
	l, err := s.Issues(context.Background(), "mygame", f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func testSearchRanksTitleBodyComments(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	l := s.q(t, desk.IssueFilter{Q: "lava"})
	if l.Search == nil || l.Search.Mode != "ranked" {
		t.Fatalf("mode %+v", l.Search)
	}
	got := ids(l)
	if len(got) != 5 || got[0] != "MG-2" || got[len(got)-1] != "MG-3" {
		t.Fatalf("order %v: want the title hit first and the comment-only hit last", got)
	}
	fields := map[string]string{}
	for _, is := range l.Issues {
		if is.Match == nil || is.Match.Excerpt == "" {
			t.Fatalf("%s has no match: %+v", is.ID, is.Match)
		}
		fields[is.ID] = is.Match.Field
	}
	if fields["MG-2"] != "title" || fields["MG-1"] != "body" || fields["MG-3"] != "comments" || fields["MG-4"] != "details" {
		t.Fatalf("fields %v", fields)
	}
}

func testSearchWordsSideBySideRankHigher(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	got := ids(s.q(t, desk.IssueFilter{Q: "lava tips"}))
	// MG-2 has both in the title; MG-6 side by side in the body; MG-4 apart.
	if len(got) != 3 || got[0] != "MG-2" || got[1] != "MG-6" || got[2] != "MG-4" {
		t.Fatalf("order %v", got)
	}
}

func testSearchModes(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	cases := []struct {
		q, mode string
		want    []string
	}{
		{`"lava tips"`, "ranked", []string{"MG-2", "MG-6"}},
		{"worker", "ranked", []string{"MG-4"}},   // stemmed: Workers
		{"glow", "ranked", []string{"MG-1"}},     // stemmed: glows
		{"harb*", "ranked", []string{"MG-1"}},    // prefix
		{"harb", "ranked", []string{"MG-1"}},     // no whole word: prefixes next
		{"Store", "substring", []string{"MG-5"}}, // part of WorldStore
		{"MG-5", "ranked", []string{"MG-5"}},
		{"zebra", "substring", nil},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			l := s.q(t, desk.IssueFilter{Q: c.q})
			if l.Search == nil || l.Search.Mode != c.mode {
				t.Fatalf("mode %+v, want %s", l.Search, c.mode)
			}
			got := ids(l)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func testSearchFallsThroughWhenFiltersLeaveNothing(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	// "save" ranks only in MG-5's area; with area terrain nothing ranks,
	// so prefixes and then substrings are tried.
	l := s.q(t, desk.IssueFilter{Q: "lava", Area: []string{"save"}})
	if l.Total != 0 {
		t.Fatalf("%v", ids(l))
	}
	l = s.q(t, desk.IssueFilter{Q: "lava", Area: []string{"terrain"}, BoostArea: "terrain"})
	if l.Total != 2 || l.Counts.Area["terrain"] != 2 {
		t.Fatalf("facets with q: %v %+v", ids(l), l.Counts.Area)
	}
}

func testSearchBoostArea(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	got := ids(s.q(t, desk.IssueFilter{Q: "lava", BoostArea: "rendering"}))
	if got[0] != "MG-3" {
		t.Fatalf("boosted area not first: %v", got)
	}
}

func testSearchFollowsEdits(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	ctx := context.Background()
	if _, err := s.UpdateIssue(ctx, "MG-5", desk.IssueFields{Title: ptr("Quantum saving")}, "owner"); err != nil {
		t.Fatal(err)
	}
	if got := ids(s.q(t, desk.IssueFilter{Q: "quantum"})); len(got) != 1 || got[0] != "MG-5" {
		t.Fatalf("%v", got)
	}
	s.AddComment(ctx, "MG-5", desk.CommentInput{Text: "zebra stripes"})
	if got := ids(s.q(t, desk.IssueFilter{Q: "zebra"})); len(got) != 1 {
		t.Fatalf("comment not found: %v", got)
	}
	if err := s.DeleteIssue(ctx, "MG-5", "owner"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"quantum", "zebra"} {
		if l := s.q(t, desk.IssueFilter{Q: q}); l.Total != 0 {
			t.Fatalf("deleted issue still found by %q", q)
		}
	}
}

// TestExcerptsFollowTheQuery searches the same rows for other words: each
// search's excerpts are its own, however often the rows are read.
func testExcerptsFollowTheQuery(t *testing.T, be *Backend) {
	s := searchDesk(t, be)
	for i := 0; i < 2; i++ {
		for q, want := range map[string]string{"harbor": "Harbor crane", "dock": "near the dock", "glows": "dock glows"} {
			l := s.q(t, desk.IssueFilter{Q: q})
			if len(l.Issues) != 1 || l.Issues[0].Match == nil || !strings.Contains(l.Issues[0].Match.Excerpt, want) {
				t.Fatalf("%q: %+v", q, l.Issues[0].Match)
			}
		}
	}
}
