package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/pair"
	"desk/pair/pairtest"
	"desk/postgres"
	"desk/storetest"

	"github.com/jackc/pgx/v5"
)

// The suite every pair backend passes, on a schema of its own per test.
func TestPairStore(t *testing.T) {
	pairtest.Run(t, func(t *testing.T) (pair.Store, string) {
		db := open(t, newSchema(t), t.TempDir())
		ps := postgres.NewPairStore(db)
		t.Cleanup(func() { ps.Close(); db.Close() })
		storetest.MustProject(t, db)
		return ps, "mygame"
	})
}

// twoReplicas opens two handles (two pools, as two replicas hold) on one
// fresh store with project mygame, the pair rules over each, and a pair
// of opencode and codex made on the first, with a budget no test runs
// out of.
func twoReplicas(tb testing.TB) (a, b *pair.Service, p *pair.Pair) {
	tb.Helper()
	url, dir := newSchema(tb), tb.TempDir()
	da, db := open(tb, url, dir), open(tb, url, dir)
	pa, pb := postgres.NewPairStore(da), postgres.NewPairStore(db)
	tb.Cleanup(func() { pa.Close(); pb.Close(); da.Close(); db.Close() })
	storetest.MustProject(tb, da)
	a = &pair.Service{Store: pa, PatchRoot: pair.PatchRootIn(tb.TempDir())}
	b = &pair.Service{Store: pb, PatchRoot: pair.PatchRootIn(tb.TempDir())}
	ctx := context.Background()
	p, err := a.New(ctx, pair.NewInput{Project: "mygame", Folder: tb.TempDir(), Task: "fix the retry jitter", Members: []string{"opencode", "codex"}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := a.SetBudget(ctx, p.ID, pair.Budget{Messages: 1 << 30}); err != nil {
		tb.Fatal(err)
	}
	return a, b, p
}

// A pair_read waiting on one replica wakes with the letter a pair_send on
// another replica committed: the notification crosses the database.
func TestAReadWaitingOnOneReplicaWakesOnASendOnAnother(t *testing.T) {
	ctx := context.Background()
	a, b, p := twoReplicas(t)
	writer, critic := pair.Caller{Pair: p.ID, Role: "opencode"}, pair.Caller{Pair: p.ID, Role: "codex"}
	type answer struct {
		r   *pair.ReadAnswer
		err error
	}
	got := make(chan answer, 1)
	go func() {
		r, err := b.Read(ctx, critic, pair.ReadInput{WaitSeconds: 30})
		got <- answer{r, err}
	}()
	time.Sleep(300 * time.Millisecond) // the read is waiting
	if _, err := a.Send(ctx, writer, "the jitter is in Backoff", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-got:
		if g.err != nil || len(g.r.Letters) != 1 || g.r.Letters[0].Body != "the jitter is in Backoff" || g.r.Waited != "" || !g.r.MustAck {
			t.Fatalf("the read woke with %+v, %v", g.r, g.err)
		}
		// The batch stays unread until its token comes back, on either replica.
		again, err := a.Read(ctx, critic, pair.ReadInput{})
		if err != nil || len(again.Letters) != 1 || again.AckToken != g.r.AckToken {
			t.Fatalf("the unacknowledged batch read on the other replica: %+v, %v", again, err)
		}
		done, err := a.Read(ctx, critic, pair.ReadInput{AckToken: g.r.AckToken})
		if err != nil || done.Acked == 0 || len(done.Letters) != 0 {
			t.Fatalf("acknowledging on the other replica: %+v, %v", done, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the read on replica b never woke")
	}
}

// Any number of pair_read waits on one replica share one follow of the
// feed: one LISTEN connection, however many agents wait.
func TestWaitsOnAReplicaShareOneConnection(t *testing.T) {
	ctx := context.Background()
	a, b, p := twoReplicas(t)
	writer, critic := pair.Caller{Pair: p.ID, Role: "opencode"}, pair.Caller{Pair: p.ID, Role: "codex"}
	feedConns := func() int {
		t.Helper()
		conn, err := pgx.Connect(ctx, dbURL("public"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
			postgres.FeedApplicationName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := feedConns()
	const waits = 8
	got := make(chan *pair.ReadAnswer, waits)
	for range waits {
		go func() {
			r, err := b.Read(ctx, critic, pair.ReadInput{WaitSeconds: 30})
			if err != nil {
				t.Error(err)
			}
			got <- r
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for feedConns() != before+1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d reads waiting hold %d feed connections (%d before them); want one", waits, feedConns()-before, before)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // every read is waiting by now
	if n := feedConns() - before; n != 1 {
		t.Fatalf("%d reads waiting hold %d feed connections", waits, n)
	}
	if _, err := a.Send(ctx, writer, "wake up", nil); err != nil {
		t.Fatal(err)
	}
	for range waits {
		select {
		case r := <-got:
			if r == nil || len(r.Letters) != 1 || r.Letters[0].Body != "wake up" {
				t.Fatalf("a woken read: %+v", r)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a read never woke")
		}
	}
}

// A send on one replica makes write authority and the phase seen on the
// other at once: the rules read the pair inside each transaction.
func TestTheSingleWriterHoldsAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	a, b, p := twoReplicas(t)
	if _, err := a.Claim(ctx, pair.Caller{Pair: p.ID, Role: "opencode"}, "I wrote the retry loop"); err != nil {
		t.Fatal(err)
	}
	_, err := b.Claim(ctx, pair.Caller{Pair: p.ID, Role: "codex"}, "let me")
	var de *desk.Error
	if !errors.As(err, &de) || de.Rule != pair.RuleSingleWriter || !strings.Contains(de.Message, "opencode") {
		t.Fatalf("a second claim on the other replica: %v", err)
	}
	st, err := b.PairState(ctx, p.ID)
	if err != nil || st.Writer != "opencode" {
		t.Fatalf("the other replica's state: %+v, %v", st, err)
	}
}

// BenchmarkPairSendWakesAReadOnAnotherReplica measures the wake across
// replicas: from a pair_send through one handle to the answer of a
// pair_read(wait_seconds) blocked on another (its own pool and its own
// LISTEN connection). Each iteration is one letter, acknowledged before
// the next read blocks.
//
//	go test ./postgres -run '^$' -bench PairSendWakes -benchtime 400x
func BenchmarkPairSendWakesAReadOnAnotherReplica(b *testing.B) {
	ctx := context.Background()
	sa, sb, p := twoReplicas(b)
	writer, critic := pair.Caller{Pair: p.ID, Role: "opencode"}, pair.Caller{Pair: p.ID, Role: "codex"}
	var token string
	samples := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got := make(chan *pair.ReadAnswer, 1)
		go func() {
			r, err := sb.Read(ctx, critic, pair.ReadInput{WaitSeconds: 30, AckToken: token})
			if err != nil {
				b.Error(err)
			}
			got <- r
		}()
		// Give the read the moment it takes to acknowledge and begin
		// waiting, so that what is measured is a wake.
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		if _, err := sa.Send(ctx, writer, "ping", nil); err != nil {
			b.Fatal(err)
		}
		r := <-got
		samples = append(samples, float64(time.Since(start).Microseconds())/1000)
		if r == nil || len(r.Letters) != 1 {
			b.Fatalf("the woken read: %+v", r)
		}
		token = r.AckToken
	}
	b.StopTimer()
	sort.Float64s(samples)
	at := func(q float64) float64 {
		return samples[max(int(math.Ceil(q*float64(len(samples))-1e-9))-1, 0)]
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(samples[len(samples)-1], "max-ms")
}

// The shared follow hands each watcher every row after its position once
// and in order, whether the rows were committed before it joined, while
// it was joining, or after, and from whichever handle.
func TestSharedWatchesHandOverEveryRowOnce(t *testing.T) {
	ctx := context.Background()
	url, dir := newSchema(t), t.TempDir()
	da, other := open(t, url, dir), open(t, url, dir)
	ps := postgres.NewPairStore(da)
	t.Cleanup(func() { ps.Close(); da.Close(); other.Close() })
	storetest.MustProject(t, da)
	issue := storetest.MustIssue(t, da, desk.IssueFields{Title: ptrTo("busy")}, "owner")
	const writes, watchers = 70, 6
	var wg sync.WaitGroup
	wg.Add(1)
	progress := make(chan struct{}, writes)
	go func() {
		defer wg.Done()
		defer close(progress)
		for i := range writes {
			if _, _, err := other.AddComment(ctx, issue.ID, desk.CommentInput{Author: "w", Text: fmt.Sprintf("c%d", i)}); err != nil {
				t.Error(err)
				return
			}
			if i%10 == 9 {
				progress <- struct{}{}
			}
		}
	}()
	type seen struct {
		after int64
		seqs  []int64
	}
	results := make([]*seen, watchers)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	for i := range watchers {
		<-progress // join as the writes go on: after ten more
		after, err := da.LastSeq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			after /= 2 // an older position: rows from the table first
		}
		results[i] = &seen{after: after}
		go ps.Watch(wctx, after, func(cs []*desk.Change) {
			mu.Lock()
			defer mu.Unlock()
			for _, c := range cs {
				results[i].seqs = append(results[i].seqs, c.Seq)
			}
		})
	}
	wg.Wait()
	last, err := other.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for i := range watchers {
		for {
			mu.Lock()
			n := len(results[i].seqs)
			done := results[i].after == last || n > 0 && results[i].seqs[n-1] == last
			mu.Unlock()
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("watcher %d (after %d) reached %d rows, never row %d", i, results[i].after, n, last)
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		got := results[i].seqs
		mu.Unlock()
		want := results[i].after + 1
		for _, seq := range got {
			if seq != want {
				t.Fatalf("watcher %d (after %d) got row %d where %d was due: %v", i, results[i].after, seq, want, got)
			}
			want++
		}
	}
}
