package sqlite_test

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
	"desk/sqlite"
	"desk/storetest"
)

// The claims suite, on the embedded store (each handle another open of
// one folder, as another process makes).
func TestClaimSuite(t *testing.T) { storetest.RunClaims(t, backend) }

// claimRacer is the test binary as one racer among many processes on the
// desk in dir.
func claimRacer(dir, holder string) int {
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{Readers: 1, CacheKiB: 512})
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

func startRacers(tb testing.TB, dir string, n int) *storetest.ClaimRacers {
	return storetest.StartClaimRacers(tb, n, func(i int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DESK_TEST_CLAIM_RACER="+dir, "DESK_TEST_HOLDER="+storetest.RacerName(i))
		cmd.Stderr = os.Stderr
		return cmd
	})
}

func racedDesk(tb testing.TB, issues int) *sqlite.DB {
	tb.Helper()
	db := MustOpen(tb)
	MustProject(tb, db)
	for i := 0; i < issues; i++ {
		MustIssue(tb, db, desk.IssueFields{Title: ptr(fmt.Sprintf("race %d", i))}, "owner")
	}
	return db
}

// Twenty processes race for one claim, a hundred times: exactly one holds
// it each time.
func TestTwentyProcessesRaceForOneClaim(t *testing.T) {
	db := racedDesk(t, 100)
	r := startRacers(t, db.Dir(), 20)
	for i := 1; i <= 100; i++ {
		r.Round(t, fmt.Sprintf("MG-%d", i))
	}
}

// BenchmarkClaimRace20Processes races twenty processes for one claim per
// round, every round checked for exactly one holder; it reports the time a
// round takes (twenty claims decided by the one statement).
//
//	go test ./sqlite -run '^$' -bench ClaimRace -benchtime 1000x
func BenchmarkClaimRace20Processes(b *testing.B) {
	db := racedDesk(b, b.N)
	r := startRacers(b, db.Dir(), 20)
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
