package load

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// MixedResult is the mixed run.
type MixedResult struct {
	Owner []Named `json:"owner"`
	MCP   []Named `json:"mcp"`
	// Live is the time from a write sent to an MCP process to the moment a
	// subscriber of the server's event stream reads it.
	Live Stats `json:"live"`
	// CLI holds the wall times of CLI commands and hooks, process start
	// included.
	CLI []Named `json:"cli,omitempty"`
	// BusyBefore is how many cores the machine kept busy just before the
	// run; OtherCores how many other processes kept busy during it.
	BusyBefore float64 `json:"busy_before"`
	OtherCores float64 `json:"other_cores"`
	// StolenCores is the part of OtherCores the hypervisor took to run
	// other machines on this one's cores.
	StolenCores float64 `json:"stolen_cores"`
	// ServerCores and MCPCores are the cores the server and all MCP
	// processes together kept busy during the run: desk's own cost.
	ServerCores  float64   `json:"server_cores"`
	MCPCores     float64   `json:"mcp_cores"`
	Seconds      float64   `json:"seconds"`
	Ops          int       `json:"ops"`
	Errors       int       `json:"errors"`
	PerSecond    float64   `json:"per_second"`
	ServerPeakMB float64   `json:"server_peak_mb"`
	MCPPeakMB    []float64 `json:"mcp_peak_mb"`
}

// mixedTools are an agent's calls; each round makes all five, starting one
// further along for each agent and each round.
var mixedTools = []string{"mcp_list", "mcp_get", "mcp_comment", "mcp_progress", "mcp_handoff"}

func runMixed(ctx context.Context, cfg *Config, info *DeskInfo, fx *fixture) (*MixedResult, error) {
	busy := cfg.waitQuiet(ctx)
	srv, err := StartServer(ctx, cfg.Bin, cfg.Data, cfg.env("server-mixed")...)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	agents, err := startAgents(cfg, cfg.Agents, "agent")
	if err != nil {
		return nil, err
	}
	probe, err := StartMCP(cfg.Bin, cfg.Data, "probe", cfg.env("mcp-probe")...)
	if err != nil {
		closeAgents(agents)
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := Subscribe(sctx, srv.URL, "/api/projects/"+fx.project+"/events")
	if err != nil {
		closeAgents(append(agents, probe))
		return nil, err
	}

	// One unrecorded round first, as every run here starts with warm-ups:
	// an agent's MCP server lives as long as its session, so what the run
	// measures is a server that has answered before, not its first call.
	warm(cfg, agents, probe, srv, info, fx)

	owner, calls, live, cli := NewRecorder(), NewRecorder(), NewRecorder(), NewRecorder()
	var ownerDone atomic.Bool
	var start time.Time
	gate := make(chan struct{})
	var wg sync.WaitGroup
	at := func(steps float64) { time.Sleep(time.Until(start.Add(time.Duration(steps * float64(cfg.Pace))))) }

	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			var step int
			for t := 0; (t < cfg.Passes || !ownerDone.Load()) && ctx.Err() == nil; t++ {
				at(float64(t) + float64(i)/float64(len(agents)))
				for j := range mixedTools {
					name := mixedTools[(i+t+j)%len(mixedTools)]
					tool, args := agentCall(name, i, &step, info, fx)
					_ = calls.Time(name, func() error { _, err := a.Call(tool, args); return err })
				}
			}
		}()
	}

	wg.Add(1)
	go func() {
		// The owner's page on one keep-alive connection. Its passes are
		// paced like the agents' rounds: Pair Desk's owner took about a
		// second per pass, so its thirty passes spread over the run the
		// same way.
		defer wg.Done()
		defer ownerDone.Store(true)
		<-gate
		c := keepAliveClient()
		paths := map[string]string{}
		for _, ep := range Endpoints(info) {
			paths[ep.Name] = srv.URL + ep.Path
		}
		for p := 0; p < cfg.Passes && ctx.Err() == nil; p++ {
			at(float64(p))
			for _, name := range ownerPass {
				_ = owner.Time("owner_"+name, func() error { return get(c, paths[name]) })
			}
		}
	}()

	wg.Add(1)
	go func() {
		defer wg.Done()
		<-gate
		key := fx.issues[len(fx.issues)-1]
		for k := 0; k < cfg.Probes && ctx.Err() == nil; k++ {
			at(float64(k) + 0.5)
			actor := fmt.Sprintf("probe-%d", k+1)
			sent := time.Now()
			if _, err := probe.Call("comment", map[string]any{"id": key, "text": "Live probe " + actor, "author": actor}); err != nil {
				live.Fail("live", err)
				continue
			}
			if err := awaitChange(events, key, actor, sent, live); err != nil {
				live.Fail("live", err)
			}
		}
	}()

	if cfg.CLI {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			runCLI(ctx, cfg, info, fx, cli, at)
		}()
	}

	pids := []int{srv.PID(), probe.PID()}
	for _, a := range agents {
		pids = append(pids, a.PID())
	}
	meter := newCPUMeter(pids...)
	start = time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(start)

	res := &MixedResult{Seconds: elapsed.Seconds(), BusyBefore: busy, OtherCores: meter.others(), StolenCores: meter.stolen(), ServerCores: meter.cores(srv.PID())}
	for _, pid := range pids[1:] {
		res.MCPCores += meter.cores(pid)
	}
	res.Owner = owner.Results(0)
	res.MCP = calls.Results(elapsed)
	res.Live = one(live.Results(0))
	res.CLI = cli.Results(0)
	for _, r := range []*Recorder{owner, calls, live, cli} {
		ops, errs := r.Total()
		res.Ops += ops
		res.Errors += errs
	}
	res.PerSecond = float64(res.Ops) / elapsed.Seconds()
	res.MCPPeakMB = closeAgents(append(agents, probe))
	res.ServerPeakMB = float64(srv.PeakMemoryKB()) / 1024
	cfg.logf("mixed: %d operations in %.1f s (%.1f/s), %d errors; server peak %.1f MB; cores busy: server %.2f, MCP %.2f, other processes %.2f (stolen by the hypervisor %.2f)",
		res.Ops, res.Seconds, res.PerSecond, res.Errors, res.ServerPeakMB, res.ServerCores, res.MCPCores, res.OtherCores, res.StolenCores)
	return res, nil
}

