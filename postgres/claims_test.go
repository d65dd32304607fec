package postgres_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"desk"
	"desk/folder"
	"desk/postgres"
	"desk/storetest"
)

// The claims suite on PostgreSQL: another handle is another pool on the
// schema, as another replica holds.
func TestClaimSuite(t *testing.T) { storetest.RunClaims(t, backend) }

// claimRacer is the test binary as one racer process on the database at
// url, with a pool of one connection.
func claimRacer(url, holder string) int {
	db, err := postgres.Open(context.Background(), url, postgres.Options{Blobs: folder.New(os.TempDir()), MaxConns: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	if err := storetest.ServeClaimRace(db, holder, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// racedDatabase is a fresh store with project mygame and issues MG-1 …
// MG-n, and twenty racer processes on it.
func racedDatabase(tb testing.TB, n int) *storetest.ClaimRacers {
	tb.Helper()
	url := newSchema(tb)
	db := open(tb, url, tb.TempDir())
	tb.Cleanup(func() { db.Close() })
	storetest.MustProject(tb, db)
	for i := 0; i < n; i++ {
		storetest.MustIssue(tb, db, desk.IssueFields{Title: ptrTo(fmt.Sprintf("race %d", i))}, "owner")
	}
	return storetest.StartClaimRacers(tb, 20, func(i int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DESK_TEST_CLAIM_RACER="+url, "DESK_TEST_HOLDER="+storetest.RacerName(i))
		cmd.Stderr = os.Stderr
		return cmd
	})
}

// Twenty processes, each with its own connection, race for one claim a
// hundred times: exactly one holds it each time.
func TestTwentyProcessesRaceForOneClaim(t *testing.T) {
	r := racedDatabase(t, 100)
	for i := 1; i <= 100; i++ {
		r.Round(t, fmt.Sprintf("MG-%d", i))
	}
}

// BenchmarkClaimRace20Processes is the embedded store's benchmark of the
// same name on PostgreSQL: twenty processes race for one claim per round,
// every round checked for exactly one holder.
//
//	go test ./postgres -run '^$' -bench ClaimRace -benchtime 1000x
func BenchmarkClaimRace20Processes(b *testing.B) {
	r := racedDatabase(b, b.N)
	ms := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		start := time.Now()
		r.Round(b, fmt.Sprintf("MG-%d", i))
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	b.StopTimer()
	sort.Float64s(ms)
	at := func(q float64) float64 { return ms[max(int(math.Ceil(q*float64(len(ms))-1e-9))-1, 0)] }
	b.ReportMetric(at(0.5), "round-p50-ms")
	b.ReportMetric(at(0.99), "round-p99-ms")
	b.ReportMetric(float64(b.N), "rounds-one-holder")
}
