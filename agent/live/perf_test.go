package live_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"desk/agent/intake"
	"desk/agent/live"
	"desk/bench/load"
	"desk/sqlite"
)

// Performance figures (docs/performance-agents.md). The tests always run
// and always check that nothing is lost; the time budgets are asserted
// only with DESK_AGENT_PERF_STRICT=1, since a loaded machine measures the
// machine. DESK_AGENT_LOAD_SECONDS lengthens the load run.

func strict() bool { return os.Getenv("DESK_AGENT_PERF_STRICT") != "" }

// percentiles returns p50, p95, p99 and max of ds, ranked as every desk
// benchmark ranks (load.Percentile).
func percentiles(ds []time.Duration) (p50, p95, p99, max time.Duration) {
	s := load.Summarize(load.Milliseconds(ds))
	d := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	return d(s.P50), d(s.P95), d(s.P99), d(s.Max)
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + " ms" }

// machine says how busy the machine was, since a shared machine measures
// its neighbours too.
func machine() string {
	b, _ := os.ReadFile("/proc/loadavg")
	load, _, _ := strings.Cut(string(b), " ")
	if load == "" {
		load = "?"
	}
	return fmt.Sprintf("%d cores, load average %s", runtime.NumCPU(), load)
}

// cycle is one turn of a busy session, in Claude Code's hooks.
var cycle = []struct{ event, extra, look string }{
	{"UserPromptSubmit", `"prompt":"fix it"`, "working"},
	{"PreToolUse", `"tool_name":"Read","tool_input":{"file_path":"/src/store.go"}`, "working"},
	{"PostToolUse", `"tool_name":"Read"`, "working"},
	{"PreToolUse", `"tool_name":"Bash","tool_input":{"command":"go test ./..."}`, "working"},
	{"PostToolUse", `"tool_name":"Bash"`, "working"},
	{"PreToolUse", `"tool_name":"Edit","tool_input":{"file_path":"/src/store.go"}`, "working"},
	{"PostToolUse", `"tool_name":"Edit"`, "working"},
	{"Stop", ``, "done"},
}

// poster posts reports to the server's intake the way desk hook event
// does, with the hook's own clock in the header.
type poster struct {
	url, token string
	client     *http.Client
}

func newPoster(s *server) *poster {
	return &poster{url: s.url + "/api/hooks/claude", token: s.svc.Token(),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}, Timeout: 10 * time.Second}}
}

func (p *poster) post(payload []byte) (int, error) {
	req, _ := http.NewRequest("POST", p.url, bytes.NewReader(payload))
	req.Header.Set(intake.HeaderToken, p.token)
	req.Header.Set(intake.HeaderReceived, time.Now().UTC().Format(time.RFC3339Nano))
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body) // so that the connection serves the next post
	resp.Body.Close()
	return resp.StatusCode, nil
}

// follow reads the server's /api/events and sends the actor of every agent
// change.
func follow(t *testing.T, ctx context.Context, s *server) <-chan string {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	actors := make(chan string, 4096)
	ready := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m struct {
				Type    string
				Changes []struct{ Type, Actor string }
			}
			json.Unmarshal([]byte(data), &m)
			if m.Type == "hello" {
				close(ready)
			}
			for _, c := range m.Changes {
				if c.Type == "agent" {
					select {
					case actors <- c.Actor:
					default: // the probe reads only its own; never block the stream
					}
				}
			}
		}
	}()
	<-ready
	return actors
}

