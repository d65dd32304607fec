package sqlite_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

func TestAClaimExpiresRenewsAndEndsWithTheIssue(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	for i := 0; i < 5; i++ {
		MustIssue(t, db, desk.IssueFields{Title: ptr(fmt.Sprintf("issue %d", i))}, "owner")
	}
	now := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	c, err := db.ClaimIssue(ctx, "MG-1", "codex", time.Hour)
	if err != nil || c.ClaimedAt != "2026-11-30T14:00:00.000Z" || c.ExpiresAt != "2026-11-30T15:00:00.000Z" {
		t.Fatalf("the claim: %+v, %v", c, err)
	}
	_, err = db.ClaimIssue(ctx, "MG-1", "claude", time.Hour)
	if desk.ErrorCode(err) != desk.Conflict || !strings.Contains(err.Error(), "MG-1 is claimed by codex until 2026-11-30T15:00:00.000Z") {
		t.Fatalf("a claim of a claimed issue: %v", err)
	}
	// The holder renews; the first time stays.
	now = now.Add(30 * time.Minute)
	r, err := db.ClaimIssue(ctx, "MG-1", "codex", 2*time.Hour)
	if err != nil || r.ClaimedAt != c.ClaimedAt || r.ExpiresAt != "2026-11-30T16:30:00.000Z" {
		t.Fatalf("the renewal: %+v, %v", r, err)
	}
	// At its expiry the claim is gone, for every reader, and anyone takes it.
	now = now.Add(2 * time.Hour)
	if d, _ := db.Issue(ctx, "MG-1"); d.Claim != nil {
		t.Errorf("an expired claim still shows: %+v", d.Claim)
	}
	if cs, _ := db.Claims(ctx, "mygame"); len(cs) != 0 {
		t.Errorf("an expired claim is listed: %+v", cs)
	}
	taken, err := db.ClaimIssue(ctx, "MG-1", "claude", time.Hour)
	if err != nil || taken.Holder != "claude" || taken.ClaimedAt == c.ClaimedAt {
		t.Fatalf("a claim after the expiry: %+v, %v", taken, err)
	}
	// Closing, passing, merging and deleting end it.
	for _, id := range []string{"MG-2", "MG-3", "MG-4", "MG-5"} {
		if _, err := db.ClaimIssue(ctx, id, "codex", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetStatus(ctx, "MG-1", desk.StatusClosed, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetStatus(ctx, "MG-2", desk.StatusPassed, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, "MG-4", []string{"MG-3"}, "owner"); err != nil {
		t.Fatal(err)
	}
	cs, err := db.Claims(ctx, "mygame")
	if err != nil || len(cs) != 2 || cs[0].Issue != "MG-4" || cs[1].Issue != "MG-5" {
		t.Fatalf("claims after closing, passing and merging: %+v, %v", cs, err)
	}
	if _, err := db.ReleaseIssue(ctx, "MG-4", "", true); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteIssue(ctx, "MG-5", "owner"); err != nil {
		t.Fatal(err)
	}
	if cs, _ := db.Claims(ctx, "mygame"); len(cs) != 0 {
		t.Errorf("a deleted issue's claim is listed: %+v", cs)
	}
	if _, err := db.ClaimIssue(ctx, "MG-1", "codex", time.Hour); desk.ErrorCode(err) != desk.Conflict {
		t.Errorf("a claim of a closed issue: %v", err)
	}
	if _, err := db.ClaimIssue(ctx, "MG-77", "codex", time.Hour); desk.ErrorCode(err) != desk.NotFound {
		t.Errorf("a claim of an unknown issue: %v", err)
	}
	if _, err := db.ClaimIssue(ctx, "MG-1", " ", time.Hour); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("a claim without a holder: %v", err)
	}
	if _, err := db.ClaimIssue(ctx, "MG-1", "codex", 1000*time.Hour); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("a claim of 1,000 hours: %v", err)
	}
}

func TestClaimDurations(t *testing.T) {
	for _, tc := range []struct {
		hours float64
		want  time.Duration
		code  string
	}{
		{2, 2 * time.Hour, ""}, {0.5, 30 * time.Minute, ""}, {1.0 / 60, time.Minute, ""}, {24, 24 * time.Hour, ""},
		{0.001, 0, desk.Invalid}, {24.01, 0, desk.Invalid}, {1000, 0, desk.Invalid}, {-1, 0, desk.Invalid}, {math.NaN(), 0, desk.Invalid}, {math.Inf(1), 0, desk.Invalid},
	} {
		h := tc.hours
		d, err := desk.ClaimDuration(&h)
		if desk.ErrorCode(err) != tc.code || d != tc.want {
			t.Errorf("ClaimDuration(%g) = %v, %v; want %v, %q", tc.hours, d, err, tc.want, tc.code)
		}
	}
	if d, err := desk.ClaimDuration(nil); err != nil || d != 2*time.Hour {
		t.Errorf("the default claim: %v, %v", d, err)
	}
}

// A claim shows in every form of the issue: its list row (kept lists
// included), a search, its detail, a write's answer; and unclaimed leaves
// it out, its counts with it.
func TestAClaimShowsWhereverTheIssueDoes(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	for _, title := range []string{"lava tips square", "lava flows stop", "harbor workers"} {
		MustIssue(t, db, desk.IssueFields{Title: ptr(title)}, "owner")
	}
	list := func(f desk.IssueFilter) (*desk.IssueList, map[string]json.RawMessage) {
		t.Helper()
		l, err := db.Issues(ctx, "mygame", f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := l.MarshalJSON()
		var out struct{ Issues []map[string]json.RawMessage }
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("the list's JSON: %v\n%s", err, b)
		}
		claims := map[string]json.RawMessage{}
		for _, is := range out.Issues {
			var id string
			json.Unmarshal(is["id"], &id)
			c, ok := is["claim"]
			if !ok {
				t.Fatalf("%s has no claim field: %s", id, b)
			}
			claims[id] = c
		}
		return l, claims
	}
	// Read once so that the store keeps the list, then claim.
	list(desk.IssueFilter{})
	list(desk.IssueFilter{Q: "lava"})
	if _, err := db.ClaimIssue(ctx, "MG-2", "codex", time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, f := range []desk.IssueFilter{{}, {Summary: true}, {Q: "lava"}, {IDs: []string{"MG-1", "MG-2"}}} {
		_, claims := list(f)
		if string(claims["MG-1"]) != "null" || !strings.Contains(string(claims["MG-2"]), `"holder":"codex"`) {
			t.Errorf("list %+v: claims %s / %s", f, claims["MG-1"], claims["MG-2"])
		}
	}
	un, claims := list(desk.IssueFilter{Unclaimed: true})
	if un.Total != 2 || claims["MG-2"] != nil || un.Counts.Status["open"]+un.Counts.Status["reported"] != 2 {
		t.Errorf("unclaimed: total %d, %v, counts %v", un.Total, claims, un.Counts.Status)
	}
	if s, _ := list(desk.IssueFilter{Q: "lava", Unclaimed: true}); s.Total != 1 || s.Issues[0].ID != "MG-1" {
		t.Errorf("an unclaimed search: %+v", s.Issues)
	}
	d, _ := db.Issue(ctx, "MG-2")
	if d.Claim == nil || d.Claim.Holder != "codex" || !strings.Contains(string(d.AppendJSON(nil)), `"claim":{"issue":"MG-2","holder":"codex"`) {
		t.Errorf("the detail: %+v", d.Claim)
	}
	if is, err := db.UpdateIssue(ctx, "MG-2", desk.IssueFields{Area: ptr("terrain")}, "owner"); err != nil || is.Claim == nil {
		t.Errorf("an update's answer: %+v, %v", is, err)
	}
	if _, is, err := db.AddComment(ctx, "MG-2", desk.CommentInput{Author: "owner", Text: "ok"}); err != nil || is.Claim == nil {
		t.Errorf("a comment's answer: %+v, %v", is, err)
	}
	// The timeline says who claimed and who released.
	if _, err := db.ReleaseIssue(ctx, "MG-2", "codex", false); err != nil {
		t.Fatal(err)
	}
	d, _ = db.Issue(ctx, "MG-2")
	var acts []string
	for _, a := range d.Activity {
		acts = append(acts, a.Action)
	}
	if !strings.Contains(strings.Join(acts, ","), "claimed") || !strings.Contains(strings.Join(acts, ","), "released") || d.Claim != nil {
		t.Errorf("the timeline after claim and release: %v, claim %+v", acts, d.Claim)
	}
	if _, claims := list(desk.IssueFilter{}); string(claims["MG-2"]) != "null" {
		t.Errorf("the kept list after the release: %s", claims["MG-2"])
	}
}

// claimRacer is the test binary as one racer among many processes: it
// reads an issue id per line and answers "won" or the refusal.
func claimRacer(dir, holder string) int {
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{Readers: 1, CacheKiB: 512})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		_, err := db.ClaimIssue(context.Background(), in.Text(), holder, time.Hour)
		switch {
		case err == nil:
			fmt.Fprintln(out, "won")
		case desk.ErrorCode(err) == desk.Conflict:
			fmt.Fprintln(out, "lost "+err.Error())
		default:
			fmt.Fprintln(out, "error "+err.Error())
		}
		out.Flush()
	}
	return 0
}

