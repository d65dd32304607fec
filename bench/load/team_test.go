package load

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/internal/deskbin"
	"desk/internal/s3server"
)

// TestTeamRunKillsAReplicaAndLosesNoWrite is a short team run on real
// processes: three replicas on a real PostgreSQL and a real S3 server, a
// few agents, an owner and the probe, the third replica killed with
// SIGKILL halfway, and the same workload on a local desk first. It holds
// the driver to what the long run reports: no error, every acknowledged
// write in the database, the killed replica's clients retried elsewhere,
// the live probe crossing replicas. Its timings are not checked: the
// machine is shared.
func TestTeamRunKillsAReplicaAndLosesNoWrite(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "desk")
	if err := deskbin.Build(bin); err != nil {
		t.Fatal(err)
	}
	s3bin, err := s3server.Binary()
	if err != nil {
		t.Fatal(err)
	}
	pg := os.Getenv("DESK_TEST_POSTGRES")
	if pg == "" {
		pg = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	cfg := TeamDefaults()
	cfg.Bin, cfg.Postgres, cfg.S3Server, cfg.Work = bin, pg, s3bin, t.TempDir()
	cfg.Agents, cfg.Owners, cfg.Issues = 6, 1, 10
	cfg.Duration, cfg.Pace, cfg.ProbeEvery = 4*time.Second, 400*time.Millisecond, 250*time.Millisecond
	var log strings.Builder
	cfg.Log = &log
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := RunTeam(ctx, cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, d := range []*DeskRun{rep.Local, rep.Team} {
		if d == nil {
			t.Fatal("a desk's run is missing")
		}
		if d.Errors != 0 || d.Lost != 0 || d.Writes == 0 {
			t.Errorf("%s: %d errors, %d of %d acknowledged writes lost\n%+v", d.Desk, d.Errors, d.Lost, d.Writes, d.Rows)
		}
		for _, name := range append(append([]string{}, teamAgentCalls...), "owner_detail", "live") {
			if r := d.row(name); r == nil || r.N == 0 {
				t.Errorf("%s: no figures for %s", d.Desk, name)
			}
		}
	}
	if rep.Team.Killed == "" || rep.Team.Retries == 0 {
		t.Errorf("the team run killed %q and retried %d calls: the killed replica's clients never moved", rep.Team.Killed, rep.Team.Retries)
	}
	if rep.Local.Retries != 0 || rep.Local.Killed != "" {
		t.Errorf("the local run retried %d calls and killed %q", rep.Local.Retries, rep.Local.Killed)
	}
	var md bytes.Buffer
	rep.WriteMarkdown(&md)
	for _, want := range []string{"| agent_comment | ", "| live | ", "acknowledged writes lost", "replica 3 killed with SIGKILL"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, md.String())
		}
	}
}
