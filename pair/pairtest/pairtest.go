// Package pairtest is the test suite every pair.Store backend passes
// unchanged: SQLite runs it in its own tests, the team backend in its.
package pairtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/pair"
)

// Backend makes a fresh, empty store for one test, holding one project
// whose slug it returns. The store is closed when the test ends.
type Backend func(t *testing.T) (store pair.Store, project string)

// Run runs the suite against a backend.
func Run(t *testing.T, newStore Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s pair.Store, project string)
	}{
		{"CreatePairNamesItAndKeepsItsRoster", testCreate},
		{"CreatePairRefusesAnUnknownProject", testCreateUnknownProject},
		{"AnUnknownPairIsNotFound", testUnknownPair},
		{"AFailedUpdateChangesNothing", testRollback},
		{"SavePairKeepsEveryField", testSavePair},
		{"TasksAreNumberedPerPair", testTasks},
		{"PatchesKeepTheirSeal", testPatches},
		{"EvidenceIsKeptByRound", testEvidence},
		{"LettersGoToTheirMailboxesInOrder", testLetters},
		{"NotesAreIndexedAndReadFromTheTail", testNotes},
		{"TheTranscriptIsAppendOnlyAndFiltered", testTranscript},
		{"EveryEntryMovesTheFeedThatWatchFollows", testWatch},
		{"PairsAreListedNewestFirstByFilter", testPairs},
		{"ConcurrentUpdatesSerialize", testConcurrent},
		{"AReadCannotWrite", testReadOnly},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, project := newStore(t)
			tc.fn(t, s, project)
		})
	}
}

var ctx = context.Background()

func mustCreate(t *testing.T, s pair.Store, project string, members ...string) *pair.Pair {
	t.Helper()
	if len(members) == 0 {
		members = []string{"opencode", "codex"}
	}
	p, err := s.CreatePair(ctx, pair.NewPair{Project: project, Folder: "/work/repo", Task: "fix the retry jitter", Mode: pair.ModeFix,
		Autonomy: pair.AutonomyAuto, AutonomySource: pair.SourceDefault, Members: members, Budget: pair.DefaultBudget}, pair.RoleOwner)
	if err != nil {
		t.Fatalf("CreatePair: %v", err)
	}
	return p
}

func update(t *testing.T, s pair.Store, id string, fn func(tx pair.Tx) error) {
	t.Helper()
	if err := s.Update(ctx, id, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s pair.Store, id string, fn func(tx pair.ReadTx) error) {
	t.Helper()
	if err := s.View(ctx, id, fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func testCreate(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project, "opencode", "codex")
	if p.ID == "" || p.Project != project || p.Phase != pair.PhaseScoping || p.Round != 1 || p.Status != pair.StatusLive || p.Mode != pair.ModeFix {
		t.Fatalf("new pair: %+v", p)
	}
	if got := roles(p); !slices.Equal(got, []string{"opencode", "codex"}) {
		t.Fatalf("roster %v, want opencode, codex in order", got)
	}
	if p.Budget != pair.DefaultBudget {
		t.Fatalf("budget %+v, want %+v", p.Budget, pair.DefaultBudget)
	}
	q := mustCreate(t, s, project)
	if q.ID == p.ID {
		t.Fatalf("two pairs named %s", p.ID)
	}
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		es, err := tx.Transcript(pair.TranscriptFilter{})
		if err != nil {
			return err
		}
		if len(es) != 1 || es[0].Kind != pair.EventCreated || es[0].Role != pair.RoleOwner {
			t.Errorf("a new pair's transcript: %+v, want one created entry", es)
		}
		return nil
	})
}

func roles(p *pair.Pair) []string {
	var out []string
	for _, m := range p.Members {
		out = append(out, m.Role)
	}
	return out
}

