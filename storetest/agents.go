package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"desk"
	"desk/agent"
)

var agentT0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func agentSession(id, state string, at time.Time) agent.Session {
	return agent.Session{
		ID: id, Client: "claude", ProviderID: id, Cwd: "/src/game", Project: "mygame",
		State: agent.State(state), Since: at, StartedAt: at, UpdatedAt: at, Source: agent.SourceHook, Hooked: true,
	}
}

func agentEvent(session string, kind agent.Kind, at time.Time) agent.StoredEvent {
	return agent.StoredEvent{Session: session, Event: agent.Event{
		Client: "claude", Session: session, Kind: kind, Time: at, Source: agent.SourceHook,
		Raw: []byte(`{"hook_event_name":"x"}`),
	}}
}

func mustStartAgents(t *testing.T, db Store) int64 {
	t.Helper()
	gen, err := db.StartAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

func agentChanges(t *testing.T, db Store, after int64) []*desk.Change {
	t.Helper()
	all, err := db.Changes(context.Background(), desk.ChangeFilter{After: after})
	if err != nil {
		t.Fatal(err)
	}
	var out []*desk.Change
	for _, c := range all {
		if c.Type == desk.ChangeAgent {
			out = append(out, c)
		}
	}
	return out
}

func testAgentBatchRoundTripsThroughLoadAgents(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	s := agentSession("s1", "working", agentT0)
	s.Activity = &agent.Activity{Kind: agent.ActivityEditing, Label: "Editing store.go", Tool: "Edit", Since: agentT0}
	s.Aliases = []string{"s0"}
	err := db.SaveAgents(ctx, agent.Batch{Generation: gen,
		Sessions: []agent.Session{s},
		Events:   []agent.StoredEvent{agentEvent("s1", agent.KindPrompt, agentT0), agentEvent("s1", agent.KindToolStart, agentT0.Add(time.Second))},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.LoadAgents(ctx, agentT0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d sessions, want 1", len(got))
	}
	g := got[0]
	if g.ID != "s1" || g.State != agent.StateWorking || g.Activity == nil || g.Activity.Label != "Editing store.go" ||
		g.Project != "mygame" || !g.UpdatedAt.Equal(agentT0) || len(g.Aliases) != 1 {
		t.Errorf("restored %+v", g)
	}
	if len(g.Events) != 2 || g.Events[0].Kind != agent.KindPrompt || g.Events[1].Kind != agent.KindToolStart || g.Events[1].Raw != nil {
		t.Errorf("restored events %+v, want prompt then tool_start without raw payloads", g.Events)
	}
	full, err := db.AgentEvents(ctx, "s1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 2 || string(full[0].Raw) != `{"hook_event_name":"x"}` {
		t.Errorf("events with payloads = %+v", full)
	}
}

func testSaveAgentsAppendsOneFeedRowPerSession(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	last, _ := db.LastSeq(ctx)
	a1 := agentSession("a", "working", agentT0)
	a2 := agentSession("a", "done", agentT0.Add(time.Second))
	b := agentSession("b", "waiting_input", agentT0)
	b.Project = ""
	err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{a1, b, a2},
		Events: []agent.StoredEvent{agentEvent("a", agent.KindPrompt, agentT0), agentEvent("a", agent.KindStop, agentT0), agentEvent("b", agent.KindSessionStart, agentT0)}})
	if err != nil {
		t.Fatal(err)
	}
	rows := agentChanges(t, db, last)
	if len(rows) != 2 {
		t.Fatalf("%d feed rows, want one per session: %+v", len(rows), rows)
	}
	if rows[0].Actor != "a" || rows[0].Project != "mygame" || rows[0].Action != "updated" || rows[0].ID == 0 || !rows[0].IsLive() {
		t.Errorf("row for a = %+v", rows[0])
	}
	if rows[1].Actor != "b" || rows[1].Project != "" {
		t.Errorf("row for b = %+v", rows[1])
	}
	got, _ := db.LoadAgents(ctx, agentT0, 10)
	for _, s := range got {
		if s.ID == "a" && s.State != agent.StateDone {
			t.Errorf("a = %s, want the batch's last snapshot (done)", s.State)
		}
	}
}

// A server that outlived a newer server's start must not overwrite what the
// newer one tracks.
func testSaveAgentsRefusesAnOlderGeneration(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	old := mustStartAgents(t, db)
	cur := mustStartAgents(t, db)
	if cur != old+1 {
		t.Fatalf("generations %d then %d, want consecutive", old, cur)
	}
	if g, err := db.AgentGeneration(ctx); err != nil || g != cur {
		t.Fatalf("AgentGeneration = %d, %v; want %d", g, err, cur)
	}
	err := db.SaveAgents(ctx, agent.Batch{Generation: old, Sessions: []agent.Session{agentSession("s", "working", agentT0)}})
	wantCode(t, err, desk.Conflict)
	if got, _ := db.LoadAgents(ctx, agentT0, 10); len(got) != 0 {
		t.Errorf("a refused batch left %d sessions", len(got))
	}
	if err := db.SaveAgents(ctx, agent.Batch{Generation: cur, Sessions: []agent.Session{agentSession("s", "working", agentT0)}}); err != nil {
		t.Fatal(err)
	}
}

func testAgentEventsAreTrimmedToTheLatest(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	s := agentSession("s", "working", agentT0)
	for batch := 0; batch < 3; batch++ {
		b := agent.Batch{Generation: gen, Sessions: []agent.Session{s}}
		for i := 0; i < agent.EventsKept; i++ {
			e := agentEvent("s", agent.KindToolProgress, agentT0.Add(time.Duration(batch*1000+i)*time.Millisecond))
			e.Event.Message = fmt.Sprint(batch*1000 + i)
			b.Events = append(b.Events, e)
		}
		if err := db.SaveAgents(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.TrimAgentEvents(ctx, []string{"s", "gone"}); err != nil {
		t.Fatal(err)
	}
	evs, err := db.AgentEvents(ctx, "s", 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != agent.EventsKept || evs[0].Message != "2000" || evs[len(evs)-1].Message != fmt.Sprint(2000+agent.EventsKept-1) {
		t.Errorf("kept %d events from %s to %s, want the last %d", len(evs), evs[0].Message, evs[len(evs)-1].Message, agent.EventsKept)
	}
}

// A /clear seen out of order folds one record into another: its events and
// issues move to the survivor and the feed says it went.
func testSaveAgentsMergesARecordIntoItsSurvivor(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("a bug")}, "owner")
	gen := mustStartAgents(t, db)
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen,
		Sessions: []agent.Session{agentSession("old", "waiting_input", agentT0), agentSession("new", "working", agentT0)},
		Events:   []agent.StoredEvent{agentEvent("new", agent.KindPrompt, agentT0)}}); err != nil {
		t.Fatal(err)
	}
	if err := db.AgentTouched(ctx, "claude", "new", "/src/game", is.ID); err != nil {
		t.Fatal(err)
	}
	last, _ := db.LastSeq(ctx)
	survivor := agentSession("old", "working", agentT0.Add(time.Second))
	survivor.ProviderID, survivor.Aliases = "new", []string{"old"}
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{survivor},
		Merged: []agent.Merge{{From: "new", Into: "old"}}}); err != nil {
		t.Fatal(err)
	}
	got, _ := db.LoadAgents(ctx, agentT0, 10)
	if len(got) != 1 || got[0].ID != "old" || len(got[0].Events) != 1 || len(got[0].Issues) != 1 || got[0].Issues[0] != is.ID {
		t.Fatalf("after the merge: %+v", got)
	}
	rows := agentChanges(t, db, last)
	if len(rows) != 2 || rows[0].Actor != "old" || rows[1].Actor != "new" || rows[1].Action != "removed" {
		t.Errorf("feed = %+v, want old updated and new removed", rows)
	}
	// The merged record's provider id now leads to the survivor.
	if err := db.AgentTouched(ctx, "claude", "new", "", is.ID); err != nil {
		t.Fatal(err)
	}
	rows = agentChanges(t, db, last)
	if r := rows[len(rows)-1]; r.Action != "touched" || r.Actor != "old" {
		t.Errorf("touch row = %+v, want matched to old", r)
	}
}

