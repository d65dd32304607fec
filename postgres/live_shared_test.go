package postgres_test

import (
	"context"
	"testing"
	"time"

	"desk"
	"desk/agent/intake"
	"desk/agent/live"
)

// Shared agent services on one database never supersede each other: one
// whose generation the store moved past (two replicas that started on an
// empty database at once) writes with the store's and keeps taking
// reports; another follows what it saved from the feed, and drops a
// session the feed says was merged away.
func TestSharedAgentServicesFollowEachOther(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t)
	dbA, dbB := open(t, url, t.TempDir()), open(t, url, t.TempDir())
	defer dbA.Close()
	defer dbB.Close()
	a := live.New(dbA, live.Options{DataDir: t.TempDir(), Shared: true})
	b := live.New(dbB, live.Options{DataDir: t.TempDir(), Shared: true})
	for _, s := range []*live.Service{a, b} {
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	if a.Generation() != b.Generation() {
		t.Fatalf("generations %d and %d: shared services write with the store's one", a.Generation(), b.Generation())
	}
	if _, err := dbA.StartAgents(ctx); err != nil { // the store moves on under a
		t.Fatal(err)
	}
	seq, err := dbB.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hooks := readHooks(t, claudeRun)
	var res live.Result
	for _, h := range hooks[:2] {
		res, err = a.Receive(&intake.Report{Client: "claude", Payload: h.Payload, Received: time.Now()})
		if err != nil {
			t.Fatalf("%s into a after the store's generation moved: %v", h.Event, err)
		}
	}
	if res.State != "working" || a.Generation() != b.Generation()+1 {
		t.Fatalf("a answered %+v with generation %d (b %d)", res, a.Generation(), b.Generation())
	}
	// Receive answered: the events are in the store, and so are their rows.
	cs, err := dbB.Changes(ctx, desk.ChangeFilter{After: seq})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Session(res.Session); ok {
		t.Fatal("b knows the session before the feed told it")
	}
	b.Follow(ctx, cs)
	got, ok := b.Session(res.Session)
	want, _ := a.Session(res.Session)
	if !ok || got.State != want.State || len(got.Events) != len(want.Events) || got.Cwd != want.Cwd {
		t.Fatalf("b follows with %+v (found %v); a holds %+v", got, ok, want)
	}
	if b.Stats().Followed == 0 {
		t.Error("b counted no session followed")
	}
	b.Follow(ctx, []*desk.Change{{Type: desk.ChangeAgent, Action: "removed", Actor: res.Session}})
	if _, ok := b.Session(res.Session); ok {
		t.Error("b keeps a session the feed says was merged away")
	}
}