// probeLatency posts events for session "probe" one at a time and times
// each until its change reaches the SSE subscriber, until ctx ends.
func probeLatency(t *testing.T, ctx context.Context, s *server, actors <-chan string) []time.Duration {
	p := newPoster(s)
	var out []time.Duration
	for i := 0; ctx.Err() == nil; i++ {
		c := cycle[i%len(cycle)]
		start := time.Now()
		if status, err := p.post(hook(c.event, "probe", "/src/probe", c.extra)); err != nil || status != http.StatusAccepted {
			t.Errorf("probe post: %d %v", status, err)
			return out
		}
	wait:
		for {
			select {
			case a := <-actors:
				if a == "probe" {
					out = append(out, time.Since(start))
					break wait
				}
			case <-time.After(5 * time.Second):
				t.Error("a probe event never reached the stream")
				return out
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return out
}

// Fifty sessions at twenty events a second each, posted through the HTTP
// intake: every event is taken, applied and saved, every session ends in
// the state its last event set, and a probe session times how long its
// events take to reach an SSE subscriber meanwhile.
func TestLoadFiftySessionsLoseNothing(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a load run; not under -short or the race detector")
	}
	const sessions, rate = 50, 20
	seconds := 3
	if v, err := strconv.Atoi(os.Getenv("DESK_AGENT_LOAD_SECONDS")); err == nil && v > 0 {
		seconds = v
	}
	s := startServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	actors := follow(t, ctx, s)

	var sent, accepted atomic.Int64
	var late []time.Duration
	var lateMu sync.Mutex
	var wg sync.WaitGroup
	begin := time.Now()
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p := newPoster(s)
			id := fmt.Sprintf("load-%02d", i)
			tick := time.NewTicker(time.Second / rate)
			defer tick.Stop()
			for n := 0; n < seconds*rate; n++ {
				<-tick.C
				c := cycle[n%len(cycle)]
				sent.Add(1)
				t0 := time.Now()
				status, err := p.post(hook(c.event, id, "/src/load", c.extra))
				if err != nil || status != http.StatusAccepted {
					t.Errorf("%s event %d: %d %v", id, n, status, err)
					continue
				}
				lateMu.Lock()
				late = append(late, time.Since(t0))
				lateMu.Unlock()
				accepted.Add(1)
			}
		}(i)
	}
	probeCtx, stopProbe := context.WithCancel(ctx)
	var probes []time.Duration
	probed := make(chan struct{})
	go func() { probes = probeLatency(t, probeCtx, s, actors); close(probed) }()
	wg.Wait()
	elapsed := time.Since(begin)
	stopProbe()
	<-probed

	want := int64(sessions * seconds * rate)
	if sent.Load() != want || accepted.Load() != want {
		t.Fatalf("sent %d, accepted %d, want %d", sent.Load(), accepted.Load(), want)
	}
	eventually(t, "every event saved", func() bool { return s.svc.Stats().Persisted == s.svc.Stats().Events })
	st := s.svc.Stats()
	if st.Events != want+int64(len(probes)) || st.Ignored != 0 {
		t.Errorf("stats %+v: want %d events applied, none ignored", st, want+int64(len(probes)))
	}
	last := cycle[(seconds*rate-1)%len(cycle)].look
	for _, a := range s.agents("?client=claude") {
		if strings.HasPrefix(a.ID, "load-") && a.State != last {
			t.Errorf("%s ended %s, want %s", a.ID, a.State, last)
		}
	}
	if per := seconds * rate; per <= sqlite.AgentEventsKept {
		for i := 0; i < sessions; i++ {
			evs, err := s.db.AgentEvents(context.Background(), fmt.Sprintf("load-%02d", i), 10000)
			if err != nil || len(evs) != per {
				t.Fatalf("load-%02d: %d events stored (%v), want %d", i, len(evs), err, per)
			}
		}
	}
	p50, p95, p99, max := percentiles(late)
	t.Logf("machine: %s", machine())
	t.Logf("%d sessions × %d events/s for %s: %d events, %.0f events/s, %d transactions; POST answered p50 %s p95 %s p99 %s max %s",
		sessions, rate, elapsed.Round(time.Millisecond), want, float64(want)/elapsed.Seconds(), st.Batches, ms(p50), ms(p95), ms(p99), ms(max))
	if len(probes) < 20 {
		t.Fatalf("only %d probes", len(probes))
	}
	p50, p95, p99, max = percentiles(probes)
	t.Logf("hook post → SSE subscriber under that load (%d probes): p50 %s p95 %s p99 %s max %s", len(probes), ms(p50), ms(p95), ms(p99), ms(max))
	if strict() && p99 > 50*time.Millisecond {
		t.Errorf("p99 %s over the 50 ms budget", ms(p99))
	}
}

