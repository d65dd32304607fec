package codetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/code"
)

// Store runs the suite of the code's tables against a backend. open
// returns a new, empty store each time it is called.
func Store(t *testing.T, open func(t *testing.T) code.Store) {
	ctx := context.Background()
	id := func(s string) code.ID { return code.Hash(code.Change, []byte(s)) }
	row := func(name string, gen int64, parents ...code.ID) code.ChangeRow {
		return code.ChangeRow{ID: id(name), Tree: code.EmptyTree, Parents: parents, Author: "ada", Time: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), Message: name + "\n", Intents: []string{}, Generation: gen}
	}
	newRepo := func(t *testing.T, s code.Store) *code.Repo {
		t.Helper()
		r, err := s.CreateRepo(ctx, "acme", "game", "")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("Repos", func(t *testing.T) {
		s := open(t)
		r, err := s.CreateRepo(ctx, "acme", "game", "mygame")
		if err != nil || r.ID == 0 || r.Project != "mygame" {
			t.Fatalf("CreateRepo = %+v, %v", r, err)
		}
		if _, err := s.CreateRepo(ctx, "acme", "game", ""); desk.ErrorCode(err) != desk.Conflict {
			t.Fatalf("a second CreateRepo = %v, want conflict", err)
		}
		if _, err := s.Repo(ctx, "acme", "nope"); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("Repo of a missing one = %v, want not_found", err)
		}
		got, err := s.Repo(ctx, "acme", "game")
		if err != nil || got.ID != r.ID {
			t.Fatalf("Repo = %+v, %v", got, err)
		}
		if err := s.LinkRepo(ctx, r.ID, "other"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Repo(ctx, "acme", "game"); got.Project != "other" {
			t.Fatalf("after LinkRepo the project is %q", got.Project)
		}
		s.CreateRepo(ctx, "acme", "alpha", "")
		list, err := s.Repos(ctx)
		if err != nil || len(list) != 2 || list[0].Name != "alpha" || list[1].Head != nil || list[1].Landings != 0 || list[1].Slug != "acme/game" {
			t.Fatalf("Repos = %+v, %v", list, err)
		}
	})

	t.Run("IndexChanges", func(t *testing.T) {
		s := open(t)
		r := newRepo(t, s)
		a := row("a", 1)
		a.Intents = []string{"MG-1", "MG-2"}
		b := row("b", 2, a.ID)
		if err := s.IndexChanges(ctx, r.ID, []code.ChangeRow{a, b}); err != nil {
			t.Fatal(err)
		}
		if err := s.IndexChanges(ctx, r.ID, []code.ChangeRow{a}); err != nil {
			t.Fatalf("a second index of the same row = %v", err)
		}
		got, err := s.Change(ctx, r.ID, b.ID)
		if err != nil || got.Generation != 2 || len(got.Parents) != 1 || got.Parents[0] != a.ID || got.Message != "b\n" || !got.Time.Equal(b.Time) {
			t.Fatalf("Change = %+v, %v", got, err)
		}
		if got, _ := s.Change(ctx, r.ID, a.ID); fmt.Sprint(got.Intents) != "[MG-1 MG-2]" {
			t.Fatalf("intents = %v", got.Intents)
		}
		if _, err := s.Change(ctx, r.ID, id("none")); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("Change of a missing one = %v", err)
		}
		has, err := s.HasChanges(ctx, r.ID, []code.ID{a.ID, id("none"), b.ID})
		if err != nil || fmt.Sprint(has) != "[true false true]" {
			t.Fatalf("HasChanges = %v, %v", has, err)
		}
		other, _ := s.CreateRepo(ctx, "acme", "other", "")
		if has, _ := s.HasChanges(ctx, other.ID, []code.ID{a.ID}); has[0] {
			t.Fatal("another repository has the change")
		}
	})

	t.Run("MoveMain", func(t *testing.T) {
		s := open(t)
		r := newRepo(t, s)
		h, err := s.Head(ctx, r.ID)
		if err != nil || h.Change != nil || h.Rev != 0 {
			t.Fatalf("Head before any landing = %+v, %v", h, err)
		}
		a, b, c := row("a", 1), row("b", 2, id("a")), row("c", 3, id("b"))
		c.Intents = []string{"MG-7"}
		s.IndexChanges(ctx, r.ID, []code.ChangeRow{a})
		es, err := s.MoveMain(ctx, code.Move{Repo: r.ID, FromRev: 0, To: b.ID, NewChanges: []code.ChangeRow{b},
			Entries: []code.LogEntry{{Change: a.ID, Submitted: a.ID}, {Change: b.ID, Submitted: b.ID}}, By: "ada"})
		if err != nil || len(es) != 2 || es[0].Seq != 1 || es[1].Seq != 2 || es[1].Row.Message != "b\n" || es[1].LandedBy != "ada" {
			t.Fatalf("first MoveMain = %+v, %v", es, err)
		}
		if h, _ := s.Head(ctx, r.ID); h.Change == nil || *h.Change != b.ID || h.Rev != 1 {
			t.Fatalf("Head = %+v", h)
		}
		// A mover that read an old revision loses and writes nothing.
		_, err = s.MoveMain(ctx, code.Move{Repo: r.ID, FromRev: 0, To: c.ID, NewChanges: []code.ChangeRow{c}, Entries: []code.LogEntry{{Change: c.ID, Submitted: c.ID}}, By: "bob"})
		if !errors.Is(err, code.ErrMoved) {
			t.Fatalf("MoveMain from an old revision = %v, want ErrMoved", err)
		}
		if has, _ := s.HasChanges(ctx, r.ID, []code.ID{c.ID}); has[0] {
			t.Fatal("the losing move indexed its change")
		}
		rebased := row("c2", 3, b.ID)
		es, err = s.MoveMain(ctx, code.Move{Repo: r.ID, FromRev: 1, To: rebased.ID, NewChanges: []code.ChangeRow{c, rebased},
			Entries: []code.LogEntry{{Change: rebased.ID, Submitted: c.ID, Rebased: true}}, By: "bob"})
		if err != nil || es[0].Seq != 3 || !es[0].Rebased {
			t.Fatalf("a rebased landing = %+v, %v", es, err)
		}
		e, err := s.Landed(ctx, r.ID, c.ID)
		if err != nil || e == nil || e.Seq != 3 || e.Change != rebased.ID || !e.Rebased {
			t.Fatalf("Landed(submitted) = %+v, %v", e, err)
		}
		if e, _ := s.Landed(ctx, r.ID, rebased.ID); e != nil {
			t.Fatalf("Landed finds an entry by a change nobody submitted: %+v", e)
		}
		if n, _ := s.LogCount(ctx, r.ID); n != 3 {
			t.Fatalf("LogCount = %d", n)
		}
		log, err := s.Log(ctx, r.ID, code.LogQuery{Limit: 10})
		if err != nil || len(log) != 3 || log[0].Seq != 3 || log[2].Seq != 1 {
			t.Fatalf("Log = %+v, %v", log, err)
		}
		if log, _ := s.Log(ctx, r.ID, code.LogQuery{Before: 3, Limit: 1}); len(log) != 1 || log[0].Seq != 2 {
			t.Fatalf("Log before 3 = %+v", log)
		}
		ri := row("i", 4, rebased.ID)
		ri.Intents = []string{"MG-9"}
		s.MoveMain(ctx, code.Move{Repo: r.ID, FromRev: 2, To: ri.ID, NewChanges: []code.ChangeRow{ri}, Entries: []code.LogEntry{{Change: ri.ID, Submitted: ri.ID}}, By: "ada"})
		if log, _ := s.Log(ctx, r.ID, code.LogQuery{Limit: 10, Intents: []string{"MG-9", "MG-1"}}); len(log) != 1 || log[0].Seq != 4 {
			t.Fatalf("Log of MG-9 = %+v", log)
		}
		list, _ := s.Repos(ctx)
		if list[0].Head == nil || *list[0].Head != ri.ID || list[0].Landings != 4 {
			t.Fatalf("Repos after landings = %+v", list[0])
		}
		// The same submitted change twice is refused.
		if _, err := s.MoveMain(ctx, code.Move{Repo: r.ID, FromRev: 3, To: ri.ID, Entries: []code.LogEntry{{Change: ri.ID, Submitted: ri.ID}}, By: "ada"}); desk.ErrorCode(err) != desk.Conflict {
			t.Fatalf("landing a submitted change again = %v, want conflict", err)
		}
		if n, _ := s.LogCount(ctx, r.ID); n != 4 {
			t.Fatalf("a refused move wrote entries: %d", n)
		}
	})

	t.Run("ConcurrentMovers", func(t *testing.T) {
		s := open(t)
		r := newRepo(t, s)
		base := row("base", 1)
		if _, err := s.MoveMain(ctx, code.Move{Repo: r.ID, To: base.ID, NewChanges: []code.ChangeRow{base}, Entries: []code.LogEntry{{Change: base.ID, Submitted: base.ID}}, By: "x"}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := row(fmt.Sprintf("c%d", i), 2, base.ID)
				_, err := s.MoveMain(ctx, code.Move{Repo: r.ID, FromRev: 1, To: c.ID, NewChanges: []code.ChangeRow{c}, Entries: []code.LogEntry{{Change: c.ID, Submitted: c.ID}}, By: "x"})
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, code.ErrMoved) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n, _ := s.LogCount(ctx, r.ID); wins != 1 || n != 2 {
			t.Fatalf("%d movers won from one revision, %d log entries; want 1 and 2", wins, n)
		}
	})

	t.Run("OpenChanges", func(t *testing.T) {
		s := open(t)
		r := newRepo(t, s)
		now := time.Date(2026, 10, 22, 14, 5, 0, 0, time.UTC)
		a := code.OpenChange{Repo: r.ID, Workspace: "ws-a", Change: id("a"), Author: "ada", Intents: []string{"MG-1"}, Paths: []string{"src/a.go"}, SentAt: now}
		old := code.OpenChange{Repo: r.ID, Workspace: "ws-old", Change: id("o"), Author: "bob", Intents: []string{}, Paths: []string{"src/a.go"}, SentAt: now.Add(-15 * 24 * time.Hour)}
		for _, o := range []code.OpenChange{a, old} {
			if err := s.PutOpenChange(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		a2 := a
		a2.Change, a2.Paths = id("a2"), []string{"src/b.go"}
		if err := s.PutOpenChange(ctx, a2); err != nil {
			t.Fatal(err)
		}
		got, err := s.OpenChanges(ctx, r.ID, now.Add(-14*24*time.Hour))
		if err != nil || len(got) != 1 || got[0].Change != a2.Change || got[0].Paths[0] != "src/b.go" || got[0].Intents[0] != "MG-1" || !got[0].SentAt.Equal(now) {
			t.Fatalf("OpenChanges = %+v, %v; want the folder's newer change only", got, err)
		}
		// Landing the open change removes it.
		c := row("a2", 1)
		if _, err := s.MoveMain(ctx, code.Move{Repo: r.ID, To: c.ID, NewChanges: []code.ChangeRow{c}, Entries: []code.LogEntry{{Change: c.ID, Submitted: c.ID}}, By: "ada"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.OpenChanges(ctx, r.ID, time.Time{}); len(got) != 1 || got[0].Workspace != "ws-old" {
			t.Fatalf("after landing, open changes = %+v", got)
		}
	})

	t.Run("GitCommits", func(t *testing.T) {
		s := open(t)
		r := newRepo(t, s)
		a := row("a", 1)
		m := []code.GitCommit{{Commit: "0123456789012345678901234567890123456789", Change: a.ID}}
		if _, err := s.MoveMain(ctx, code.Move{Repo: r.ID, To: a.ID, NewChanges: []code.ChangeRow{a}, Entries: []code.LogEntry{{Change: a.ID, Submitted: a.ID}}, GitCommits: m, By: "import"}); err != nil {
			t.Fatal(err)
		}
		b := id("b")
		if err := s.AddGitCommits(ctx, r.ID, []code.GitCommit{m[0], {Commit: m[0].Commit, Change: b}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GitCommits(ctx, r.ID)
		if err != nil || len(got) != 2 {
			t.Fatalf("GitCommits = %+v, %v; want one commit with two changes", got, err)
		}
	})
}
