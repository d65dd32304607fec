package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"desk/bench/gen"
	"desk/bench/load"
)

func init() {
	Register(&Command{Name: "bench", Summary: "benchmarks: bench gen (a generated desk) | bench load (the load run)", Run: runBench})
}

func runBench(ctx context.Context, c *Context, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(c.Stdout, "Usage:\n"+
			"  desk bench gen --out DIR|--cached [--shape pairdesk|core|large] [--seed N] [--scale X]\n"+
			"      write a generated desk, the same for the same shape and seed\n"+
			"  desk bench load [--shape S --seed N --scale X | --from DIR] [--hot] [--mixed] [--json FILE] [--md FILE]\n"+
			"      run the load benchmark on a copy of a generated (or given) desk\n"+
			"  desk bench load --team [--replicas 3 --agents 50 --duration 30s --no-kill --no-local] [--json FILE] [--md FILE]\n"+
			"      run the team server's load run (PostgreSQL and an S3 server) beside the local desk\n")
		return nil
	}
	switch args[0] {
	case "gen":
		return runBenchGen(ctx, c, args[1:])
	case "load":
		return runBenchLoad(ctx, c, args[1:])
	}
	return Usagef("bench", "unknown subcommand %q; use gen or load", args[0])
}

// shapeFlags are the flags that choose a generated desk.
type shapeFlags struct {
	shape *string
	seed  *uint64
	scale *float64
}

func (s shapeFlags) get() (gen.Shape, error) {
	shape, ok := gen.Shapes[*s.shape]
	if !ok {
		names := make([]string, 0, len(gen.Shapes))
		for n := range gen.Shapes {
			names = append(names, n)
		}
		sort.Strings(names)
		return shape, Usagef("bench", "--shape %q is not one of %s", *s.shape, strings.Join(names, ", "))
	}
	if *s.scale <= 0 {
		return shape, Usagef("bench", "--scale must be above 0")
	}
	shape = shape.Scale(*s.scale)
	if err := shape.Validate(); err != nil {
		return shape, Usagef("bench", "%v", err)
	}
	return shape, nil
}

func runBenchGen(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("bench gen", c)
	out := fs.String("out", "", "the folder to write the desk into (new or empty)")
	sf := shapeFlags{
		shape: fs.String("shape", "pairdesk", "pairdesk (Pair Desk's measured desk), core (the store's benchmarks) or large (100,000 issues)"),
		seed:  fs.Uint64("seed", 1, "the seed: the same seed gives the same desk"),
		scale: fs.Float64("scale", 1, "multiply every count but the projects and the busiest issue's comments"),
	}
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	cached := fs.Bool("cached", false, "instead of --out: make sure the shared cache holds the desk and print its folder")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*out == "") == !*cached {
		return Usagef("bench gen", "give --out DIR or --cached")
	}
	shape, err := sf.get()
	if err != nil {
		return err
	}
	var dir string
	var sum *gen.Summary
	if *cached {
		dir, sum, err = gen.Cached(shape, *sf.seed)
	} else if dir, err = filepath.Abs(*out); err == nil {
		sum, err = gen.Generate(ctx, dir, shape, *sf.seed)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(c.Stdout).Encode(sum)
	}
	s := sum.Shape
	fmt.Fprintf(c.Stdout, "%s: %d projects, %d issues (%d in %s), %d comments (%d on %s), %d attachments, %d activity entries, %d handoff versions in %.1f s\n",
		dir, s.Projects, s.Issues, s.MainIssues, sum.Main, s.Comments, s.RichComments, sum.Rich, s.Attachments, s.Activity, s.Handoffs, sum.Seconds)
	return nil
}