func testAgentTouchedMatchesByProviderIDOrWaitsForTheServer(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("a bug")}, "owner")
	gen := mustStartAgents(t, db)
	s := agentSession("rec", "working", agentT0)
	s.ProviderID, s.Aliases = "p2", []string{"p1"}
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{s}}); err != nil {
		t.Fatal(err)
	}
	last, _ := db.LastSeq(ctx)

	// By an alias: the record's id, at once.
	if err := db.AgentTouched(ctx, "claude", "p1", "/src/game", "mg-1"); err != nil {
		t.Fatal(err)
	}
	rows := agentChanges(t, db, last)
	if len(rows) != 1 || rows[0].Action != "touched" || rows[0].Actor != "rec" || rows[0].Issue == nil || *rows[0].Issue != is.ID || rows[0].Project != "mygame" {
		t.Fatalf("touch feed = %+v", rows)
	}
	touches, err := db.AgentTouchesAfter(ctx, rows[0].ID-1)
	if err != nil || len(touches) == 0 {
		t.Fatalf("touches after %d: %+v, %v", rows[0].ID-1, touches, err)
	}
	if tt := touches[0]; tt.Session != "rec" || tt.Issue != is.ID || tt.Cwd != "/src/game" {
		t.Fatalf("touch = %+v", tt)
	}

	// By folder only: recorded, unmatched, for the server to match.
	if err := db.AgentTouched(ctx, "codex", "", "/src/game/sub", is.ID); err != nil {
		t.Fatal(err)
	}
	open, err := db.UnmatchedAgentTouches(ctx, agentT0)
	if err != nil || len(open) != 1 || open[0].Client != "codex" || open[0].Session != "" {
		t.Fatalf("unmatched = %+v, %v", open, err)
	}
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Matched: []agent.Match{{Touch: open[0].ID, Session: "rec"}}}); err != nil {
		t.Fatal(err)
	}
	if open, _ := db.UnmatchedAgentTouches(ctx, agentT0); len(open) != 0 {
		t.Errorf("still unmatched after the server matched it: %+v", open)
	}
	got, _ := db.LoadAgents(ctx, agentT0, 10)
	if len(got[0].Issues) != 1 {
		t.Errorf("issues = %v, want the one issue once", got[0].Issues)
	}
}

