package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// workload is one desk's run in progress: the servers it drives, the
// fixture it works on, and what it has measured so far.
type workload struct {
	ctx     context.Context
	cfg     *TeamConfig
	servers []*Server
	fx      *teamFixture
	rec     *Recorder
	start   time.Time

	mu      sync.Mutex
	acked   []string // the texts of the acknowledged comments
	retries int
}

// drive runs the workload on servers for cfg.Duration: the fixture, then
// the agents, the owners and the probe at once; with kill, the last server
// is killed halfway. It returns the figures, with the acknowledged writes
// kept for check.
func drive(ctx context.Context, cfg *TeamConfig, servers []*Server, kill bool) (*DeskRun, error) {
	fx, err := makeFixture(ctx, cfg, newFailover(servers, 0))
	if err != nil {
		return nil, fmt.Errorf("the fixture: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The probe writes through the first replica; its subscriber listens
	// on the second (or the only one).
	events, err := SubscribeAs(sctx, servers[1%len(servers)].URL, servers[1%len(servers)].Token, "/api/projects/"+fx.project+"/events")
	if err != nil {
		return nil, err
	}
	// Each owner's page holds the project's event stream too.
	for k := 0; k < cfg.Owners; k++ {
		ch, err := SubscribeAs(sctx, servers[k%len(servers)].URL, servers[k%len(servers)].Token, "/api/projects/"+fx.project+"/events")
		if err != nil {
			return nil, err
		}
		go func() {
			for range ch {
			}
		}()
	}

	w := &workload{ctx: ctx, cfg: cfg, servers: servers, fx: fx, rec: NewRecorder()}
	run := &DeskRun{PeakMB: make([]float64, len(servers))}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	spawn := func(fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			fn()
		}()
	}
	for i := 0; i < cfg.Agents; i++ {
		f := newFailover(servers, i)
		spawn(func() { w.agent(i, f) })
	}
	for k := 0; k < cfg.Owners; k++ {
		f := newFailover(servers, k)
		spawn(func() { w.owner(k, f) })
	}
	spawn(func() { w.probe(events) })
	if kill {
		spawn(func() {
			if !w.at(cfg.Duration / 2) {
				return
			}
			victim := len(servers) - 1
			run.PeakMB[victim] = float64(servers[victim].PeakMemoryKB()) / 1024
			servers[victim].Kill()
			run.Killed = fmt.Sprintf("replica %d killed with SIGKILL at %.1f s", victim+1, time.Since(w.start).Seconds())
			cfg.logf("%s", run.Killed)
		})
	}
	w.start = time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(w.start)

	for i, s := range servers {
		if run.PeakMB[i] == 0 {
			run.PeakMB[i] = float64(s.PeakMemoryKB()) / 1024
		}
	}
	run.Seconds, run.Retries, run.acked = elapsed.Seconds(), w.retries, w.acked
	all := w.rec.Results(elapsed)
	// The table's order: the owner's reads, the agents' calls, then live.
	for _, prefix := range []string{"owner_", "agent_", "live"} {
		for _, n := range all {
			if strings.HasPrefix(n.Name, prefix) {
				run.Rows = append(run.Rows, n)
			}
		}
	}
	run.Ops, run.Errors = w.rec.Total()
	cfg.logf("%d operations in %.1f s (%.1f/s), %d errors, %d retried on another replica", run.Ops, run.Seconds, float64(run.Ops)/run.Seconds, run.Errors, run.Retries)
	return run, nil
}

// at waits until d into the run and reports whether the run still goes
// on then.
func (w *workload) at(d time.Duration) bool {
	if d >= w.cfg.Duration {
		return false
	}
	select {
	case <-time.After(time.Until(w.start.Add(d))):
		return true
	case <-w.ctx.Done():
		return false
	}
}

// timed makes one call through f and records its time, its retries
// included, or its failure.
func (w *workload) timed(f *failover, name, method, path string, body any) bool {
	t0 := time.Now()
	n, err := f.call(w.ctx, method, path, body, nil)
	d := time.Since(t0)
	w.mu.Lock()
	w.retries += n
	w.mu.Unlock()
	if err != nil {
		w.rec.Fail(name, err)
		return false
	}
	w.rec.Add(name, d)
	return true
}

func (w *workload) ack(text string) {
	w.mu.Lock()
	w.acked = append(w.acked, text)
	w.mu.Unlock()
}

// agent is agent i's rounds: the five calls, starting one further along
// each round, staggered with the other agents over the pace.
func (w *workload) agent(i int, f *failover) {
	cfg, fx := w.cfg, w.fx
	p := "/api/projects/" + fx.project
	me := fmt.Sprintf("agent-%d", i+1)
	step := 0
	for t := 0; w.at(time.Duration(t)*cfg.Pace + time.Duration(i)*cfg.Pace/time.Duration(cfg.Agents)); t++ {
		for j := range teamAgentCalls {
			switch name := teamAgentCalls[(i+t+j)%len(teamAgentCalls)]; name {
			case "agent_list":
				w.timed(f, name, "GET", p+"/issues?sort=backlog&status=open,in_progress&limit=50", nil)
			case "agent_get":
				w.timed(f, name, "GET", "/api/issues/"+fx.detail, nil)
			case "agent_comment":
				text := fmt.Sprintf("bench write %d.%d", i+1, t+1)
				if w.timed(f, name, "POST", "/api/issues/"+fx.own[i]+"/comments", map[string]any{"text": text, "author": me}) {
					w.ack(text)
				}
			case "agent_progress":
				// The plan walk: a step starts, then ends, then the next.
				state := "doing"
				if step%2 == 1 {
					state = "done"
				}
				n := (step/2)%3 + 1
				step++
				w.timed(f, name, "PATCH", fmt.Sprintf("/api/issues/%s/plan/steps/%d", fx.own[i], n), map[string]any{"state": state, "actor": me})
			case "agent_handoff":
				w.timed(f, name, "GET", p+"/handoff", nil)
			}
		}
	}
}

// owner is owner k's passes over the page's reads.
func (w *workload) owner(k int, f *failover) {
	cfg := w.cfg
	reads := teamOwnerReads(w.fx)
	for pass := 0; w.at(time.Duration(pass)*cfg.Pace + cfg.Pace*time.Duration(k)/time.Duration(cfg.Owners+1)); pass++ {
		for _, r := range reads {
			w.timed(f, r[0], "GET", r[1], nil)
		}
	}
}

// probe writes a comment through the first replica every ProbeEvery and
// times it to its event on the subscriber of another.
func (w *workload) probe(events <-chan arrival) {
	cfg := w.cfg
	f := newFailover(w.servers[:1], 0)
	key := w.fx.own[len(w.fx.own)-1]
	for k := 0; w.at(time.Duration(k)*cfg.ProbeEvery + cfg.ProbeEvery/2); k++ {
		actor := fmt.Sprintf("probe-%d", k+1)
		text := "bench write probe " + strconv.Itoa(k+1)
		sent := time.Now()
		if _, err := f.call(w.ctx, "POST", "/api/issues/"+key+"/comments", map[string]any{"text": text, "author": actor}, nil); err != nil {
			w.rec.Fail("live", err)
			continue
		}
		acked := time.Now()
		w.ack(text)
		seen, err := awaitComment(events, key, actor)
		if err != nil {
			w.rec.Fail("live", err)
			continue
		}
		// live is the whole way, the write's own time included, as the
		// local run times it; live_after_ack only the way from the
		// commit's answer to the other replica's stream.
		w.rec.Add("live", seen.Sub(sent))
		w.rec.Add("live_after_ack", max(seen.Sub(acked), 0))
	}
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
