package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

// A kept list answers as a list made afresh does, through every kind of
// change another process makes: each list below is asked of a server's
// store, which keeps and patches it, and of a one-shot store, which keeps
// nothing, after every few random changes, and the two answers must be
// the same bytes.
func TestKeptListsFollowChanges(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	r := rand.New(rand.NewPCG(11, 12))
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	areas := []string{"", "terrain", "Terrain", "ui", "UI", "audio", "net"}
	miles := []string{"", "beta 1", "Beta 1", "demo"}
	sizes := []string{"", "S", "M", "L"}
	statuses := []string{"reported", "open", "in_progress", "to_check", "failed", "closed", "parked"}
	priorities := []string{"p0", "p1", "p2", "p3"}
	tags := [][]string{{}, {"lava"}, {"lava", "ice"}, {"Ice"}}
	fields := func() desk.IssueFields {
		f := desk.IssueFields{}
		switch r.IntN(7) {
		case 0:
			f.Area = ptr(pick(areas...))
		case 6:
			// An area few issues have: the backlog ranks areas by name,
			// and the ranks move when one comes or goes.
			f.Area = ptr(fmt.Sprintf("zone %d", r.IntN(40)))
		case 1:
			f.Priority = ptr(pick(priorities...))
		case 2:
			f.Size = ptr(pick(sizes...))
		case 3:
			f.Milestone = ptr(pick(miles...))
		case 4:
			f.Tags = &tags[r.IntN(len(tags))]
		default:
			f.Area, f.Priority = ptr(pick(areas...)), ptr(pick(priorities...))
		}
		return f
	}
	var ids []string
	for i := range 60 {
		f := fields()
		f.Title, f.Status = ptr(fmt.Sprintf("issue %d", i)), ptr(pick(statuses...))
		f.Area, f.Priority, f.Size = ptr(pick(areas...)), ptr(pick(priorities...)), ptr(pick(sizes...))
		ids = append(ids, MustIssue(t, db, f, "owner").ID)
	}
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	fresh, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()

	unfinished := []string{"reported", "open", "in_progress", "auto_check", "to_check", "failed"}
	lists := []desk.IssueFilter{
		{},
		{Status: unfinished, Limit: 20},
		{Status: unfinished, Limit: 30, Summary: true},
		{Status: []string{"open", "in_progress"}, Sort: "backlog", Limit: 5000},
		{Sort: "backlog", Limit: 7, Offset: 5},
		{Area: []string{"terrain"}, Priority: []string{"p1", "p2"}, Limit: 10},
		{Sort: "updated", Limit: 15},
		{Sort: "priority"},
		{Sort: "oldest", Limit: 9, Offset: 3},
		{Sort: "created"},
		{Sort: "number", Offset: 50},
		{Merged: true},
		{Tag: "lava"},
		{Status: []string{"open"}, StatusCountsOnly: true},
		{Size: []string{"none", "S"}, Milestone: []string{"Beta 1"}},
	}
	change := func() (string, error) {
		id := ids[r.IntN(len(ids))]
		switch r.IntN(9) {
		case 0, 1:
			_, err := other.UpdateIssue(ctx, id, fields(), "owner")
			return "update " + id, err
		case 2:
			_, err := other.SetStatus(ctx, id, pick(statuses...), "owner")
			return "status " + id, err
		case 3, 4:
			_, _, err := other.AddComment(ctx, id, desk.CommentInput{Author: "agent", Text: "looked"})
			return "comment " + id, err
		case 5:
			f := fields()
			f.Title, f.Status = ptr("new"), ptr(pick(statuses...))
			is, err := other.CreateIssue(ctx, "mygame", f, desk.CreateOptions{Author: "agent"})
			if err == nil {
				ids = append(ids, is.ID)
			}
			return "create", err
		case 6:
			src := ids[r.IntN(len(ids))]
			if src == id {
				return "nothing", nil
			}
			_, err := other.Merge(ctx, id, []string{src}, "owner")
			return "merge " + src + " into " + id, err
		case 7:
			_, err := other.Unmerge(ctx, id, "owner")
			return "unmerge " + id, err
		default:
			err := other.DeleteIssue(ctx, id, "owner")
			return "delete " + id, err
		}
	}
	var done []string
	for step := range 80 {
		for range 1 + r.IntN(3) {
			what, err := change()
			if c := desk.ErrorCode(err); c == desk.Invalid || c == desk.Conflict || c == desk.NotFound {
				err = nil // refused (a check with no place to go, a merge of a merged issue): nothing changed
			}
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			done = append(done, what)
		}
		sameLists(t, db, fresh, lists, fmt.Sprintf("step %d, after %v", step, done[max(0, len(done)-5):]))
	}
	if db.PatchedLists() == 0 {
		t.Fatal("no kept list was patched: the test exercised nothing")
	}
	if n := db.MisplacedListRows(); n != 0 {
		t.Fatalf("%d kept lists had a row away from where its key says: an order or a key is wrong", n)
	}
	t.Logf("%d lists patched", db.PatchedLists())
}