func testAgentTouchedRefusesWhatItCannotPlace(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	wantCode(t, db.AgentTouched(ctx, "claude", "p", "/x", "MG-99"), desk.NotFound)
	wantCode(t, db.AgentTouched(ctx, "claude", "p", "/x", " "), desk.Invalid)
	MustIssue(t, db, desk.IssueFields{Title: ptr("a")}, "owner")
	wantCode(t, db.AgentTouched(ctx, "claude", "", "", "MG-1"), desk.Invalid)
}

func testAgentLastSeenCountsHookEventsPerClient(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	tr := agentEvent("s", agent.KindMessage, agentT0.Add(time.Hour))
	tr.Event.Source = agent.SourceTranscript
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{agentSession("s", "working", agentT0)},
		Events: []agent.StoredEvent{agentEvent("s", agent.KindPrompt, agentT0), agentEvent("s", agent.KindStop, agentT0.Add(time.Minute)), tr}}); err != nil {
		t.Fatal(err)
	}
	seen, err := db.AgentLastSeen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || !seen["claude"].Equal(agentT0.Add(time.Minute)) {
		t.Errorf("last seen = %v, want claude at the last hook event (transcripts do not count)", seen)
	}
}

func testPruneAgentsDropsOldSessionsWithTheirRows(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen,
		Sessions: []agent.Session{agentSession("old", "ended", agentT0), agentSession("new", "working", agentT0.Add(48*time.Hour))},
		Events:   []agent.StoredEvent{agentEvent("old", agent.KindSessionEnd, agentT0)}}); err != nil {
		t.Fatal(err)
	}
	n, err := db.PruneAgents(ctx, agentT0.Add(24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if _, err := db.AgentEvents(ctx, "old", 10); desk.ErrorCode(err) != desk.NotFound {
		t.Errorf("old session still there: %v", err)
	}
	got, _ := db.LoadAgents(ctx, time.Time{}, 10)
	if len(got) != 1 || got[0].ID != "new" {
		t.Errorf("left %+v", got)
	}
}

// The feed keeps its other rows, and its recent agent rows.
func testPruneAgentsTrimsOldAgentFeedRows(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	clock := agentT0
	be.SetClock(db, func() time.Time { return clock })
	MustProject(t, db)
	gen := mustStartAgents(t, db)
	db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{agentSession("old", "working", agentT0)}})
	clock = agentT0.Add(48 * time.Hour)
	db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{agentSession("new", "working", clock)}})
	before := agentChanges(t, db, 0)
	if _, err := db.PruneAgents(ctx, agentT0.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	after := agentChanges(t, db, 0)
	if len(before) != 2 || len(after) != 1 || after[0].Actor != "new" {
		t.Errorf("agent feed rows %d before, after %+v", len(before), after)
	}
	all, _ := db.Changes(ctx, desk.ChangeFilter{})
	if len(all) == len(after) {
		t.Error("the project's own feed rows went too")
	}
}

// A starting server restores the sessions heard from lately, whatever
// their state.
func testLoadAgentsLeavesOutSessionsLongSilent(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	gen := mustStartAgents(t, db)
	if err := db.SaveAgents(ctx, agent.Batch{Generation: gen, Sessions: []agent.Session{
		agentSession("ended-long-ago", "ended", agentT0),
		agentSession("working-long-ago", "working", agentT0),
		agentSession("ended-now", "ended", agentT0.Add(2*time.Hour)),
		agentSession("working-now", "working", agentT0.Add(3*time.Hour)),
	}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.LoadAgents(ctx, agentT0.Add(time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if fmt.Sprint(ids) != "[working-now ended-now]" {
		t.Errorf("restored %v", ids)
	}
}