func runBenchLoad(ctx context.Context, c *Context, args []string) error {
	for i, a := range args {
		if a == "--team" || a == "-team" {
			return runBenchTeam(ctx, c, append(append([]string{}, args[:i]...), args[i+1:]...))
		}
	}
	def := load.Defaults()
	fs := newFlags("bench load", c)
	sf := shapeFlags{
		shape: fs.String("shape", "pairdesk", "the generated desk to measure: pairdesk, core or large"),
		seed:  fs.Uint64("seed", 1, "its seed"),
		scale: fs.Float64("scale", 1, "its scale"),
	}
	from := fs.String("from", "", "measure a copy of this desk folder instead of a generated one")
	hot := fs.Bool("hot", false, "run the hot run (each read alone, then 20 clients)")
	mixed := fs.Bool("mixed", false, "run the mixed run (20 agents and the owner); with neither flag, both run")
	jsonOut := fs.String("json", "", "write the report as JSON to this file")
	mdOut := fs.String("md", "", "write the report as markdown to this file (default: standard output)")
	bin := fs.String("desk", "", "the desk binary to measure (default: this one)")
	project := fs.String("project", def.Project, "the project the owner and the agents work in")
	samples := fs.Int("samples", def.Samples, "serial requests per endpoint in the hot run")
	rounds := fs.Int("rounds", def.Rounds, "requests per client in the hot run")
	agents := fs.Int("agents", def.Agents, "MCP processes")
	passes := fs.Int("passes", def.Passes, "owner passes and agent rounds in the mixed run")
	pace := fs.Duration("pace", def.Pace, "time between an agent's rounds")
	probes := fs.Int("probes", def.Probes, "live-stream probes")
	noCLI := fs.Bool("no-cli", false, "leave out the CLI and hook timings")
	keep := fs.Bool("keep", false, "keep the measured copy of the desk")
	profile := fs.String("profile", "", "a folder for CPU profiles of the server and MCP processes (with a desk built from bench/deskprof)")
	quiet := fs.Float64("quiet", 0, "wait before each run until the machine keeps fewer than this many cores busy (0: do not wait)")
	quietWait := fs.Duration("quiet-wait", 10*time.Minute, "how long to wait for a quiet machine at most")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := def
	cfg.Project, cfg.Samples, cfg.Rounds, cfg.Agents, cfg.Passes, cfg.Pace, cfg.Probes = *project, *samples, *rounds, *agents, *passes, *pace, *probes
	cfg.Clients = *agents
	cfg.CLI = !*noCLI
	cfg.Quiet, cfg.QuietWait = *quiet, *quietWait
	if *profile != "" {
		dir, err := filepath.Abs(*profile)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		cfg.Profile = dir
	}
	if *hot || *mixed {
		cfg.Hot, cfg.Mixed = *hot, *mixed
	}
	if cfg.Agents < 1 || cfg.Passes < 1 || cfg.Samples < 1 || cfg.Rounds < 1 {
		return Usagef("bench load", "--agents, --passes, --samples and --rounds must be at least 1")
	}
	cfg.Bin = *bin
	if strings.ContainsRune(cfg.Bin, filepath.Separator) {
		// The CLI and hook runs start in other folders: a relative path
		// would name nothing there.
		abs, err := filepath.Abs(cfg.Bin)
		if err != nil {
			return err
		}
		cfg.Bin = abs
	}
	cfg.Log = c.Stderr

	src := *from
	if src == "" {
		shape, err := sf.get()
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stderr, "generated desk %s, seed %d ...\n", shape.Name, *sf.seed)
		if src, _, err = gen.Cached(shape, *sf.seed); err != nil {
			return err
		}
	}
	root, err := gen.CacheRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp(root, "run-"+time.Now().UTC().Format("20060102-150405")+"-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(work)
	}
	cfg.Data = filepath.Join(work, "desk")
	if err := gen.Copy(src, cfg.Data); err != nil {
		return fmt.Errorf("copy the desk: %w", err)
	}
	// Ctrl+C ends the run cleanly: its processes stop and its copy goes.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := writeReport(c, rep, *jsonOut, *mdOut); err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(c.Stderr, "the measured desk is in %s\n", cfg.Data)
	}
	return nil
}

// writeReport writes a load run's report: as JSON to jsonPath when one is
// given, and as markdown to mdPath, or to standard output without one.
func writeReport(c *Context, rep interface{ WriteMarkdown(io.Writer) }, jsonPath, mdPath string) error {
	if jsonPath != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if mdPath == "" {
		rep.WriteMarkdown(c.Stdout)
		return nil
	}
	f, err := os.Create(mdPath)
	if err != nil {
		return err
	}
	rep.WriteMarkdown(f)
	return f.Close()
}