// warm makes one round of every agent's calls, one owner pass and one
// probe write, all at once, and records nothing.
func warm(cfg *Config, agents []*MCP, probe *MCP, srv *Server, info *DeskInfo, fx *fixture) {
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			step := 0
			for _, name := range mixedTools {
				tool, args := agentCall(name, i, &step, info, fx)
				if name == "mcp_progress" || name == "mcp_comment" {
					// The same writes on the agent's own fixture issue,
					// without a step: the plan walk starts from step 1.
					tool, args = "progress", map[string]any{"id": fx.issues[i], "text": "warming up", "author": "bench"}
				}
				_, _ = a.Call(tool, args)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := keepAliveClient()
		for _, ep := range Endpoints(info) {
			_ = get(c, srv.URL+ep.Path)
		}
		_, _ = probe.Call("comment", map[string]any{"id": fx.issues[len(fx.issues)-1], "text": "warming up", "author": "probe"})
	}()
	wg.Wait()
}

// agentCall is agent i's call of one kind. Progress walks the agent's own
// fixture plan: a step starts, then finishes, then the next one; after the
// last the plan starts over, as the issue goes back to in_progress.
func agentCall(name string, i int, step *int, info *DeskInfo, fx *fixture) (string, map[string]any) {
	switch name {
	case "mcp_list":
		return "list_issues", listArgs(info)
	case "mcp_get":
		return "get_issue", map[string]any{"id": info.Detail}
	case "mcp_comment":
		return "comment", map[string]any{"id": info.Rich[i%len(info.Rich)], "text": "Mixed benchmark comment", "author": "bench"}
	case "mcp_progress":
		n := *step
		*step++
		state := "doing"
		if n%2 == 1 {
			state = "done"
		}
		return "progress", map[string]any{"id": fx.issues[i], "step": (n/2)%3 + 1, "state": state, "text": "step " + state, "author": "bench"}
	}
	return "get_handoff", map[string]any{"project": info.Project}
}

// awaitChange waits for the change event of the probe's comment and
// records how long after sent it arrived.
func awaitChange(events <-chan arrival, key, actor string, sent time.Time, live *Recorder) error {
	timeout := time.After(5 * time.Second)
	for {
		select {
		case a, ok := <-events:
			if !ok {
				return fmt.Errorf("the event stream closed")
			}
			for _, r := range a.rows {
				if r.Type == "comment" && r.Actor == actor && r.Issue != nil && *r.Issue == key {
					live.Add("live", a.at.Sub(sent))
					return nil
				}
			}
		case <-timeout:
			return fmt.Errorf("%s's comment did not reach the event stream within 5 s", actor)
		}
	}
}

// runCLI times the CLI and the hooks once per pass: what an agent's shell
// and its CLI's hooks cost, process start included.
func runCLI(ctx context.Context, cfg *Config, info *DeskInfo, fx *fixture, rec *Recorder, at func(float64)) {
	payload := func(session, event string, extra map[string]any) string {
		m := map[string]any{"session_id": session, "cwd": fx.linked, "hook_event_name": event}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	run := func(name, stdin string, check func([]byte) error, args ...string) {
		args = append([]string{"--data", cfg.Data}, args...)
		d, out, err := RunWall(ctx, fx.linked, stdin, cfg.Bin, args...)
		if err == nil && check != nil {
			err = check(out)
		}
		if err != nil {
			rec.Fail(name, err)
			return
		}
		rec.Add(name, d)
	}
	nonEmpty := func(out []byte) error {
		if len(trimSpace(out)) == 0 {
			return fmt.Errorf("printed nothing")
		}
		return nil
	}
	for k := 0; k < cfg.Passes && ctx.Err() == nil; k++ {
		at(float64(k) + 0.25)
		run("cli_list", "", nonEmpty, "list", "--project", info.Project, "--json", "--limit", "50")
		run("cli_show", "", nonEmpty, "show", info.Detail, "--json")
		session := fmt.Sprintf("bench-%d", k+1)
		run("hook_session_start", payload(session, "SessionStart", map[string]any{"source": "startup"}), nonEmpty,
			"hook", "session-start", "--client", "claude")
		run("hook_prompt", payload(session, "UserPromptSubmit", map[string]any{"prompt": "carry on"}), nil,
			"hook", "user-prompt-submit", "--client", "claude")
	}
}