func testCreateUnknownProject(t *testing.T, s pair.Store, project string) {
	_, err := s.CreatePair(ctx, pair.NewPair{Project: "no-such-project", Folder: "/x", Task: "t", Mode: pair.ModeFix, Autonomy: pair.AutonomyAuto,
		AutonomySource: pair.SourceDefault, Members: []string{"a", "b"}}, pair.RoleOwner)
	if desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("CreatePair in an unknown project: %v, want not_found", err)
	}
}

func testUnknownPair(t *testing.T, s pair.Store, project string) {
	for _, id := range []string{"p999999", "nonsense", ""} {
		if err := s.View(ctx, id, func(pair.ReadTx) error { return nil }); desk.ErrorCode(err) != desk.NotFound {
			t.Errorf("View(%q): %v, want not_found", id, err)
		}
		if err := s.Update(ctx, id, func(pair.Tx) error { return nil }); desk.ErrorCode(err) != desk.NotFound {
			t.Errorf("Update(%q): %v, want not_found", id, err)
		}
	}
}

func testRollback(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	var seq int64
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		var err error
		seq, err = tx.Seq()
		return err
	})
	boom := errors.New("the rule refused")
	err := s.Update(ctx, p.ID, func(tx pair.Tx) error {
		pp := tx.Pair()
		pp.Phase, pp.Writer = pair.PhaseCode, "opencode"
		if err := tx.SavePair(pp); err != nil {
			return err
		}
		if err := tx.Log(&pair.Event{Role: "opencode", Kind: pair.EventClaim, Text: "claimed"}); err != nil {
			return err
		}
		if err := tx.AddTask(&pair.Task{Text: "x", State: pair.TaskOpen, Round: 1, AddedBy: "opencode"}); err != nil {
			return err
		}
		if err := tx.Send(&pair.Letter{From: "opencode", To: "codex", Body: "hi"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want the function's error", err)
	}
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		if pp := tx.Pair(); pp.Phase != pair.PhaseScoping || pp.Writer != "" {
			t.Errorf("after a failed update the pair is %s with writer %q", pp.Phase, pp.Writer)
		}
		if es, _ := tx.Transcript(pair.TranscriptFilter{}); len(es) != 1 {
			t.Errorf("after a failed update the transcript has %d entries, want 1", len(es))
		}
		if ts, _ := tx.Tasks(pair.TaskFilter{}); len(ts) != 0 {
			t.Errorf("after a failed update there are tasks: %+v", ts)
		}
		if n, _ := tx.CountLetters([]string{"codex"}, 0); n != 0 {
			t.Errorf("after a failed update codex has %d letters", n)
		}
		if now, _ := tx.Seq(); now != seq {
			t.Errorf("a failed update moved the feed from %d to %d", seq, now)
		}
		return nil
	})
}

