package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// drive runs the workload on servers for cfg.Duration: the fixture, then
// the agents, the owners and the probe at once; with kill, the last server
// is killed halfway. It returns the figures and fills in the acknowledged
// writes for check.
func drive(ctx context.Context, cfg *TeamConfig, servers []*Server, kill bool) (*DeskRun, error) {
	setup := newFailover(servers, 0)
	fx, err := makeFixture(ctx, cfg, setup)
	if err != nil {
		return nil, fmt.Errorf("the fixture: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The probe writes through the first replica; its subscriber listens
	// on the second (or the only one).
	events, err := Subscribe(sctx, servers[1%len(servers)].URL, "/api/projects/"+fx.project+"/events")
	if err != nil {
		return nil, err
	}
	// Each owner's page holds the project's event stream too.
	for k := 0; k < cfg.Owners; k++ {
		ch, err := Subscribe(sctx, servers[k%len(servers)].URL, "/api/projects/"+fx.project+"/events")
		if err != nil {
			return nil, err
		}
		go func() {
			for range ch {
			}
		}()
	}

	rec := NewRecorder()
	var (
		mu      sync.Mutex
		acked   []string
		retries int
		wg      sync.WaitGroup
		start   time.Time
	)
	gate := make(chan struct{})
	at := func(d time.Duration) bool {
		wait := time.Until(start.Add(d))
		if d >= cfg.Duration {
			return false
		}
		select {
		case <-time.After(wait):
			return true
		case <-ctx.Done():
			return false
		}
	}
	timed := func(f *failover, name, method, path string, body any) bool {
		t0 := time.Now()
		n, err := f.call(ctx, method, path, body, nil)
		d := time.Since(t0)
		mu.Lock()
		retries += n
		mu.Unlock()
		if err != nil {
			rec.Fail(name, err)
			return false
		}
		rec.Add(name, d)
		return true
	}

	for i := 0; i < cfg.Agents; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newFailover(servers, i)
			<-gate
			p := "/api/projects/" + fx.project
			step := 0
			for t := 0; at(time.Duration(t)*cfg.Pace + time.Duration(i)*cfg.Pace/time.Duration(cfg.Agents)); t++ {
				for j := range teamAgentCalls {
					switch name := teamAgentCalls[(i+t+j)%len(teamAgentCalls)]; name {
					case "agent_list":
						timed(f, name, "GET", p+"/issues?sort=backlog&status=open,in_progress&limit=50", nil)
					case "agent_get":
						timed(f, name, "GET", "/api/issues/"+fx.detail, nil)
					case "agent_comment":
						text := fmt.Sprintf("bench write %d.%d", i+1, t+1)
						if timed(f, name, "POST", "/api/issues/"+fx.own[i]+"/comments", map[string]any{"text": text, "author": fmt.Sprintf("agent-%d", i+1)}) {
							mu.Lock()
							acked = append(acked, text)
							mu.Unlock()
						}
					case "agent_progress":
						state := "doing"
						if step%2 == 1 {
							state = "done"
						}
						n := (step/2)%3 + 1
						step++
						timed(f, name, "PATCH", fmt.Sprintf("/api/issues/%s/plan/steps/%d", fx.own[i], n), map[string]any{"state": state, "actor": fmt.Sprintf("agent-%d", i+1)})
					case "agent_handoff":
						timed(f, name, "GET", p+"/handoff", nil)
					}
				}
			}
		}()
	}
	for k := 0; k < cfg.Owners; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newFailover(servers, k)
			reads := teamOwnerReads(fx)
			<-gate
			for pass := 0; at(time.Duration(pass)*cfg.Pace + cfg.Pace*time.Duration(k)/time.Duration(cfg.Owners+1)); pass++ {
				for _, r := range reads {
					timed(f, r[0], "GET", r[1], nil)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		probe := newFailover(servers[:1], 0)
		key := fx.own[len(fx.own)-1]
		<-gate
		for k := 0; at(time.Duration(k)*cfg.ProbeEvery + cfg.ProbeEvery/2); k++ {
			actor := fmt.Sprintf("probe-%d", k+1)
			text := "bench write probe " + strconv.Itoa(k+1)
			sent := time.Now()
			if _, err := probe.call(ctx, "POST", "/api/issues/"+key+"/comments", map[string]any{"text": text, "author": actor}, nil); err != nil {
				rec.Fail("live", err)
				continue
			}
			ack := time.Now()
			mu.Lock()
			acked = append(acked, text)
			mu.Unlock()
			seen, err := awaitComment(events, key, actor)
			if err != nil {
				rec.Fail("live", err)
				continue
			}
			// live is the whole way, the write's own time included, as
			// the local run times it; live_after_ack only the way from
			// the commit's answer to the other replica's stream.
			rec.Add("live", seen.Sub(sent))
			rec.Add("live_after_ack", max(seen.Sub(ack), 0))
		}
	}()

	run := &DeskRun{}
	var pids []int
	for _, s := range servers {
		pids = append(pids, s.PID())
	}
	peaks := make([]float64, len(servers))
	if kill {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			if !at(cfg.Duration / 2) {
				return
			}
			victim := servers[len(servers)-1]
			peaks[len(servers)-1] = float64(victim.PeakMemoryKB()) / 1024
			victim.Kill()
			run.Killed = fmt.Sprintf("replica %d killed with SIGKILL at %.1f s", len(servers), time.Since(start).Seconds())
			cfg.logf("%s", run.Killed)
		}()
	}
	start = time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(start)
	for i, s := range servers {
		if peaks[i] == 0 {
			peaks[i] = float64(s.PeakMemoryKB()) / 1024
		}
	}

	run.Seconds, run.Retries, run.PeakMB = elapsed.Seconds(), retries, peaks
	all := rec.Results(elapsed)
	// The table's order: the owner's reads, the agents' calls, then live.
	for _, prefix := range []string{"owner_", "agent_", "live"} {
		for _, n := range all {
			if strings.HasPrefix(n.Name, prefix) {
				run.Rows = append(run.Rows, n)
			}
		}
	}
	run.Ops, run.Errors = rec.Total()
	run.acked = acked
	cfg.logf("%d operations in %.1f s (%.1f/s), %d errors, %d retried on another replica", run.Ops, run.Seconds, float64(run.Ops)/run.Seconds, run.Errors, run.Retries)
	return run, nil
}

// awaitComment waits for the change event of actor's comment on key and
// returns when it was read.
func awaitComment(events <-chan arrival, key, actor string) (time.Time, error) {
	timeout := time.After(5 * time.Second)
	for {
		select {
		case a, ok := <-events:
			if !ok {
				return time.Time{}, fmt.Errorf("the event stream closed")
			}
			for _, r := range a.rows {
				if r.Type == "comment" && r.Actor == actor && r.Issue != nil && *r.Issue == key {
					return a.at, nil
				}
			}
		case <-timeout:
			return time.Time{}, fmt.Errorf("%s's comment did not reach the event stream within 5 s", actor)
		}
	}
}
