package storetest

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"desk"
)

// SessionStore is a store that also keeps the records of managed
// sessions.
type SessionStore interface {
	Store
	desk.SessionService
}

// RunSessions runs the suite of the managed sessions' records against
// backend be, whose stores must keep them; each test is a subtest of t.
func RunSessions(t *testing.T, be Backend) {
	for _, tc := range sessionTests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, &be) })
	}
}

var sessionTests = []struct {
	name string
	fn   func(*testing.T, *Backend)
}{
	{"ASessionRecordRoundTrips", testASessionRecordRoundTrips},
	{"SessionRecordsRefuseWhatTheyCannotKeep", testSessionRecordsRefuseWhatTheyCannotKeep},
	{"SessionsListRunningNewestFirstByKind", testSessionsListRunningNewestFirstByKind},
	{"EverySessionWriteAppendsAFeedRow", testEverySessionWriteAppendsAFeedRow},
	{"OneExitIsRecordedOnceAcrossHandles", testOneExitIsRecordedOnceAcrossHandles},
}

func sessionStore(t *testing.T, s Store) SessionStore {
	t.Helper()
	ss, ok := s.(SessionStore)
	if !ok {
		t.Fatalf("%T keeps no managed sessions", s)
	}
	return ss
}

func testASessionRecordRoundTrips(t *testing.T, be *Backend) {
	ctx := context.Background()
	a, b := be.Pair(t)
	db := sessionStore(t, a)
	started := time.Date(2026, 11, 3, 9, 15, 2, 125e6, time.UTC)
	s := &desk.Session{ID: "s-0000abcd", Kind: "claude", Name: "fix the jump", Cwd: "/home/ada/game", Project: "mygame",
		Command: []string{"claude", "--resume", "x y"}, Args: []string{"--model", "opus"}, PID: 4242, State: desk.SessionRunning,
		StartedAt: started, Generation: 1, Bypass: true, Profile: "work", Hooks: "launch", Note: "first"}
	if err := db.CreateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s.UpdatedAt.IsZero() {
		t.Fatal("CreateSession did not set the record's update time")
	}
	got, err := sessionStore(t, b).Session(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameSession(got, s) {
		t.Fatalf("another handle reads\n%+v\nwant\n%+v", got, s)
	}

	code := 130
	ended := started.Add(time.Minute)
	up, err := db.UpdateSession(ctx, s.ID, desk.SessionUpdate{State: ptr(desk.SessionExited), ExitCode: ptr(&code),
		ExitReason: ptr(desk.ExitStopped), EndedAt: &ended, ResumeID: ptr("conv-1"), Generation: ptr(int64(2)),
		Command: &[]string{"claude", "--resume", "conv-1"}, Note: ptr(""), PID: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	got, err = db.Session(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameSession(got, up) {
		t.Fatalf("read after the update\n%+v\nwant what UpdateSession answered\n%+v", got, up)
	}
	if got.State != desk.SessionExited || got.ExitCode == nil || *got.ExitCode != 130 || !got.EndedAt.Equal(ended) ||
		got.ResumeID != "conv-1" || got.Generation != 2 || got.Note != "" || got.PID != 0 || got.Name != "fix the jump" ||
		!got.Bypass || got.Command[2] != "conv-1" || got.Args[1] != "opus" {
		t.Fatalf("after the update: %+v", got)
	}
	// An exit code cleared again reads back as unknown.
	if up, err = db.UpdateSession(ctx, s.ID, desk.SessionUpdate{ExitCode: ptr[*int](nil)}); err != nil || up.ExitCode != nil {
		t.Fatalf("clear the exit code: %+v, %v", up, err)
	}
	if got, _ := db.Session(ctx, s.ID); got.ExitCode != nil {
		t.Fatalf("the cleared exit code reads back as %d", *got.ExitCode)
	}

	// A record with no start time takes the write's.
	bare := &desk.Session{ID: "s-bare", Kind: "bash", Cwd: "/tmp", State: desk.SessionRunning, Generation: 1}
	if err := db.CreateSession(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Session(ctx, "s-bare"); got.StartedAt.IsZero() || len(got.Command) != 0 || got.ExitCode != nil || got.Generation != 1 {
		t.Fatalf("a bare record reads back as %+v", got)
	}
}

// sameSession compares two records, their update times to the
// millisecond the stores keep.
func sameSession(a, b *desk.Session) bool {
	x, y := *a, *b
	x.UpdatedAt, y.UpdatedAt = x.UpdatedAt.Truncate(time.Millisecond), y.UpdatedAt.Truncate(time.Millisecond)
	return reflect.DeepEqual(x, y)
}

func testSessionRecordsRefuseWhatTheyCannotKeep(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := sessionStore(t, be.Open(t))
	wantCode(t, db.CreateSession(ctx, &desk.Session{Kind: "bash", State: desk.SessionRunning}), desk.Invalid)
	wantCode(t, db.CreateSession(ctx, &desk.Session{ID: "s-1", State: desk.SessionRunning}), desk.Invalid)
	s := &desk.Session{ID: "s-1", Kind: "bash", Cwd: "/tmp", State: desk.SessionRunning, Generation: 1}
	if err := db.CreateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	before, _ := db.LastSeq(ctx)
	wantCode(t, db.CreateSession(ctx, &desk.Session{ID: "s-1", Kind: "codex", Cwd: "/", State: desk.SessionRunning}), desk.Conflict)
	_, err := db.Session(ctx, "s-nope")
	wantCode(t, err, desk.NotFound)
	_, err = db.UpdateSession(ctx, "s-nope", desk.SessionUpdate{Name: ptr("x")})
	wantCode(t, err, desk.NotFound)
	_, err = db.UpdateSession(ctx, "s-1", desk.SessionUpdate{State: ptr(desk.SessionExited), IfState: desk.SessionExited})
	wantCode(t, err, desk.Conflict)
	// Nothing changed, nothing was announced.
	if got, _ := db.Session(ctx, "s-1"); got.Kind != "bash" || got.State != desk.SessionRunning {
		t.Fatalf("a refused write changed the record: %+v", got)
	}
	if after, _ := db.LastSeq(ctx); after != before {
		t.Fatalf("refused writes appended feed rows: %d → %d", before, after)
	}
}

func testSessionsListRunningNewestFirstByKind(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := sessionStore(t, be.Open(t))
	base := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	for i, k := range []string{"claude", "codex", "claude", "bash", "claude"} {
		s := &desk.Session{ID: fmt.Sprintf("s-%d", i), Kind: k, Cwd: "/w", State: desk.SessionRunning,
			StartedAt: base.Add(time.Duration(i) * time.Minute), Generation: 1}
		if err := db.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.UpdateSession(ctx, "s-2", desk.SessionUpdate{State: ptr(desk.SessionExited)}); err != nil {
		t.Fatal(err)
	}
	ids := func(f desk.SessionFilter) []string {
		t.Helper()
		l, err := db.Sessions(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, s := range l {
			out = append(out, s.ID)
		}
		return out
	}
	for _, tc := range []struct {
		f    desk.SessionFilter
		want []string
	}{
		{desk.SessionFilter{}, []string{"s-4", "s-3", "s-1", "s-0"}},
		{desk.SessionFilter{All: true}, []string{"s-4", "s-3", "s-2", "s-1", "s-0"}},
		{desk.SessionFilter{All: true, Kind: "claude"}, []string{"s-4", "s-2", "s-0"}},
		{desk.SessionFilter{Kind: "claude"}, []string{"s-4", "s-0"}},
		{desk.SessionFilter{All: true, Limit: 2}, []string{"s-4", "s-3"}},
		{desk.SessionFilter{Kind: "gemini"}, []string{}},
	} {
		if got := ids(tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sessions(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func testEverySessionWriteAppendsAFeedRow(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := sessionStore(t, be.Open(t))
	start, _ := db.LastSeq(ctx)
	s := &desk.Session{ID: "s-feed", Kind: "codex", Cwd: "/w", Project: "mygame", State: desk.SessionRunning, Generation: 1}
	if err := db.CreateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateSession(ctx, "s-feed", desk.SessionUpdate{Name: ptr("renamed")}); err != nil {
		t.Fatal(err)
	}
	cs, err := db.Changes(ctx, desk.ChangeFilter{After: start})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("%d feed rows, want 2: %+v", len(cs), cs)
	}
	for i, want := range []string{"created", "updated"} {
		c := cs[i]
		if c.Type != desk.ChangeSession || c.Action != want || c.Actor != "s-feed" || c.Project != "mygame" || c.ID == 0 {
			t.Fatalf("row %d = %+v, want a session row %q", i, c, want)
		}
	}
	if cs[0].ID != cs[1].ID {
		t.Fatalf("the rows name records %d and %d, want one", cs[0].ID, cs[1].ID)
	}
}

// Two processes noticing the same exit (a holder's end seen by the
// server and by a CLI, or by two replicas) record it once: the update
// that finds the session still running wins, the others get a conflict.
func testOneExitIsRecordedOnceAcrossHandles(t *testing.T, be *Backend) {
	ctx := context.Background()
	a, b := be.Pair(t)
	handles := []SessionStore{sessionStore(t, a), sessionStore(t, b)}
	if err := handles[0].CreateSession(ctx, &desk.Session{ID: "s-race", Kind: "bash", Cwd: "/w", State: desk.SessionRunning, Generation: 1}); err != nil {
		t.Fatal(err)
	}
	const n = 10
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reason := fmt.Sprintf("seen by %d", i)
			_, err := handles[i%2].UpdateSession(ctx, "s-race", desk.SessionUpdate{State: ptr(desk.SessionExited),
				ExitReason: &reason, IfState: desk.SessionRunning})
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch desk.ErrorCode(err) {
		case "":
			won++
		case desk.Conflict:
		default:
			t.Errorf("a racer failed: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d updates recorded the exit, want 1", won)
	}
	if got, _ := handles[1].Session(ctx, "s-race"); got.State != desk.SessionExited {
		t.Fatalf("after the race the session is %s", got.State)
	}
}