func testSavePair(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	at := "2026-11-30T12:00:00.000Z"
	update(t, s, p.ID, func(tx pair.Tx) error {
		pp := tx.Pair()
		pp.Phase, pp.Round, pp.Writer, pp.WriterRationale, pp.WriterSince = pair.PhaseReview, 3, "opencode", "I know it", at
		pp.OKRound, pp.Budget = 2, pair.Budget{Messages: 7, Advances: 8, Restarts: 9}
		pp.Members[0].JoinedAt, pp.Members[0].LastSeen, pp.Members[0].Session, pp.Members[0].ResumeID = &at, &at, "s-1", "r-1"
		pp.Members[1].Acked, pp.Members[1].AckToken, pp.Members[1].AckUpTo, pp.Members[1].LastNudge = 4, "ack_x", 9, &at
		pp.Members = append(pp.Members, pair.Member{Role: "codex-critic", Of: "codex", JoinedAt: &at})
		return tx.SavePair(pp)
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		pp := tx.Pair()
		if pp.Phase != pair.PhaseReview || pp.Round != 3 || pp.Writer != "opencode" || pp.WriterRationale != "I know it" || pp.WriterSince != at ||
			pp.OKRound != 2 || pp.Budget != (pair.Budget{Messages: 7, Advances: 8, Restarts: 9}) {
			t.Errorf("saved pair read back as %+v", pp)
		}
		if got := roles(pp); !slices.Equal(got, []string{"opencode", "codex", "codex-critic"}) {
			t.Errorf("roster %v", got)
		}
		m0, m1, m2 := pp.Members[0], pp.Members[1], pp.Members[2]
		if m0.JoinedAt == nil || *m0.JoinedAt != at || m0.Session != "s-1" || m0.ResumeID != "r-1" {
			t.Errorf("member 0 read back as %+v", m0)
		}
		if m1.Acked != 4 || m1.AckToken != "ack_x" || m1.AckUpTo != 9 || m1.LastNudge == nil {
			t.Errorf("member 1's cursor read back as %+v", m1)
		}
		if m2.Of != "codex" || m2.JoinedAt == nil {
			t.Errorf("the instance read back as %+v", m2)
		}
		return nil
	})
	// Stopping keeps the time.
	update(t, s, p.ID, func(tx pair.Tx) error {
		pp := tx.Pair()
		pp.Status, pp.StoppedAt = pair.StatusStopped, &at
		return tx.SavePair(pp)
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		if pp := tx.Pair(); pp.Status != pair.StatusStopped || pp.StoppedAt == nil || *pp.StoppedAt != at {
			t.Errorf("stopped pair read back as %s, %v", pp.Status, pp.StoppedAt)
		}
		return nil
	})
}

func testTasks(t *testing.T, s pair.Store, project string) {
	p, q := mustCreate(t, s, project), mustCreate(t, s, project)
	for i := 0; i < 3; i++ {
		update(t, s, p.ID, func(tx pair.Tx) error {
			tk := &pair.Task{Text: fmt.Sprintf("task %d", i), State: pair.TaskOpen, Round: 1, AddedBy: "codex"}
			if err := tx.AddTask(tk); err != nil {
				return err
			}
			if tk.N != i+1 || tk.AddedAt == "" {
				t.Errorf("task %d numbered %d (added %q)", i, tk.N, tk.AddedAt)
			}
			return nil
		})
	}
	update(t, s, q.ID, func(tx pair.Tx) error {
		tk := &pair.Task{Text: "other", State: pair.TaskOpen, Round: 1, AddedBy: "codex"}
		if err := tx.AddTask(tk); err != nil {
			return err
		}
		if tk.N != 1 {
			t.Errorf("another pair's first task is #%d", tk.N)
		}
		return nil
	})
	at := "2026-11-30T12:00:00.000Z"
	update(t, s, p.ID, func(tx pair.Tx) error {
		ts, err := tx.Tasks(pair.TaskFilter{})
		if err != nil {
			return err
		}
		ts[1].State, ts[1].ClosedBy, ts[1].ClosedAt, ts[1].Reason = pair.TaskDropped, "opencode", &at, "not needed"
		return tx.SaveTask(&ts[1])
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		ts, err := tx.Tasks(pair.TaskFilter{})
		if err != nil {
			return err
		}
		if len(ts) != 3 || ts[0].N != 1 || ts[2].N != 3 || ts[1].State != pair.TaskDropped || ts[1].Reason != "not needed" || ts[1].ClosedAt == nil {
			t.Errorf("tasks read back as %+v", ts)
		}
		open, _ := tx.Tasks(pair.TaskFilter{State: pair.TaskOpen})
		if len(open) != 2 || open[0].N != 1 || open[1].N != 3 {
			t.Errorf("open tasks: %+v", open)
		}
		first, _ := tx.Tasks(pair.TaskFilter{State: pair.TaskOpen, Limit: 1})
		if len(first) != 1 || first[0].N != 1 {
			t.Errorf("the first open task: %+v", first)
		}
		if n, _ := tx.CountTasks(pair.TaskFilter{State: pair.TaskOpen, Round: 1}); n != 2 {
			t.Errorf("open tasks of round 1: %d", n)
		}
		if n, _ := tx.CountTasks(pair.TaskFilter{Round: 2}); n != 0 {
			t.Errorf("tasks of round 2: %d", n)
		}
		if one, _ := tx.Task(2); one == nil || one.Text != "task 1" || one.State != pair.TaskDropped {
			t.Errorf("task 2: %+v", one)
		}
		if none, _ := tx.Task(9); none != nil {
			t.Errorf("task 9: %+v", none)
		}
		return nil
	})
}

