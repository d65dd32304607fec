package http_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/bench/benchdesk"
	"desk/bench/gen"
	"desk/internal/testdesk"
)

// The server's benchmarks: the API's reads over real loopback HTTP on the
// core's benchmark desk, and the time from a write in another process to
// its event on a live stream.
//
//	go test ./http -run '^$' -bench . -benchtime 1000x

func BenchmarkAPI(b *testing.B) {
	bd := benchdesk.New(b, gen.Core, 1)
	d := testdesk.StartIn(b, bd.Dir)
	main, rich := bd.Summary.Main, bd.Summary.Rich
	p := "/api/projects/" + main
	paths := map[string]string{
		"Health":      "/api/health",
		"Project":     p,
		"Triage200":   p + "/issues?sort=triage&limit=200&status=reported,open,in_progress,auto_check,to_check,failed",
		"Backlog":     p + "/issues?sort=backlog&limit=5000&status=open,in_progress",
		"UITriage":    p + "/issues?sort=triage&limit=300&summary=1&status=reported,open,in_progress,auto_check,to_check,failed",
		"Search":      p + "/issues?q=terrain&limit=200",
		"DetailRich":  "/api/issues/" + rich,
		"Handoff":     p + "/handoff",
		"Page":        "/",
		"UIBacklog":   p + "/issues?sort=backlog&limit=5000&summary=1&status=open,in_progress",
		"AreaFilter2": p + "/issues?sort=triage&area=terrain&priority=p1%2Cp2&limit=200",
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	for name, path := range paths {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				resp, err := client.Get(d.URL + path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %d", path, resp.StatusCode)
				}
			}
		})
	}
	b.Run("Comment", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			resp, err := client.Post(d.URL+"/api/issues/"+rich+"/comments", "application/json",
				strings.NewReader(`{"author": "owner", "text": "still square at the rift"}`))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkLiveLatency measures how long a write made through another
// handle on the folder (standing for another process: the CLI, an MCP
// server) takes to reach a subscriber of the server's event stream.
func BenchmarkLiveLatency(b *testing.B) {
	bd := benchdesk.New(b, gen.Core, 1)
	d := testdesk.StartIn(b, bd.Dir)
	other := openSecond(&testing.T{}, bd.Dir)
	resp, err := http.Get(d.URL + "/api/events")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan time.Time, 64)
	go func() {
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"type":"comment"`) {
				events <- time.Now()
			}
		}
	}()
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, _, err := other.AddComment(ctx, bd.Summary.Rich, desk.CommentInput{Author: "claude", Text: "progress"}); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-events:
			lat = append(lat, at.Sub(start))
		case <-time.After(5 * time.Second):
			b.Fatal("no event within 5 s")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
