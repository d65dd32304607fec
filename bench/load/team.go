package load

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"desk/internal/s3server"
	"desk/s3"

	"github.com/jackc/pgx/v5"
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

// benchDatabase makes a fresh database on the server at server and
// returns its URL and a function that drops it.
func benchDatabase(ctx context.Context, server string) (string, func(), error) {
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL at %s: %w (start it, or name another with --postgres)", redactURL(server), err)
	}
	var b [4]byte
	rand.Read(b[:])
	name := "desk_bench_" + strconv.Itoa(os.Getpid()) + "_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		return "", nil, fmt.Errorf("create the bench's database: %w", err)
	}
	u, err := url.Parse(server)
	if err != nil {
		admin.Close(ctx)
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		c := context.WithoutCancel(ctx)
		admin.Exec(c, "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close(c)
	}
	return u.String(), drop, nil
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// teamComments counts the stored texts of the run's comments.
func teamComments(ctx context.Context, dbURL string) (map[string]int, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT text, count(*) FROM comments WHERE text LIKE 'bench write %' GROUP BY text`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

// localComments counts them in the embedded desk's database.
func localComments(ctx context.Context, path string) (map[string]int, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT text, count(*) FROM comments WHERE text LIKE 'bench write %' GROUP BY text`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

// failover is one remote client's way to the desk: a keep-alive
// connection to each replica, and the replica it uses now. A call that
// cannot reach its replica (refused, reset, cut mid-answer) or gets 502 or
// 503 goes to the next one, as a proxy taking a dead replica out would
// send it; the client stays there.
type failover struct {
	servers []*Server
	clients []*http.Client
	at      int
}

func newFailover(servers []*Server, first int) *failover {
	f := &failover{servers: servers, at: first % len(servers)}
	for range servers {
		f.clients = append(f.clients, &http.Client{Timeout: 30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 2, DisableCompression: true}})
	}
	return f
}

// call sends one request and reads the whole answer; it returns how many
// replicas it had to leave.
func (f *failover) call(ctx context.Context, method, path string, body any, out any) (retries int, err error) {
	var b []byte
	if body != nil {
		if b, err = json.Marshal(body); err != nil {
			return 0, err
		}
	}
	for try := 0; try < len(f.servers); try++ {
		req, err := http.NewRequestWithContext(ctx, method, f.servers[f.at].URL+path, bytes.NewReader(b))
		if err != nil {
			return retries, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := f.clients[f.at].Do(req)
		var data []byte
		if err == nil {
			data, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			return retries, ctx.Err()
		}
		if err != nil || resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable {
			retries++
			f.at = (f.at + 1) % len(f.servers)
			continue
		}
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return retries, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
		}
		if out != nil {
			return retries, json.Unmarshal(data, out)
		}
		return retries, nil
	}
	return retries, fmt.Errorf("%s %s: no replica answered", method, path)
}

// teamFixture is the workload's desk, made through the API on every desk
// alike: a project of cfg.Issues issues, one with thirty comments that
// the reads of one issue read, a handoff, and one planned issue per agent
// and for the probe.
type teamFixture struct {
	project string
	detail  string
	own     []string // agent i writes on own[i]; the last is the probe's
}

const teamProject = "team-bench"

var fixtureAreas = []string{"terrain", "physics", "audio", "ui", "network"}
var fixtureKinds = []string{"bug", "task", "idea", "check"}
var fixtureWords = []string{"lava", "tiles", "jump", "ledge", "water", "menu", "sound", "lag", "camera", "save", "door", "enemy"}

func makeFixture(ctx context.Context, cfg *TeamConfig, f *failover) (*teamFixture, error) {
	fx := &teamFixture{project: teamProject}
	p := "/api/projects/" + teamProject
	if _, err := f.call(ctx, "POST", "/api/projects", map[string]any{"slug": teamProject, "name": "Team bench", "prefix": "TB"}, nil); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Issues; i++ {
		w := func(k int) string { return fixtureWords[(i*7+k*3)%len(fixtureWords)] }
		var created struct {
			ID string `json:"id"`
		}
		in := map[string]any{"title": fmt.Sprintf("The %s %s near the %s", w(0), w(1), w(2)), "kind": fixtureKinds[i%len(fixtureKinds)],
			"area": fixtureAreas[i%len(fixtureAreas)], "body": fmt.Sprintf("Seen after the %s; the %s does not %s.", w(3), w(4), w(5))}
		if _, err := f.call(ctx, "POST", p+"/issues", in, &created); err != nil {
			return nil, fmt.Errorf("fixture issue %d: %w", i, err)
		}
		if i == 0 {
			fx.detail = created.ID
		}
	}
	if fx.detail == "" {
		return nil, errors.New("the fixture needs at least one issue")
	}
	for k := 0; k < 30; k++ {
		if _, err := f.call(ctx, "POST", "/api/issues/"+fx.detail+"/comments", map[string]any{"text": fmt.Sprintf("Comment %d on the %s", k+1, fixtureWords[k%len(fixtureWords)]), "author": "owner"}, nil); err != nil {
			return nil, err
		}
	}
	if _, err := f.call(ctx, "POST", p+"/handoff", map[string]any{"author": "owner", "markdown": "# Handoff\n\nThe lava tiles are next; then the ledge.\n"}, nil); err != nil {
		return nil, fmt.Errorf("fixture handoff: %w", err)
	}
	for i := 0; i <= cfg.Agents; i++ {
		var created struct {
			ID string `json:"id"`
		}
		if _, err := f.call(ctx, "POST", p+"/issues", map[string]any{"title": fmt.Sprintf("Agent %d's task", i+1), "kind": "task"}, &created); err != nil {
			return nil, err
		}
		if _, err := f.call(ctx, "POST", "/api/issues/"+created.ID+"/plan", map[string]any{"steps": []string{"Reproduce it", "Fix it", "Verify it"}, "actor": "bench"}, nil); err != nil {
			return nil, err
		}
		fx.own = append(fx.own, created.ID)
	}
	return fx, nil
}

// teamOwnerReads are the page's reads in one owner pass.
func teamOwnerReads(fx *teamFixture) [][2]string {
	p := "/api/projects/" + fx.project
	return [][2]string{
		{"owner_health", "/api/health"},
		{"owner_project", p},
		{"owner_triage", p + "/issues?sort=triage&limit=200&summary=1&status=reported,open,in_progress,auto_check,to_check,failed"},
		{"owner_backlog", p + "/issues?sort=backlog&limit=5000&summary=1&status=open,in_progress"},
		{"owner_search", p + "/issues?q=lava&limit=200"},
		{"owner_detail", "/api/issues/" + fx.detail},
		{"owner_handoff", p + "/handoff"},
	}
}

// teamAgentCalls are an agent's calls in a round, as its MCP server makes
// them over HTTP.
var teamAgentCalls = []string{"agent_list", "agent_get", "agent_comment", "agent_progress", "agent_handoff"}

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