func testPatches(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	at := "2026-11-30T12:00:00.000Z"
	update(t, s, p.ID, func(tx pair.Tx) error {
		for i := 1; i <= 2; i++ {
			pt := &pair.Patch{Role: "codex", State: pair.PatchReserved, Round: 1, Summary: "s"}
			if err := tx.AddPatch(pt); err != nil {
				return err
			}
			if pt.N != i {
				t.Errorf("patch numbered %d, want %d", pt.N, i)
			}
		}
		ps, err := tx.Patches(pair.PatchFilter{})
		if err != nil {
			return err
		}
		ps[1].Path, ps[1].State, ps[1].Seal, ps[1].Size, ps[1].Files, ps[1].SealedAt, ps[1].Reported = "/d/0002-codex.diff", pair.PatchSealed, "abc", 42, []string{"a.go", "b/c.go"}, &at, true
		return tx.SavePatch(&ps[1])
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		ps, err := tx.Patches(pair.PatchFilter{})
		if err != nil {
			return err
		}
		if len(ps) != 2 {
			t.Fatalf("%d patches", len(ps))
		}
		b := ps[1]
		if b.Path != "/d/0002-codex.diff" || b.State != pair.PatchSealed || b.Seal != "abc" || b.Size != 42 || !slices.Equal(b.Files, []string{"a.go", "b/c.go"}) ||
			b.SealedAt == nil || !b.Reported || b.ReservedAt == "" {
			t.Errorf("patch read back as %+v", b)
		}
		if ps[0].State != pair.PatchReserved || ps[0].Reported {
			t.Errorf("the other patch changed: %+v", ps[0])
		}
		sealed, _ := tx.Patches(pair.PatchFilter{States: pair.PendingStates})
		if len(sealed) != 1 || sealed[0].N != 2 {
			t.Errorf("pending patches: %+v", sealed)
		}
		if r2, _ := tx.Patches(pair.PatchFilter{Round: 2}); len(r2) != 0 {
			t.Errorf("patches of round 2: %+v", r2)
		}
		if got, _ := tx.Patch(2); got == nil || got.Seal != "abc" {
			t.Errorf("patch 2: %+v", got)
		}
		if got, _ := tx.PatchAt("/d/0002-codex.diff"); got == nil || got.N != 2 {
			t.Errorf("the patch at its path: %+v", got)
		}
		if got, _ := tx.PatchAt("/d/nothing.diff"); got != nil {
			t.Errorf("a patch at no path: %+v", got)
		}
		if got, _ := tx.Patch(7); got != nil {
			t.Errorf("patch 7: %+v", got)
		}
		return nil
	})
}

