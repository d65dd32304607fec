// Package load is desk's load benchmark driver. It reproduces the workload
// Pair Desk published its figures for, against real processes: a `desk
// serve` and twenty `desk mcp` servers on a copy of a generated desk, an
// owner's HTTP client, CLI commands and hooks, and a live-stream probe.
//
// The hot run measures each read alone (serially, then from 20 clients at
// once) and each MCP tool the same way. The mixed run is a working day in
// thirty seconds: twenty agents at one paced round of calls per second,
// staggered, while the owner's page polls and a probe times how long a
// write by another process takes to reach a subscriber of the server's
// event stream.
package load

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Config says what to run and how much of it.
type Config struct {
	Bin     string `json:"-"`       // the desk binary
	Data    string `json:"-"`       // the data folder; the run writes to it, so give it a copy
	Project string `json:"project"` // the project the owner and the agents work in

	Hot   bool `json:"hot"`
	Mixed bool `json:"mixed"`

	Warmups int `json:"warmups"` // requests before the serial samples
	Samples int `json:"samples"` // serial requests per endpoint and tool
	Clients int `json:"clients"` // concurrent HTTP clients of the hot run
	Rounds  int `json:"rounds"`  // requests per concurrent client or MCP process

	Agents int           `json:"agents"` // MCP processes
	Passes int           `json:"passes"` // owner passes and agent rounds in the mixed run
	Pace   time.Duration `json:"pace_ns"`
	Probes int           `json:"probes"` // live-stream probes in the mixed run
	// CLI runs the CLI list/show and hook timings in the mixed run.
	CLI bool `json:"cli"`
	// Quiet, when above 0, makes each run wait (up to QuietWait) until the
	// rest of the machine keeps fewer than Quiet cores busy: on a shared
	// machine, figures taken beside another busy process do not compare.
	Quiet     float64       `json:"quiet,omitempty"`
	QuietWait time.Duration `json:"quiet_wait_ns,omitempty"`
	// Profile, when set, is a folder where each server and MCP process
	// writes a CPU profile of its whole life and, every few seconds, a
	// heap profile, named after its role. Only a desk built with a
	// profiler (bench/deskprof) writes them.
	Profile string `json:"-"`

	Log io.Writer `json:"-"` // progress lines; nil is silent
}

// Defaults are Pair Desk's settings: 3 warm-ups, 40 serial samples, 20
// clients × 10 rounds, 20 agents, 30 passes at one round per second.
func Defaults() Config {
	return Config{
		Project: "mygame", Hot: true, Mixed: true, Warmups: 3, Samples: 40, Clients: 20, Rounds: 10,
		Agents: 20, Passes: 30, Pace: time.Second, Probes: 30, CLI: true,
	}
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Report is everything a run measured.
type Report struct {
	Machine  Machine      `json:"machine"`
	Desk     *DeskInfo    `json:"desk"`
	Config   Config       `json:"config"`
	Version  string       `json:"desk_version"`
	Started  time.Time    `json:"started"`
	Seconds  float64      `json:"seconds"`
	Hot      *HotResult   `json:"hot,omitempty"`
	Mixed    *MixedResult `json:"mixed,omitempty"`
	Targets  []Target     `json:"targets,omitempty"`
	TargetOf string       `json:"targets_for,omitempty"`
}

// Run measures the desk in cfg.Data.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Bin = exe
	}
	rep := &Report{Machine: ThisMachine(), Config: cfg, Started: time.Now()}
	info, err := ReadDesk(ctx, cfg.Data, cfg.Project)
	if err != nil {
		return nil, err
	}
	rep.Desk = info
	if _, out, err := RunWall(ctx, cfg.Data, "", cfg.Bin, "version"); err == nil {
		rep.Version = string(trimSpace(out))
	}
	cfg.logf("desk: %d issues (%d in %s), %d comments (%d on %s), %d files, %d entries, %d handoffs",
		info.Issues, info.MainIssues, info.Project, info.Comments, info.RichComments, info.Detail, info.Attachments, info.Activity, info.Handoffs)
	fx, err := setUp(ctx, &cfg, info)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(fx.linked)
	if cfg.Hot {
		if rep.Hot, err = runHot(ctx, &cfg, info, fx); err != nil {
			return nil, fmt.Errorf("hot run: %w", err)
		}
	}
	if cfg.Mixed {
		if rep.Mixed, err = runMixed(ctx, &cfg, info, fx); err != nil {
			return nil, fmt.Errorf("mixed run: %w", err)
		}
	}
	rep.Machine.LoadAfter = LoadAverage()
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.TargetOf, rep.Targets = checkTargets(rep)
	return rep, nil
}