// Lists asked at once, while another process writes, each answer as a
// whole: the statuses the filter lets through count as many issues as the
// list has. Once the writes stop, the kept answers are a fresh store's.
func TestKeptListsUnderConcurrentAsks(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	statuses := []string{"reported", "open", "in_progress", "failed", "closed", "parked"}
	var ids []string
	for i := range 40 {
		ids = append(ids, MustIssue(t, db, desk.IssueFields{Title: ptr(fmt.Sprintf("issue %d", i)), Status: ptr(statuses[i%len(statuses)]),
			Priority: ptr(desk.Priorities[i%len(desk.Priorities)])}, "owner").ID)
	}
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	open := []string{"open", "in_progress"}
	lists := []desk.IssueFilter{{Status: open, Limit: 10}, {Status: open, Sort: "backlog", Limit: 5000}, {Status: open, Sort: "updated", Limit: 3, Offset: 2}}
	done := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	var reads atomic.Int64 // lists answered, so that the writer lets them keep up
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				f := lists[g%len(lists)]
				l, err := db.Issues(ctx, "mygame", f)
				if err != nil {
					errs <- err
					return
				}
				counted := 0
				for _, s := range open {
					counted += l.Counts.Status[s]
				}
				if want := min(f.Limit, max(0, l.Total-f.Offset)); counted != l.Total || len(l.Issues) != want {
					errs <- fmt.Errorf("%+v: total %d, open statuses counted %d, page %d (want %d)", f, l.Total, counted, len(l.Issues), want)
					return
				}
				reads.Add(1)
			}
		}()
	}
	r := rand.New(rand.NewPCG(13, 14))
	for range 150 {
		// On a starved machine the readers could fall behind by more
		// changes than a kept list is patched with; a list is answered
		// between two writes (or a moment passes).
		for seen, until := reads.Load(), time.Now().Add(50*time.Millisecond); reads.Load() == seen && time.Now().Before(until); {
			time.Sleep(100 * time.Microsecond)
		}
		id := ids[r.IntN(len(ids))]
		if r.IntN(2) == 0 {
			_, err = other.SetStatus(ctx, id, statuses[r.IntN(len(statuses))], "owner")
		} else {
			_, _, err = other.AddComment(ctx, id, desk.CommentInput{Author: "agent", Text: "looked"})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fresh, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	sameLists(t, db, fresh, lists, "after the writes")
	if db.PatchedLists() == 0 {
		t.Fatal("no kept list was patched")
	}
	if n := db.MisplacedListRows(); n != 0 {
		t.Fatalf("%d kept lists had a row away from where its key says: an order or a key is wrong", n)
	}
}

// The page refreshing the rows a change named (a list by ids, one for
// every change) leaves the kept lists alone: the triage asked after it is
// patched, not made afresh.
func TestListsByIDAreNotKept(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	var ids []string
	for i := range 200 {
		ids = append(ids, MustIssue(t, db, desk.IssueFields{Title: ptr(fmt.Sprintf("issue %d", i)), Status: ptr("open")}, "owner").ID)
	}
	triage := desk.IssueFilter{Status: []string{"open"}, Limit: 10}
	if _, err := db.Issues(ctx, "mygame", triage); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:20] { // more lists by id than lists are kept
		if _, _, err := db.AddComment(ctx, id, desk.CommentInput{Author: "agent", Text: "looked"}); err != nil {
			t.Fatal(err)
		}
		l, err := db.Issues(ctx, "mygame", desk.IssueFilter{IDs: []string{id}, Summary: true})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != 1 || l.Issues[0].ID != id || l.Issues[0].CommentCount != 1 {
			t.Fatalf("the rows of %s: %+v", id, l.Issues)
		}
	}
	before := db.PatchedLists()
	if _, err := db.Issues(ctx, "mygame", triage); err != nil {
		t.Fatal(err)
	}
	if db.PatchedLists() != before+1 {
		t.Fatal("the triage was made afresh: the lists by id pushed it out")
	}
}