func testEvidence(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	update(t, s, p.ID, func(tx pair.Tx) error {
		for _, e := range []pair.Evidence{{Round: 1, Kind: "tests", Text: "ok", Passed: true, Role: "codex"}, {Round: 2, Kind: "lint", Text: "bad", Role: "opencode"},
			{Round: 3, Kind: "tests", Text: "first", Passed: true, Role: "codex"}, {Round: 3, Kind: "tests", Text: "second", Passed: true, Role: "codex"}} {
			if err := tx.AddEvidence(&e); err != nil {
				return err
			}
			if e.ID == 0 || e.At == "" {
				t.Errorf("evidence not given an id and a time: %+v", e)
			}
		}
		return nil
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		one, _ := tx.Evidence(1, 0)
		two, _ := tx.Evidence(2, 0)
		if len(one) != 1 || !one[0].Passed || one[0].Kind != "tests" || len(two) != 1 || two[0].Passed || two[0].Role != "opencode" {
			t.Errorf("evidence by round: %+v / %+v", one, two)
		}
		if n, _ := tx.CountEvidence(2, true); n != 0 {
			t.Errorf("passing evidence of round 2: %d", n)
		}
		if n, _ := tx.CountEvidence(2, false); n != 1 {
			t.Errorf("evidence of round 2: %d", n)
		}
		if n, _ := tx.CountEvidence(1, true); n != 1 {
			t.Errorf("passing evidence of round 1: %d", n)
		}
		if last, _ := tx.Evidence(3, 1); len(last) != 1 || last[0].Text != "second" {
			t.Errorf("the newest evidence of round 3: %+v", last)
		}
		if both, _ := tx.Evidence(3, 0); len(both) != 2 || both[0].Text != "first" {
			t.Errorf("round 3's evidence, oldest first: %+v", both)
		}
		return nil
	})
}

func testLetters(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project, "opencode", "codex", "claude")
	var ids []int64
	update(t, s, p.ID, func(tx pair.Tx) error {
		for i, to := range []string{"codex", "claude", "codex", "codex"} {
			l := &pair.Letter{From: "opencode", To: to, Body: fmt.Sprintf("letter %d", i), Deferred: i == 3}
			if err := tx.Send(l); err != nil {
				return err
			}
			if l.At == "" || (len(ids) > 0 && l.ID <= ids[len(ids)-1]) {
				t.Errorf("letter %d: id %d after %v, at %q", i, l.ID, ids, l.At)
			}
			ids = append(ids, l.ID)
		}
		return nil
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		ls, _ := tx.Letters([]string{"codex"}, 0, 10)
		if len(ls) != 3 || ls[0].Body != "letter 0" || ls[2].Body != "letter 3" || ls[0].To != "codex" || ls[0].From != "opencode" {
			t.Errorf("codex's letters: %+v", ls)
		}
		ls, _ = tx.Letters([]string{"codex"}, ids[0], 1)
		if len(ls) != 1 || ls[0].ID != ids[2] {
			t.Errorf("codex's letters after the first, one at a time: %+v", ls)
		}
		both, _ := tx.Letters([]string{"codex", "claude"}, 0, 10)
		if len(both) != 4 {
			t.Errorf("letters of two mailboxes: %d", len(both))
		}
		if n, _ := tx.CountLetters([]string{"codex"}, ids[2]); n != 1 {
			t.Errorf("codex's letters after the third: %d, want 1", n)
		}
		d, _ := tx.DeferredLetters()
		if len(d) != 1 || d[0].ID != ids[3] || !d[0].Deferred {
			t.Errorf("deferred letters: %+v", d)
		}
		return nil
	})
	update(t, s, p.ID, func(tx pair.Tx) error { return tx.Delivered(ids[3]) })
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		if d, _ := tx.DeferredLetters(); len(d) != 0 {
			t.Errorf("a delivered letter is still deferred: %+v", d)
		}
		return nil
	})
}

