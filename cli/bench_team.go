package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"desk/bench/load"
	"desk/internal/s3server"
)

// runBenchTeam is desk bench load --team: the team server's load run on a
// fresh database of a PostgreSQL server and a bucket of an S3 server it
// starts, with the same workload on a local desk beside it.
func runBenchTeam(ctx context.Context, c *Context, args []string) error {
	def := load.TeamDefaults()
	fs := newFlags("bench load --team", c)
	pgDefault := c.Getenv("DESK_TEST_POSTGRES")
	if pgDefault == "" {
		pgDefault = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	pg := fs.String("postgres", pgDefault, "a PostgreSQL server whose user may create databases: the run makes one and drops it")
	s3bin := fs.String("s3-server", c.Getenv("DESK_S3_SERVER"), "the S3 server's binary (Versity Gateway; default: the one scripts/s3-server.sh caches)")
	bin := fs.String("desk", "", "the desk binary to measure (default: this one)")
	replicas := fs.Int("replicas", def.Replicas, "desk serve replicas on the database")
	agents := fs.Int("agents", def.Agents, "remote agents, spread over the replicas")
	owners := fs.Int("owners", def.Owners, "owners on the page")
	duration := fs.Duration("duration", def.Duration, "how long each desk's run lasts")
	pace := fs.Duration("pace", def.Pace, "time between an agent's rounds and an owner's passes")
	probe := fs.Duration("probe-every", def.ProbeEvery, "time between live probes")
	issues := fs.Int("issues", def.Issues, "issues of the fixture, besides the agents' own")
	noKill := fs.Bool("no-kill", false, "do not kill a replica halfway")
	noLocal := fs.Bool("no-local", false, "leave out the local desk's run")
	jsonOut := fs.String("json", "", "write the report as JSON to this file")
	mdOut := fs.String("md", "", "write the report as markdown to this file (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := def
	cfg.Postgres, cfg.Replicas, cfg.Agents, cfg.Owners = *pg, *replicas, *agents, *owners
	cfg.Duration, cfg.Pace, cfg.ProbeEvery, cfg.Issues = *duration, *pace, *probe, *issues
	cfg.Kill, cfg.Local, cfg.Log = !*noKill, !*noLocal, c.Stderr
	if cfg.Replicas < 1 || cfg.Agents < 1 || cfg.Owners < 0 || cfg.Issues < 1 || cfg.Duration <= 0 || cfg.Pace <= 0 || cfg.ProbeEvery <= 0 {
		return Usagef("bench load --team", "--replicas, --agents and --issues must be at least 1, --owners at least 0, and the durations above 0")
	}
	cfg.S3Server = *s3bin
	if cfg.S3Server == "" {
		p, err := s3server.Binary()
		if err != nil {
			return fmt.Errorf("no S3 server for the team run: %w (name one with --s3-server)", err)
		}
		cfg.S3Server = p
	}
	if *bin != "" {
		abs, err := filepath.Abs(*bin)
		if err != nil {
			return err
		}
		cfg.Bin = abs
	}
	work, err := os.MkdirTemp("", "desk-bench-team-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	cfg.Work = work
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := load.RunTeam(ctx, cfg)
	if err != nil {
		return err
	}
	if err := writeReport(c, rep, *jsonOut, *mdOut); err != nil {
		return err
	}
	var failed []string
	for _, t := range rep.Targets {
		if !t.Holds {
			failed = append(failed, t.Measure)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(c.Stderr, "targets missed: %s\n", strings.Join(failed, ", "))
	}
	return nil
}
