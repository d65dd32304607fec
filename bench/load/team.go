package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"desk/identity"
	"desk/internal/s3server"
	"desk/s3"
)

// TeamConfig says what the team run measures: Replicas desk serve
// processes on one PostgreSQL database and one S3 server, Agents remote
// clients of the HTTP API spread over them, Owners on the page, and a
// probe timing a write on one replica to an event stream of another; with
// Kill, the last replica is killed with SIGKILL halfway through. With
// Local, the same workload runs first on one embedded desk (SQLite and the
// data folder), for the figures beside it.
type TeamConfig struct {
	Bin      string `json:"-"` // the desk binary
	Postgres string `json:"-"` // a PostgreSQL server whose user may create databases
	S3Server string `json:"-"` // the S3 server's binary (Versity Gateway)
	Work     string `json:"-"` // a scratch folder for the data folders and the bucket

	Replicas   int           `json:"replicas"`
	Agents     int           `json:"agents"`
	Owners     int           `json:"owners"`
	Duration   time.Duration `json:"duration_ns"` // of each desk's run
	Pace       time.Duration `json:"pace_ns"`     // between an agent's rounds and an owner's passes
	ProbeEvery time.Duration `json:"probe_every_ns"`
	Issues     int           `json:"issues"` // the fixture's issues, besides the agents' own
	Kill       bool          `json:"kill"`
	Local      bool          `json:"local"`

	Log io.Writer `json:"-"`
}

// TeamDefaults are the issue's run, sized for a small machine: three
// replicas, fifty agents at one round a second, two owners, a probe every
// half second, 30 s on each desk, the third replica killed at 15 s.
func TeamDefaults() TeamConfig {
	return TeamConfig{Replicas: 3, Agents: 50, Owners: 2, Duration: 30 * time.Second, Pace: time.Second,
		ProbeEvery: 500 * time.Millisecond, Issues: 200, Kill: true, Local: true}
}

func (c *TeamConfig) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// TeamReport is what a team run measured.
type TeamReport struct {
	Machine Machine    `json:"machine"`
	Config  TeamConfig `json:"config"`
	Version string     `json:"desk_version"`
	Started time.Time  `json:"started"`
	Seconds float64    `json:"seconds"`
	Local   *DeskRun   `json:"local,omitempty"`
	Team    *DeskRun   `json:"team"`
	Targets []Target   `json:"targets"`
}

// DeskRun is the workload's figures on one desk.
type DeskRun struct {
	Desk    string  `json:"desk"`
	Rows    []Named `json:"rows"` // owner reads, agent calls, then live
	Seconds float64 `json:"seconds"`
	Ops     int     `json:"ops"`
	Errors  int     `json:"errors"`
	// Retries are calls that failed on a replica (it was killed) and were
	// sent again to another, as a proxy in front would.
	Retries int `json:"retries"`
	// Writes are the acknowledged comments (each with a text of its own);
	// Lost those the database lacks at the end; Duplicates those stored
	// twice because a retried write had committed before its replica died.
	Writes     int    `json:"writes"`
	Lost       int    `json:"lost"`
	Duplicates int    `json:"duplicates"`
	Killed     string `json:"killed,omitempty"`
	// PeakMB is each server process's peak resident memory.
	PeakMB []float64 `json:"peak_mb"`

	acked []string // the texts of the acknowledged comments
}

// row returns the figures of one operation, or nil.
func (d *DeskRun) row(name string) *Named {
	for i := range d.Rows {
		if d.Rows[i].Name == name {
			return &d.Rows[i]
		}
	}
	return nil
}