// A hook's event reaching an SSE subscriber on an idle server.
func TestHookToStreamLatencyIdle(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	probes := probeLatency(t, ctx, s, follow(t, context.Background(), s))
	p50, p95, p99, max := percentiles(probes)
	t.Logf("machine: %s", machine())
	t.Logf("hook post → SSE subscriber, idle (%d probes): p50 %s p95 %s p99 %s max %s", len(probes), ms(p50), ms(p95), ms(p99), ms(max))
	if strict() && p99 > 50*time.Millisecond {
		t.Errorf("p99 %s over the 50 ms budget", ms(p99))
	}
}

// The wall time of desk hook event as a client runs it: a new process, the
// payload on stdin, a post to the running server. For scale, the same for
// /bin/true (a process) and desk version (the binary's start alone), run
// in turn with the hook so that all three meet the same machine.
func TestHookEventProcessSpeed(t *testing.T) {
	if os.Getenv("DESK_AGENT_PERF") == "" {
		t.Skip("set DESK_AGENT_PERF=1 to time desk hook event")
	}
	s := startServer(t)
	bin := deskBin(t)
	spool := t.TempDir()
	payload := hook("PreToolUse", "speed", "/src", `"tool_name":"Bash","tool_input":{"command":"go test ./..."}`)
	runs := 500
	if v, err := strconv.Atoi(os.Getenv("DESK_AGENT_PERF_RUNS")); err == nil && v > 0 {
		runs = v
	}
	rows := []struct {
		what string
		argv []string
		ds   []time.Duration
	}{
		{what: "/bin/true", argv: []string{"/bin/true"}},
		{what: "desk version", argv: []string{bin, "version"}},
		{what: "desk hook event (server running)", argv: []string{bin, "--data", s.dir, "hook", "event", "--client", "claude"}},
		{what: "desk hook event (no server: spooled)", argv: []string{bin, "--data", spool, "hook", "event", "--client", "claude"}},
	}
	before := s.svc.Stats().Events
	for i := 0; i < runs+20; i++ {
		for j := range rows {
			cmd := exec.Command(rows[j].argv[0], rows[j].argv[1:]...)
			cmd.Stdin = bytes.NewReader(payload)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v", rows[j].what, err)
			}
			if i >= 20 { // warm-up
				rows[j].ds = append(rows[j].ds, time.Since(start))
			}
		}
	}
	t.Logf("machine: %s", machine())
	var p95 time.Duration
	for _, r := range rows {
		p50, q95, p99, max := percentiles(r.ds)
		t.Logf("%-38s p50 %s p95 %s p99 %s max %s", r.what, ms(p50), ms(q95), ms(p99), ms(max))
		if r.what == "desk hook event (server running)" {
			p95 = q95
		}
	}
	if got := s.svc.Stats().Events - before; got != int64(runs+20) {
		t.Errorf("the server applied %d of %d events", got, runs+20)
	}
	if strict() && p95 > 10*time.Millisecond {
		t.Errorf("desk hook event p95 %s over the 10 ms budget", ms(p95))
	}
}

// BenchmarkReceive is the server's work per hook report on the request's
// path: decode, apply, queue. The writer saves in the background.
func BenchmarkReceive(b *testing.B) {
	// The server's own options: its tick and its (quiet) logger.
	svc := newRig(b, func(o *live.Options) { o.Tick, o.Logger = 0, nil }).svc
	var payloads [][]byte
	for i := 0; i < 50; i++ {
		for _, c := range cycle {
			payloads = append(payloads, hook(c.event, fmt.Sprintf("bench-%02d", i), "/src/bench", c.extra))
		}
	}
	now := time.Now()
	i := 0
	for b.Loop() {
		if _, err := svc.Receive(&intake.Report{Client: "claude", Payload: payloads[i%len(payloads)], Received: now.Add(time.Duration(i))}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
