package postgres_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// claudeRun is a real Claude Code session's hook payloads, one a line.
const claudeRun = "../agent/testdata/hooks/claude-code-2.1.197-interactive.jsonl"

// hookLine is one recorded hook call.
type hookLine struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

func readHooks(tb testing.TB, path string) []hookLine {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []hookLine
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var h hookLine
		if err := json.Unmarshal(l, &h); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, h)
	}
	return out
}

// postHook sends one payload to a replica's hook route with its admin's
// token, as a member's desk hook event does, and returns the answer.
func (r *replica) postHook(tb testing.TB, client string, payload []byte) (int, map[string]any) {
	tb.Helper()
	req, _ := http.NewRequest("POST", r.url+"/api/hooks/"+client, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// agentView is a session as GET /api/agents shows it, the fields that
// must agree between replicas.
type agentView struct {
	ID, Client, State, Cwd, Since, UpdatedAt string
	Activity                                 string // its JSON
}

func (r *replica) agents(tb testing.TB) []agentView {
	tb.Helper()
	req, _ := http.NewRequest("GET", r.url+"/api/agents", nil)
	req.Header.Set("Authorization", "Bearer "+r.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Agents []struct {
			ID        string          `json:"id"`
			Client    string          `json:"client"`
			State     string          `json:"state"`
			Cwd       string          `json:"cwd"`
			Since     string          `json:"since"`
			UpdatedAt string          `json:"updated_at"`
			Activity  json.RawMessage `json:"activity"`
		}
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("GET /api/agents on %s: %d %s", r.url, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		tb.Fatal(err)
	}
	var vs []agentView
	for _, a := range out.Agents {
		vs = append(vs, agentView{a.ID, a.Client, a.State, a.Cwd, a.Since, a.UpdatedAt, string(a.Activity)})
	}
	return vs
}

func findAgent(vs []agentView, id string) (agentView, bool) {
	i := slices.IndexFunc(vs, func(v agentView) bool { return v.ID == id })
	if i < 0 {
		return agentView{}, false
	}
	return vs[i], true
}

// agentStream follows a replica's live stream and hands over the session
// ids of its agent rows; it ends with ctx.
func (r *replica) agentStream(tb testing.TB, ctx context.Context) <-chan string {
	tb.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.url+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+r.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != 200 {
		tb.Fatalf("GET /api/events on %s: %d", r.url, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() && sc.Text() != "event: hello" {
	}
	out := make(chan string, 1024)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev struct {
				Changes []struct{ Type, Actor, Action string }
			}
			json.Unmarshal([]byte(data), &ev)
			for _, c := range ev.Changes {
				if c.Type == "agent" && c.Action == "updated" {
					out <- c.Actor
				}
			}
		}
	}()
	return out
}

// The live agent picture is the database's, not one replica's: a hook a
// real Claude Code session posted to replica a shows, in the same state,
// in b's Agents view and on b's live stream; and after a is killed with
// -9, a replica c that starts later shows it too.
func TestAgentsAreSharedAcrossReplicas(t *testing.T) {
	url := newSchema(t)
	a := startReplica(t, url, nil, "")
	b := startReplica(t, url, nil, "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	onB := b.agentStream(t, ctx)

	hooks := readHooks(t, claudeRun)
	// awaitRow waits for b's stream to show a row of the session.
	awaitRow := func(session string) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case id, ok := <-onB:
				if !ok {
					t.Fatal("b's stream ended")
				}
				if id == session {
					return
				}
			case <-timeout:
				t.Fatalf("b's live stream did not show %s", session)
			}
		}
	}
	// post sends one recorded hook to r and waits for b's stream to show
	// it; b's Agents view must then show the state r answered, at once:
	// the stream's row means b's picture has it already.
	post := func(r *replica, h hookLine) agentView {
		t.Helper()
		start := time.Now()
		code, res := r.postHook(t, "claude", h.Payload)
		session, _ := res["session"].(string)
		if code != 202 || session == "" {
			t.Fatalf("the %s hook to %s: %d %v", h.Event, r.url, code, res)
		}
		awaitRow(session)
		took := time.Since(start)
		onB, ok := findAgent(b.agents(t), session)
		onR, _ := findAgent(r.agents(t), session)
		if !ok || onB != onR || onB.State != res["state"] {
			t.Fatalf("after %s, b shows %+v (found %v); %s shows %+v and answered %v", h.Event, onB, ok, r.url, onR, res["state"])
		}
		t.Logf("%s to %s: on b's stream and Agents view after %v, %s", h.Event, r.url, took.Round(100*time.Microsecond), onB.State)
		return onB
	}
	// A real Claude Code run up to its permission prompt, into a.
	var last agentView
	for _, h := range hooks[:4] {
		last = post(a, h)
	}
	if last.State != "needs_permission" {
		t.Fatalf("after the permission request: %+v", last)
	}

	// a dies without a word; what it took is in the database.
	a.cmd.Process.Kill()
	a.cmd.Wait()
	c := startReplica(t, url, nil, "")
	if got, ok := findAgent(c.agents(t), last.ID); !ok || got != last {
		t.Errorf("c, started after a was killed, shows %+v (found %v); want %+v", got, ok, last)
	}
	// The run goes on through c, and b follows it to its end.
	for _, h := range hooks[4:] {
		last = post(c, h)
	}
	if last.State != "ended" {
		t.Errorf("after the run's end: %+v", last)
	}
}

// BenchmarkAgentAcrossReplicas measures how long a hook posted to one
// replica takes to reach a live stream of another replica, whose Agents
// view then shows it: from the POST's start to the stream's row (p50-ms,
// p99-ms), and from a's answer, once the events are saved, to the row.
func BenchmarkAgentAcrossReplicas(b *testing.B) {
	url := newSchema(b)
	ra := startReplica(b, url, nil, "")
	rb := startReplica(b, url, nil, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	onB := rb.agentStream(b, ctx)
	hooks := readHooks(b, claudeRun)
	prompt, stop := hooks[1].Payload, hooks[len(hooks)-1].Payload
	ra.postHook(b, "claude", hooks[0].Payload)
	var session string
	drain := func() {
		for {
			select {
			case <-onB:
			case <-time.After(200 * time.Millisecond):
				return
			}
		}
	}
	drain()
	lat := make([]time.Duration, 0, b.N)
	ack := make([]time.Duration, 0, b.N)
	after := make([]time.Duration, 0, b.N) // from a's answer (the events are saved) to b's row
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := prompt
		if i%2 == 1 {
			p = stop
		}
		start := time.Now()
		code, res := ra.postHook(b, "claude", p)
		acked := time.Now()
		ack = append(ack, acked.Sub(start))
		if code != 202 {
			b.Fatalf("hook: %d %v", code, res)
		}
		session, _ = res["session"].(string)
		for id := range onB {
			if id == session {
				break
			}
		}
		lat = append(lat, time.Since(start))
		after = append(after, time.Since(acked))
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(ack)
	slices.Sort(after)
	q := func(d []time.Duration, f float64) float64 {
		return float64(d[min(len(d)-1, int(f*float64(len(d))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(lat, 0.5), "p50-ms")
	b.ReportMetric(q(lat, 0.99), "p99-ms")
	b.ReportMetric(q(ack, 0.5), "hook-ack-p50-ms")
	b.ReportMetric(q(after, 0.5), "saved-to-b-p50-ms")
	b.ReportMetric(q(after, 0.99), "saved-to-b-p99-ms")
	b.ReportMetric(0, "ns/op")
}