// RunTeam runs the team workload (and first the local one, with
// cfg.Local).
func RunTeam(ctx context.Context, cfg TeamConfig) (*TeamReport, error) {
	if cfg.Bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Bin = exe
	}
	if cfg.Replicas < 1 || cfg.Agents < 1 || cfg.Owners < 0 || cfg.Duration <= 0 || cfg.Pace <= 0 || cfg.ProbeEvery <= 0 {
		return nil, errors.New("the team run needs at least one replica and one agent, and durations above 0")
	}
	rep := &TeamReport{Machine: ThisMachine(), Config: cfg, Started: time.Now()}
	if _, out, err := RunWall(ctx, cfg.Work, "", cfg.Bin, "version"); err == nil {
		rep.Version = string(trimSpace(out))
	}
	if cfg.Local {
		cfg.logf("local desk: one desk serve on SQLite and the data folder")
		run, err := runLocal(ctx, &cfg)
		if err != nil {
			return nil, fmt.Errorf("local run: %w", err)
		}
		rep.Local = run
	}
	cfg.logf("team desk: %d replicas on PostgreSQL and S3", cfg.Replicas)
	run, err := runTeamDesk(ctx, &cfg)
	if err != nil {
		return nil, fmt.Errorf("team run: %w", err)
	}
	rep.Team = run
	rep.Machine.LoadAfter = LoadAverage()
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Targets = teamTargets(run)
	return rep, nil
}

func runLocal(ctx context.Context, cfg *TeamConfig) (*DeskRun, error) {
	data := filepath.Join(cfg.Work, "local")
	srv, err := StartServer(ctx, cfg.Bin, data)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	run, err := drive(ctx, cfg, []*Server{srv}, false)
	if err != nil {
		return nil, err
	}
	run.Desk = "local: one desk serve, SQLite and the data folder"
	written, err := localComments(ctx, filepath.Join(data, "desk.sqlite"))
	if err != nil {
		return nil, err
	}
	run.check(written)
	return run, nil
}

func runTeamDesk(ctx context.Context, cfg *TeamConfig) (*DeskRun, error) {
	s3srv, err := s3server.Launch(cfg.S3Server, filepath.Join(cfg.Work, "s3"))
	if err != nil {
		return nil, err
	}
	defer s3srv.Close()
	st, err := s3.New(s3.Config{Endpoint: s3srv.Endpoint, Region: s3srv.Region, Bucket: "desk-bench", AccessKey: s3srv.AccessKey, SecretKey: s3srv.SecretKey})
	if err != nil {
		return nil, err
	}
	if err := st.MakeBucket(ctx); err != nil {
		return nil, err
	}
	dbURL, drop, err := benchDatabase(ctx, cfg.Postgres)
	if err != nil {
		return nil, err
	}
	defer drop()
	env := []string{"S3_ACCESS_KEY_ID=" + s3srv.AccessKey, "S3_SECRET_ACCESS_KEY=" + s3srv.SecretKey}
	objects := "s3://desk-bench?endpoint=" + url.QueryEscape(s3srv.Endpoint) + "&region=" + s3srv.Region
	servers := make([]*Server, cfg.Replicas)
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.Stop()
			}
		}
	}()
	for i := range servers {
		// One after the other: the first applies the migrations.
		args := []string{"--data", filepath.Join(cfg.Work, fmt.Sprintf("replica-%d", i+1)), "serve", "--db", dbURL, "--objects", objects, "--port", "0"}
		if servers[i], err = StartServe(ctx, cfg.Bin, args, env...); err != nil {
			return nil, fmt.Errorf("replica %d: %w", i+1, err)
		}
	}
	// The first replica made the admin on the empty database and wrote its
	// token to its data folder: every client of every replica uses it.
	token, err := os.ReadFile(filepath.Join(cfg.Work, "replica-1", identity.AdminTokenFile))
	if err != nil {
		return nil, fmt.Errorf("the team server's admin token: %w", err)
	}
	for _, s := range servers {
		s.Token = strings.TrimSpace(string(token))
	}
	run, err := drive(ctx, cfg, servers, cfg.Kill && cfg.Replicas >= 3)
	if err != nil {
		return nil, err
	}
	run.Desk = fmt.Sprintf("team: %d desk serve replicas, PostgreSQL and S3 (Versity Gateway)", cfg.Replicas)
	written, err := teamComments(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	run.check(written)
	return run, nil
}

// check counts the acknowledged writes the database lacks, and those it
// holds more than once.
func (d *DeskRun) check(written map[string]int) {
	d.Writes = len(d.acked)
	for _, t := range d.acked {
		switch n := written[t]; {
		case n == 0:
			d.Lost++
		case n > 1:
			d.Duplicates++
		}
	}
}
