package mcp_test

import (
	"context"
	"encoding/json"
	"math"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk/pair"
)

// BenchmarkPairSendWakesABlockedRead measures what an agent waiting for
// its peer feels: the time from one desk mcp process's pair_send call to
// the answer of a pair_read(wait_seconds) blocked in another desk mcp
// process. Each iteration is one letter; the reader acknowledges it and
// blocks again before the next. The figure includes the send call's own
// round trip, the commit, the other process hearing of it (the change
// feed's watcher) and the read's answer.
//
//	go test ./mcp -run '^$' -bench PairSendWakes -benchtime 400x
func BenchmarkPairSendWakesABlockedRead(b *testing.B) {
	f := newFixture(b)
	p := f.newPair("fix", "opencode", "codex")
	// Every iteration is a letter: the round's budget must not be what stops it.
	svc := &pair.Service{Store: f.db, PatchRoot: pair.PatchRootIn(f.data)}
	if _, err := svc.SetBudget(context.Background(), p.ID, pair.Budget{Messages: 1 << 30}); err != nil {
		b.Fatal(err)
	}
	w, c := f.member(p, "opencode"), f.member(p, "codex")
	ok(b, w, "pair_ping", nil, nil)
	ok(b, c, "pair_ping", nil, nil)
	var token string
	samples := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		answer := make(chan pair.ReadAnswer, 1)
		ready := make(chan struct{})
		go func() {
			args := map[string]any{"wait_seconds": 30}
			if token != "" {
				args["ack_token"] = token
			}
			close(ready)
			answer <- readCall(b, c, args)
		}()
		<-ready
		// The read is in flight; give the server the moment it takes to
		// begin waiting (it acknowledges the last batch first), so that
		// what is measured is a wake and not a read that finds the letter.
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		if text, isErr := call(b, w, "pair_send", map[string]any{"body": "ping"}); isErr {
			b.Fatalf("pair_send refused: %s", text)
		}
		got := <-answer
		samples = append(samples, float64(time.Since(start).Microseconds())/1000)
		if len(got.Letters) != 1 {
			b.Fatalf("the blocked read returned %d letters", len(got.Letters))
		}
		token = got.AckToken
	}
	b.StopTimer()
	reportMs(b, samples)
}

// readCall calls pair_read and decodes its answer.
func readCall(b *testing.B, cs *sdk.ClientSession, args map[string]any) pair.ReadAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "pair_read", Arguments: args})
	if err != nil || res.IsError {
		b.Errorf("pair_read: %v %+v", err, res)
		return pair.ReadAnswer{}
	}
	var out pair.ReadAnswer
	json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out)
	return out
}

// reportMs adds a run's percentiles, in milliseconds, to the benchmark.
func reportMs(b *testing.B, ms []float64) {
	if len(ms) == 0 {
		return
	}
	sort.Float64s(ms)
	at := func(q float64) float64 { return ms[max(int(math.Ceil(q*float64(len(ms))-1e-9))-1, 0)] }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(ms[len(ms)-1], "max-ms")
}

// BenchmarkPairPingRoundTrip is the floor under the wake: one pair tool
// call (the cheapest) from the SDK's client to a desk mcp process and
// back, through its stdio pipes.
//
//	go test ./mcp -run '^$' -bench PairPingRoundTrip -benchtime 1000x
func BenchmarkPairPingRoundTrip(b *testing.B) {
	f := newFixture(b)
	p := f.newPair("fix", "opencode", "codex")
	c := f.member(p, "codex")
	ok(b, c, "pair_ping", nil, nil)
	samples := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if text, isErr := call(b, c, "pair_ping", nil); isErr {
			b.Fatalf("pair_ping refused: %s", text)
		}
		samples = append(samples, float64(time.Since(start).Microseconds())/1000)
	}
	b.StopTimer()
	reportMs(b, samples)
}