// waitQuiet waits until the machine is quiet enough to measure, if asked
// to, and returns how busy it was when the run started (cores).
func (c *Config) waitQuiet(ctx context.Context) float64 {
	busy := Busy(2 * time.Second)
	if c.Quiet <= 0 {
		return busy
	}
	deadline := time.Now().Add(c.QuietWait)
	for busy >= c.Quiet && time.Now().Before(deadline) && ctx.Err() == nil {
		c.logf("the machine keeps %.2f cores busy; waiting for fewer than %.2f", busy, c.Quiet)
		time.Sleep(5 * time.Second)
		busy = Busy(2 * time.Second)
	}
	return busy
}

// env is what a started process gets added to its environment: where to
// write its profile, when the run profiles.
func (c *Config) env(role string) []string {
	if c.Profile == "" {
		return nil
	}
	return []string{
		"DESK_CPUPROFILE=" + filepath.Join(c.Profile, role+".prof"),
		"DESK_MEMPROFILE=" + filepath.Join(c.Profile, role+".heap"),
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// fixture is what the run adds to the desk before measuring: a project of
// one issue per agent (and one for the probe), each with a three-step plan
// for the progress calls, and a folder linked to the project for hooks.
type fixture struct {
	project string
	issues  []string // agent i works on issues[i]; the last is the probe's
	linked  string
}

func setUp(ctx context.Context, cfg *Config, info *DeskInfo) (*fixture, error) {
	srv, err := StartServer(ctx, cfg.Bin, cfg.Data)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	fx := &fixture{project: "perf-fixture"}
	c := keepAliveClient()
	base := srv.URL + "/api/projects"
	if get(c, base+"/"+fx.project) != nil {
		if err := post(c, base, map[string]any{"slug": fx.project, "name": "Perf fixture", "prefix": "PF"}, nil); err != nil {
			return nil, fmt.Errorf("create the fixture project: %w", err)
		}
	}
	for i := 1; i <= cfg.Agents+1; i++ {
		id := fmt.Sprintf("PF-%d", i)
		if get(c, srv.URL+"/api/issues/"+id) != nil {
			var created struct {
				ID string `json:"id"`
			}
			if err := post(c, base+"/"+fx.project+"/issues", map[string]any{"title": fmt.Sprintf("Client %d", i), "kind": "task"}, &created); err != nil {
				return nil, fmt.Errorf("create fixture issue %d: %w", i, err)
			}
			id = created.ID
			steps := []string{"Reproduce it", "Fix it", "Verify it"}
			if err := post(c, srv.URL+"/api/issues/"+id+"/plan", map[string]any{"steps": steps, "actor": "bench"}, nil); err != nil {
				return nil, fmt.Errorf("plan fixture issue %s: %w", id, err)
			}
		}
		fx.issues = append(fx.issues, id)
	}
	fx.linked, err = os.MkdirTemp("", "desk-bench-repo-")
	if err != nil {
		return nil, err
	}
	marker := fmt.Sprintf("{\"project\": %q}\n", info.Project)
	if err := os.WriteFile(filepath.Join(fx.linked, ".desk.json"), []byte(marker), 0o600); err != nil {
		return nil, err
	}
	return fx, nil
}

// startAgents starts n MCP processes at once.
func startAgents(cfg *Config, n int, prefix string) ([]*MCP, error) {
	agents := make([]*MCP, n)
	errs := make(chan error, n)
	for i := range agents {
		go func() {
			name := fmt.Sprintf("%s-%d", prefix, i+1)
			m, err := StartMCP(cfg.Bin, cfg.Data, name, cfg.env("mcp-"+name)...)
			agents[i] = m
			errs <- err
		}()
	}
	var first error
	for range agents {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		closeAgents(agents)
		return nil, first
	}
	return agents, nil
}

// closeAgents reads each process's peak memory, then ends it; the peaks
// are in MB.
func closeAgents(agents []*MCP) []float64 {
	var peaks []float64
	for _, m := range agents {
		if m == nil {
			continue
		}
		peaks = append(peaks, float64(m.PeakMemoryKB())/1024)
		m.Close()
	}
	return peaks
}