func testNotes(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	update(t, s, p.ID, func(tx pair.Tx) error {
		for _, n := range []pair.NoteEntry{{Kind: "plan", Role: "opencode", Round: 1, Text: "one\ntwo"}, {Kind: "finding", Role: "codex", Round: 1, Text: "a long finding"},
			{Kind: "plan", Role: "opencode", Round: 1, Text: "three\n"}} {
			if err := tx.AddNote(&n); err != nil {
				return err
			}
			if n.ID == 0 || n.At == "" {
				t.Errorf("note not given an id and a time: %+v", n)
			}
		}
		return nil
	})
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		idx, err := tx.NoteIndex()
		if err != nil {
			return err
		}
		by := map[string]pair.NoteInfo{}
		for _, n := range idx {
			by[n.Kind] = n
		}
		if pl := by["plan"]; pl.Entries != 2 || pl.Bytes != len("one\ntwo")+len("three\n") || pl.Lines != 3 || pl.LastAt == "" {
			t.Errorf("plan in the index: %+v", pl)
		}
		if f := by["finding"]; f.Entries != 1 || f.Bytes != len("a long finding") || f.Lines != 1 {
			t.Errorf("finding in the index: %+v", f)
		}
		tail, _ := tx.NoteTail("plan", 5)
		if len(tail) != 2 || tail[0].Text != "three\n" || tail[1].Text != "one\ntwo" {
			t.Errorf("plan's tail, newest first: %+v", tail)
		}
		last, _ := tx.LastNote("finding")
		if last == nil || last.Role != "codex" {
			t.Errorf("last finding: %+v", last)
		}
		if none, _ := tx.LastNote("verdict"); none != nil {
			t.Errorf("a note nobody wrote: %+v", none)
		}
		return nil
	})
}

func testTranscript(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	var ids []int64
	for i := 0; i < 6; i++ {
		update(t, s, p.ID, func(tx pair.Tx) error {
			kind := pair.EventLetter
			if i%2 == 1 {
				kind = pair.EventRefusal
			}
			if i == 4 {
				pp := tx.Pair()
				pp.Round = 2
				if err := tx.SavePair(pp); err != nil {
					return err
				}
			}
			e := &pair.Event{Role: "codex", Kind: kind, Text: fmt.Sprintf("entry %d", i), Detail: map[string]any{"n": i}}
			if i%2 == 1 {
				e.Rule = pair.RuleSingleWriter
			}
			if err := tx.Log(e); err != nil {
				return err
			}
			if e.ID == 0 || e.At == "" || e.Pair != p.ID {
				t.Errorf("a logged entry: %+v", e)
			}
			ids = append(ids, e.ID)
			return nil
		})
	}
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		all, _ := tx.Transcript(pair.TranscriptFilter{})
		if len(all) != 7 || all[0].Kind != pair.EventCreated || all[6].Text != "entry 5" {
			t.Fatalf("whole transcript: %d entries, %+v", len(all), all)
		}
		for i := 1; i < len(all); i++ {
			if all[i].ID <= all[i-1].ID {
				t.Errorf("entries out of order: %d after %d", all[i].ID, all[i-1].ID)
			}
		}
		if all[2].Rule != pair.RuleSingleWriter || all[2].Detail == nil {
			t.Errorf("an entry's rule and detail: %+v", all[2])
		}
		last2, _ := tx.Transcript(pair.TranscriptFilter{Limit: 2})
		if len(last2) != 2 || last2[0].Text != "entry 4" || last2[1].Text != "entry 5" {
			t.Errorf("the newest two, oldest first: %+v", last2)
		}
		after, _ := tx.Transcript(pair.TranscriptFilter{After: ids[3]})
		if len(after) != 2 || after[0].ID != ids[4] {
			t.Errorf("entries after the fourth: %+v", after)
		}
		refusals, _ := tx.Transcript(pair.TranscriptFilter{Kinds: []string{pair.EventRefusal}})
		if len(refusals) != 3 {
			t.Errorf("refusals: %d, want 3", len(refusals))
		}
		round2, _ := tx.Transcript(pair.TranscriptFilter{Round: 2})
		if len(round2) != 2 || round2[0].Round != 2 {
			t.Errorf("round 2's entries: %+v", round2)
		}
		since, _ := tx.Transcript(pair.TranscriptFilter{Since: all[1].At})
		if len(since) < 6 {
			t.Errorf("entries since the first letter's time: %d", len(since))
		}
		if n, _ := tx.CountEvents(1, pair.EventLetter); n != 2 {
			t.Errorf("round 1's letters: %d, want 2", n)
		}
		if n, _ := tx.CountEvents(0, pair.EventLetter, pair.EventRefusal); n != 6 {
			t.Errorf("letters and refusals of every round: %d, want 6", n)
		}
		return nil
	})
}