// racers is n processes racing for claims on one data folder.
type racers struct {
	procs []*exec.Cmd
	ins   []io.WriteCloser
	outs  []*bufio.Scanner
}

func startRacers(tb testing.TB, dir string, n int) *racers {
	tb.Helper()
	r := &racers{}
	for i := 0; i < n; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DESK_TEST_CLAIM_RACER="+dir, fmt.Sprintf("DESK_TEST_HOLDER=racer-%02d", i))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			tb.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		r.procs, r.ins, r.outs = append(r.procs, cmd), append(r.ins, in), append(r.outs, bufio.NewScanner(out))
	}
	tb.Cleanup(func() {
		for i, in := range r.ins {
			in.Close()
			r.procs[i].Wait()
		}
	})
	return r
}

// round has every racer claim issue id at once and checks that exactly
// one holds it and that every other names it.
func (r *racers) round(tb testing.TB, id string) {
	tb.Helper()
	var wg sync.WaitGroup
	answers := make([]string, len(r.ins))
	for i := range r.ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintln(r.ins[i], id)
			if r.outs[i].Scan() {
				answers[i] = r.outs[i].Text()
			}
		}()
	}
	wg.Wait()
	winner := ""
	for i, a := range answers {
		if a == "won" {
			if winner != "" {
				tb.Fatalf("%s: racer-%02d and %s both hold the claim", id, i, winner)
			}
			winner = fmt.Sprintf("racer-%02d", i)
		}
	}
	if winner == "" {
		tb.Fatalf("%s: nobody holds the claim: %q", id, answers)
	}
	for i, a := range answers {
		if a != "won" && !strings.HasPrefix(a, "lost "+id+" is claimed by "+winner+" until ") {
			tb.Fatalf("%s: racer-%02d answered %q; the holder is %s", id, i, a, winner)
		}
	}
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
		r.round(t, fmt.Sprintf("MG-%d", i))
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
		r.round(b, fmt.Sprintf("MG-%d", i))
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	b.StopTimer()
	sort.Float64s(ms)
	at := func(q float64) float64 { return ms[max(int(math.Ceil(q*float64(len(ms))-1e-9))-1, 0)] }
	b.ReportMetric(at(0.5), "round-p50-ms")
	b.ReportMetric(at(0.99), "round-p99-ms")
	b.ReportMetric(float64(b.N), "rounds-one-holder")
}
