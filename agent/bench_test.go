package agent_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"desk/agent"
)

// turn is one realistic turn of hook events: a prompt, a read, an edit that
// needs approval, a test run, the end.
func turn(client, session string, start time.Time) []agent.Event {
	step := func(i int, k agent.Kind, opts ...func(*agent.Event)) agent.Event {
		return ev(client, session, k, start.Add(time.Duration(i)*50*time.Millisecond), opts...)
	}
	return []agent.Event{
		step(0, agent.KindPrompt),
		step(1, agent.KindToolStart, tool("Read", "/src/desk/store.go", "t1")),
		step(2, agent.KindToolEnd, tool("Read", "", "t1")),
		step(3, agent.KindToolStart, tool("Edit", "/src/desk/store.go", "t2")),
		step(4, agent.KindPermissionRequest, tool("Edit", "/src/desk/store.go", "")),
		step(5, agent.KindToolEnd, tool("Edit", "", "t2")),
		step(6, agent.KindToolStart, tool("Bash", "go test ./...", "t3")),
		step(7, agent.KindToolEnd, tool("Bash", "", "t3")),
		step(8, agent.KindToolStart, tool("mcp__desk__create_issue", "", "t4")),
		step(9, agent.KindToolEnd, tool("mcp__desk__create_issue", "", "t4")),
		step(10, agent.KindStop),
	}
}

// workload is n sessions' turns interleaved, times rising.
func workload(n, turns int) []agent.Event {
	var out []agent.Event
	for k := range turns {
		start := t0.Add(time.Duration(k) * time.Second)
		per := make([][]agent.Event, n)
		for s := range n {
			per[s] = turn("claude", fmt.Sprintf("session-%02d", s), start)
		}
		for i := range per[0] {
			for s := range n {
				out = append(out, per[s][i])
			}
		}
	}
	return out
}

// BenchmarkApply measures one event applied to one of 50 busy sessions.
func BenchmarkApply(b *testing.B) {
	evs := workload(50, 40)
	tr := newTracker(&clock{t0})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e := evs[i%len(evs)]
		// Keep time rising across laps so that no event is late.
		e.Time = e.Time.Add(time.Duration(i/len(evs)) * time.Hour)
		if _, err := tr.Apply(e); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkApplyParallel measures Apply under contention from every core.
func BenchmarkApplyParallel(b *testing.B) {
	tr := newTracker(&clock{t0})
	b.ReportAllocs()
	var mu sync.Mutex
	next := 0
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		id := fmt.Sprintf("session-%02d", next)
		next++
		mu.Unlock()
		evs := turn("claude", id, t0)
		i := 0
		for pb.Next() {
			e := evs[i%len(evs)]
			e.Time = e.Time.Add(time.Duration(i/len(evs)) * time.Second)
			if _, err := tr.Apply(e); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// BenchmarkDecodeApply measures a captured Claude Code hook payload from
// bytes to an applied event: the server's whole work per hook.
func BenchmarkDecodeApply(b *testing.B) {
	lines := readFixture(b, "testdata/hooks/claude-code-2.1.197-interactive.jsonl")
	tr := newTracker(&clock{t0})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l := lines[i%len(lines)]
		evs, err := agent.Decode(agent.Input{Client: "claude", Payload: l.Payload, Received: t0.Add(time.Duration(i) * time.Millisecond)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tr.Apply(evs[0]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkTick measures one timer pass over 50 sessions.
func BenchmarkTick(b *testing.B) {
	c := &clock{t0}
	tr := newTracker(c)
	for _, e := range workload(50, 1) {
		tr.Apply(e)
	}
	b.ReportAllocs()
	for b.Loop() {
		tr.Tick()
	}
}

// BenchmarkSessions measures a snapshot of 50 sessions, as GET /api/agents
// takes one.
func BenchmarkSessions(b *testing.B) {
	tr := newTracker(&clock{t0})
	for _, e := range workload(50, 1) {
		tr.Apply(e)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(tr.Sessions()) != 50 {
			b.Fatal("lost sessions")
		}
	}
}

// Fifty sessions reporting twenty events a second each, all at once, for
// ten seconds' worth of events: every event is applied and recorded, and
// every session ends where its last event left it.
func TestFiftyBusySessionsLoseNoEvent(t *testing.T) {
	const sessions, perSession = 50, 200
	tr := newTracker(&clock{t0})
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	start := time.Now()
	for s := range sessions {
		wg.Go(func() {
			id := fmt.Sprintf("session-%02d", s)
			var evs []agent.Event
			for k := 0; len(evs) < perSession; k++ {
				evs = append(evs, turn("claude", id, t0.Add(time.Duration(k)*time.Second))...)
			}
			evs = evs[:perSession-1]
			evs = append(evs, ev("claude", id, agent.KindStop, t0.Add(time.Hour)))
			for _, e := range evs {
				u, err := tr.Apply(e)
				if err != nil || !u.Recorded || u.Late {
					errs <- fmt.Errorf("%s %s: err=%v recorded=%v late=%v", id, e.Kind, err, u.Recorded, u.Late)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	elapsed := time.Since(start)
	all := tr.Sessions()
	if len(all) != sessions {
		t.Fatalf("%d sessions", len(all))
	}
	for _, s := range all {
		full := mustSession(t, tr, s.ID)
		if s.State != agent.StateDone || len(full.Events) != agent.RecentEvents || !full.Events[len(full.Events)-1].Time.Equal(t0.Add(time.Hour)) {
			t.Errorf("%s: %s with %d events", s.ID, s.State, len(full.Events))
		}
	}
	t.Logf("%d events in %v (%v per event); the load is %d a second", sessions*perSession, elapsed, elapsed/(sessions*perSession), sessions*20)
}
