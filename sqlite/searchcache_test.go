package sqlite_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"desk"
	"desk/sqlite"
)

// A process that keeps its searches answers as a process that searches
// afresh, while another process comments, edits, files and merges issues:
// the kept results are patched for the issues the feed names, or searched
// again with what the issues' own text matched kept while that text is
// the same.
func TestKeptSearchesFollowOtherWrites(t *testing.T) {
	t.Run("patched", func(t *testing.T) {
		defer sqlite.PatchEverySearch()()
		keptSearchesFollow(t, true)
	})
	t.Run("patched, a query per issue", func(t *testing.T) {
		defer sqlite.PatchEverySearch()()
		defer sqlite.QueryEachIssuesComments()()
		keptSearchesFollow(t, true)
	})
	t.Run("searched again", func(t *testing.T) { keptSearchesFollow(t, false) })
}

func keptSearchesFollow(t *testing.T, patched bool) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "tools", Name: "Tools", Prefix: "TL"}, "owner"); err != nil {
		t.Fatal(err)
	}
	words := []string{"lava", "tips", "square", "crane", "glow", "dock"}
	rnd := rand.New(rand.NewPCG(7, 9))
	text := func() string {
		s := ""
		for range 1 + rnd.IntN(4) {
			s += words[rnd.IntN(len(words))] + " "
		}
		if rnd.IntN(12) == 0 {
			s += "zebra " // a word few issues hold: most changes are to issues it does not match
		}
		return s
	}
	var ids []string
	for range 30 {
		d := MustIssue(t, db, desk.IssueFields{Title: ptr(text()), Body: ptr(text())}, "owner")
		ids = append(ids, d.ID)
	}
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	queries := []string{"lava", "lava tips", "squ", "crane dock", "\"tips square\"", "zebra"}
	// Each search by relevance, a page of it, and in the backlog's order:
	// what a list keeps is its whole order and counts. (A facet filter
	// can move a search to another stage, see DB.search, and asking both
	// in turn would keep the searches from being patched.)
	answer := func(d *sqlite.DB, q string) string {
		var out []byte
		for _, f := range []desk.IssueFilter{
			{Q: q, Limit: 100},
			{Q: q, Limit: 3, Offset: 2},
			{Q: q, Limit: 100, Sort: desk.SortBacklog},
		} {
			l, err := d.Issues(ctx, "mygame", f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			out = append(append(out, b...), '\n')
		}
		return string(out)
	}
	for step := range 60 {
		id := ids[rnd.IntN(len(ids))]
		var err error
		switch step % 6 {
		case 0, 1:
			_, _, err = other.AddComment(ctx, id, desk.CommentInput{Author: "agent", Text: text()})
		case 2:
			_, err = other.UpdateIssue(ctx, id, desk.IssueFields{Title: ptr(text())}, "owner")
		case 3:
			var d *desk.IssueDetail
			d, err = other.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr(text()), Body: ptr(text())}, desk.CreateOptions{})
			if err == nil {
				ids = append(ids, d.ID)
			}
		case 4:
			if _, err = other.Merge(ctx, ids[0], []string{id}, "owner"); err != nil {
				_, err = other.UpdateIssue(ctx, id, desk.IssueFields{Area: ptr(text())}, "owner")
			}
		case 5:
			// Many changes at once: past what a kept result is patched for.
			for i := range 70 {
				if _, _, err = other.AddComment(ctx, ids[i%len(ids)], desk.CommentInput{Author: "agent", Text: text()}); err != nil {
					break
				}
			}
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		fresh, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{OneShot: true}) // keeps nothing
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			if got, want := answer(db, q), answer(fresh, q); got != want {
				fresh.Close()
				t.Fatalf("step %d, search %q:\nkept    %s\nafresh  %s", step, q, got, want)
			}
		}
		fresh.Close()
	}
	if patched && db.PatchedSearches() == 0 {
		t.Fatal("no kept search was patched: the test no longer tries what it is about")
	}
	if db.ReusedTextMatches() == 0 {
		t.Fatal("no match of the issues' text was reused: the test no longer tries what it is about")
	}
	if db.PatchedLists() == 0 {
		t.Fatal("no kept search list was patched: the test no longer tries what it is about")
	}
	if n := db.MisplacedListRows(); n != 0 {
		t.Fatalf("%d kept lists had a row away from where its key says: an order or a key is wrong", n)
	}
}
