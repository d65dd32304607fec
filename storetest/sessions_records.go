package storetest

import (
	"context"
	"testing"
	"time"

	"desk"
	"desk/agent"
)

// testManagedSessionsKeepTheirRecords holds the managed sessions' records
// to SessionService's contract: a record is created once, read, listed
// newest first (running ones unless all), changed under IfState, and
// every write appends a session feed row.
func testManagedSessionsKeepTheirRecords(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	start, err := db.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	a := &desk.Session{ID: "s-aaaa", Kind: "claude", Name: "fixer", Cwd: "/work/game", Project: "mygame",
		Command: []string{"claude", "--resume"}, State: desk.SessionRunning, StartedAt: t0, Generation: 1, Bypass: true, Hooks: "launch"}
	b := &desk.Session{ID: "s-bbbb", Kind: "bash", Cwd: "/work", State: desk.SessionRunning, StartedAt: t0.Add(time.Minute), Generation: 1}
	for _, s := range []*desk.Session{a, b} {
		if err := db.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateSession(ctx, &desk.Session{ID: "s-aaaa", Kind: "bash", State: desk.SessionRunning}); desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("a second record s-aaaa: %v", err)
	}
	if err := db.CreateSession(ctx, &desk.Session{ID: "s-cccc"}); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("a record with no kind: %v", err)
	}
	got, err := db.Session(ctx, "s-aaaa")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "fixer" || len(got.Command) != 2 || !got.Bypass || !got.StartedAt.Equal(t0) || got.ExitCode != nil || got.Hooks != "launch" {
		t.Fatalf("read back %+v", got)
	}
	if _, err := db.Session(ctx, "s-none"); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("an unknown session: %v", err)
	}

	exited, code, ended := desk.SessionExited, ptr(0), t0.Add(time.Hour)
	if _, err := db.UpdateSession(ctx, "s-bbbb", desk.SessionUpdate{State: &exited, ExitCode: &code, EndedAt: &ended, IfState: desk.SessionRunning}); err != nil {
		t.Fatal(err)
	}
	// The second process to notice the same exit is refused.
	if _, err := db.UpdateSession(ctx, "s-bbbb", desk.SessionUpdate{State: &exited, IfState: desk.SessionRunning}); desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("a second exit: %v", err)
	}
	running, err := db.Sessions(ctx, desk.SessionFilter{})
	if err != nil || len(running) != 1 || running[0].ID != "s-aaaa" {
		t.Fatalf("running sessions: %+v, %v", running, err)
	}
	all, err := db.Sessions(ctx, desk.SessionFilter{All: true})
	if err != nil || len(all) != 2 || all[0].ID != "s-bbbb" || all[0].ExitCode == nil || *all[0].ExitCode != 0 || !all[0].EndedAt.Equal(ended) {
		t.Fatalf("all sessions: %+v, %v", all, err)
	}
	if shells, _ := db.Sessions(ctx, desk.SessionFilter{All: true, Kind: "bash"}); len(shells) != 1 {
		t.Fatalf("bash sessions: %+v", shells)
	}
	cs, err := db.Changes(ctx, desk.ChangeFilter{After: start})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, c := range cs {
		if c.Type == desk.ChangeSession {
			actions = append(actions, c.Actor+" "+c.Action)
		}
	}
	if len(actions) != 3 || actions[0] != "s-aaaa created" || actions[2] != "s-bbbb updated" {
		t.Fatalf("session feed rows %v", actions)
	}
}

// testAgentByLaunchFindsTheLatestSessionOfALaunch holds AgentByLaunch to
// the agent session saved last for a managed launch.
func testAgentByLaunchFindsTheLatestSessionOfALaunch(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	old := agentSession("s1", "working", agentT0)
	old.Launch = "s-aaaa"
	newer := agentSession("s2", "working", agentT0.Add(time.Minute))
	newer.Launch = "s-aaaa"
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{old, newer}}); err != nil {
		t.Fatal(err)
	}
	raw, ok, err := db.AgentByLaunch(ctx, "s-aaaa")
	if err != nil || !ok {
		t.Fatalf("by launch: %v %v", ok, err)
	}
	var s agent.Session
	if err := s.UnmarshalJSON(raw); err != nil || s.ID != "s2" {
		t.Fatalf("by launch found %s (%v)", raw, err)
	}
	if _, ok, err := db.AgentByLaunch(ctx, "s-none"); ok || err != nil {
		t.Fatalf("an unknown launch: %v %v", ok, err)
	}
}