func testWatch(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	var seq int64
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		var err error
		seq, err = tx.Seq()
		return err
	})
	got := make(chan *desk.Change, 10)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(wctx, seq, func(cs []*desk.Change) {
		for _, c := range cs {
			got <- c
		}
	})
	var id int64
	update(t, s, p.ID, func(tx pair.Tx) error {
		e := &pair.Event{Role: "codex", Kind: pair.EventLetter, Text: "hi"}
		err := tx.Log(e)
		id = e.ID
		return err
	})
	select {
	case c := <-got:
		if c.Type != desk.ChangePair || c.ID != id || c.Project != project || c.Action != pair.EventLetter || c.Actor != "codex" {
			t.Errorf("feed row %+v, want type pair, id %d, project %s", c, id, project)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not report the entry within 5 s")
	}
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		if now, _ := tx.Seq(); now <= seq {
			t.Errorf("the feed did not move: %d, then %d", seq, now)
		}
		return nil
	})
}

func testPairs(t *testing.T, s pair.Store, project string) {
	a, b := mustCreate(t, s, project), mustCreate(t, s, project)
	update(t, s, a.ID, func(tx pair.Tx) error {
		pp := tx.Pair()
		pp.Status = pair.StatusStopped
		return tx.SavePair(pp)
	})
	all, err := s.Pairs(ctx, pair.PairFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != b.ID || all[1].ID != a.ID {
		t.Fatalf("every pair, newest first: %v", ids(all))
	}
	live, _ := s.Pairs(ctx, pair.PairFilter{Live: true})
	if len(live) != 1 || live[0].ID != b.ID || len(live[0].Members) != 2 {
		t.Errorf("live pairs: %v", ids(live))
	}
	mine, _ := s.Pairs(ctx, pair.PairFilter{Project: project, Folder: "/work/repo"})
	if len(mine) != 2 {
		t.Errorf("pairs of the project's folder: %v", ids(mine))
	}
	none, _ := s.Pairs(ctx, pair.PairFilter{Project: "another", Folder: "/elsewhere"})
	if len(none) != 0 {
		t.Errorf("pairs of another project: %v", ids(none))
	}
}

func ids(ps []*pair.Pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func testConcurrent(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Update(ctx, p.ID, func(tx pair.Tx) error {
				// Read, then write what was read plus one: without the
				// write lock taken at the start, two would read the same.
				pp := tx.Pair()
				pp.OKRound++
				if err := tx.SavePair(pp); err != nil {
					return err
				}
				return tx.AddTask(&pair.Task{Text: "t", State: pair.TaskOpen, Round: 1, AddedBy: "codex"})
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	view(t, s, p.ID, func(tx pair.ReadTx) error {
		if got := tx.Pair().OKRound; got != n {
			t.Errorf("%d increments counted %d", n, got)
		}
		ts, _ := tx.Tasks(pair.TaskFilter{})
		for i, tk := range ts {
			if tk.N != i+1 {
				t.Errorf("task %d numbered %d", i, tk.N)
			}
		}
		if len(ts) != n {
			t.Errorf("%d tasks, want %d", len(ts), n)
		}
		return nil
	})
}

func testReadOnly(t *testing.T, s pair.Store, project string) {
	p := mustCreate(t, s, project)
	err := s.View(ctx, p.ID, func(tx pair.ReadTx) error {
		w, ok := tx.(pair.Tx)
		if !ok {
			return nil // a read that cannot even be asked to write
		}
		return w.Log(&pair.Event{Role: "codex", Kind: pair.EventLetter, Text: "sneaked in"})
	})
	if err == nil {
		view(t, s, p.ID, func(tx pair.ReadTx) error {
			if es, _ := tx.Transcript(pair.TranscriptFilter{}); len(es) != 1 {
				t.Errorf("a write inside View was kept: %+v", es)
			}
			return nil
		})
	}
}
