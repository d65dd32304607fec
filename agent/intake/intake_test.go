package intake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/serverfile"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)

func report(i int) *Report {
	return &Report{Client: "claude", Event: "PreToolUse", Received: t0.Add(time.Duration(i) * time.Millisecond),
		Payload: []byte(fmt.Sprintf(`{"session_id":"s","n":%d}`, i)), Env: map[string]string{"DESK_SESSION_ID": "L1"}}
}

func drainAll(t *testing.T, dir string) ([]*Report, int) {
	t.Helper()
	var got []*Report
	_, bad, err := Drain(dir, func(r *Report) { got = append(got, r) })
	if err != nil {
		t.Fatal(err)
	}
	return got, bad
}

func TestTokenIsCreatedOnceAndPrivate(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadToken(dir); err == nil {
		t.Fatal("ReadToken found a token in an empty folder")
	}
	a, err := Token(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Token(dir)
	if err != nil || a != b || len(a) < 40 {
		t.Fatalf("tokens %q then %q (%v), want one token of 32 random bytes", a, b, err)
	}
	info, err := os.Stat(filepath.Join(dir, TokenName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v (%v), want 0600", info.Mode(), err)
	}
	if r, _ := ReadToken(dir); r != a {
		t.Errorf("ReadToken = %q, want %q", r, a)
	}
}

func TestSpoolKeepsReportsInOrderWithTheirTimes(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		if err := Spool(dir, report(i)); err != nil {
			t.Fatal(err)
		}
	}
	if !Pending(dir) {
		t.Fatal("Pending = false with five spooled reports")
	}
	got, bad := drainAll(t, dir)
	if len(got) != 5 || bad != 0 {
		t.Fatalf("drained %d (%d bad), want 5", len(got), bad)
	}
	for i, r := range got {
		w := report(i)
		if r.Client != w.Client || r.Event != w.Event || !r.Received.Equal(w.Received) || string(r.Payload) != string(w.Payload) || r.Env["DESK_SESSION_ID"] != "L1" {
			t.Errorf("report %d = %+v, want %+v", i, r, w)
		}
	}
	if Pending(dir) {
		t.Error("Pending after a drain")
	}
	if again, _ := drainAll(t, dir); len(again) != 0 {
		t.Errorf("a second drain replayed %d reports", len(again))
	}
}

// A payload that is not JSON is replayed as it was, so that the server
// refuses it with its reason instead of it vanishing.
func TestSpoolKeepsBadPayloadsAsText(t *testing.T) {
	dir := t.TempDir()
	r := report(0)
	r.Payload = []byte("not json\n{")
	if err := Spool(dir, r); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, SpoolName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("garbage line\n")
	f.Close()
	got, bad := drainAll(t, dir)
	if len(got) != 1 || string(got[0].Payload) != "not json\n{" || bad != 1 {
		t.Fatalf("drained %+v, %d bad; want the payload as written and one bad line", got, bad)
	}
}

func TestSpoolCapsHugePayloadsKeepingTheirShape(t *testing.T) {
	dir := t.TempDir()
	r := report(0)
	big := strings.Repeat("x", 1<<20)
	r.Payload = []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"` + big + `"}}`)
	if err := Spool(dir, r); err != nil {
		t.Fatal(err)
	}
	got, _ := drainAll(t, dir)
	var p map[string]any
	if len(got) != 1 || len(got[0].Payload) > spoolPayloadMax || json.Unmarshal(got[0].Payload, &p) != nil {
		t.Fatalf("spooled payload of %d bytes", len(got[0].Payload))
	}
	if p["session_id"] != "s" || p["tool_name"] != "Bash" || p["hook_event_name"] != "PostToolUse" {
		t.Errorf("the fields the mapper needs are gone: %v", p)
	}
}

// A full spool is set aside and a new one begun: the most recent reports
// are kept, the oldest replayed first.
func TestSpoolSetsAFullFileAside(t *testing.T) {
	defer func(m int64) { spoolMax = m }(spoolMax)
	spoolMax = 1000
	dir := t.TempDir()
	for i := 0; i < 40; i++ {
		if err := Spool(dir, report(i)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := drainAll(t, dir)
	if len(got) == 0 || len(got) >= 40 {
		t.Fatalf("kept %d of 40 reports with a tiny spool", len(got))
	}
	for i := 1; i < len(got); i++ {
		if !got[i].Received.After(got[i-1].Received) {
			t.Fatalf("replay out of order at %d", i)
		}
	}
	if last := got[len(got)-1]; !last.Received.Equal(report(39).Received) {
		t.Errorf("the newest report was not kept")
	}
}

// A drain a server did not finish (it stopped half way) is replayed by the
// next one, before what was spooled since.
func TestDrainReplaysAnUnfinishedDrainFirst(t *testing.T) {
	dir := t.TempDir()
	Spool(dir, report(1))
	if err := os.Rename(filepath.Join(dir, SpoolName), filepath.Join(dir, "agent-spool.5-1"+drainSuffix)); err != nil {
		t.Fatal(err)
	}
	Spool(dir, report(2))
	got, _ := drainAll(t, dir)
	if len(got) != 2 || !got[0].Received.Equal(report(1).Received) {
		t.Fatalf("drained %d, first %v; want the unfinished drain's report first", len(got), got)
	}
}

// Hooks append while a server drains: every report is replayed exactly once.
func TestSpoolAndDrainRaceLosesNothing(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := Spool(dir, report(w*1000+i)); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	seen := map[string]int{}
	var mu sync.Mutex
	collect := func(r *Report) { mu.Lock(); seen[string(r.Payload)]++; mu.Unlock() }
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if _, _, err := Drain(dir, collect); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := Drain(dir, collect); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writers*each {
		t.Fatalf("replayed %d distinct reports, want %d", len(seen), writers*each)
	}
	for p, n := range seen {
		if n != 1 {
			t.Fatalf("%s replayed %d times", p, n)
		}
	}
}

func TestReadRequestTakesWhatTheHookSent(t *testing.T) {
	r := report(0)
	r.Env["PATH"] = "/secret/bin"
	req := httptest.NewRequest("POST", "/api/hooks/claude", bytes.NewReader(r.Payload))
	r.Header(req.Header)
	req.Header.Set(HeaderEnv, req.Header.Get(HeaderEnv)+"&HOME=/home/me")
	now := t0.Add(time.Second)
	got, err := ReadRequest(req, "claude", now)
	if err != nil {
		t.Fatal(err)
	}
	if got.Event != "PreToolUse" || !got.Received.Equal(r.Received) || string(got.Payload) != string(r.Payload) {
		t.Errorf("read %+v", got)
	}
	if len(got.Env) != 1 || got.Env["DESK_SESSION_ID"] != "L1" {
		t.Errorf("env = %v, want only desk's variables", got.Env)
	}

	// A hook's clock never runs ahead of the server's; ?event= names the
	// event for http hooks.
	req = httptest.NewRequest("POST", "/api/hooks/claude?event=Stop", strings.NewReader(`{}`))
	req.Header.Set(HeaderReceived, now.Add(time.Hour).Format(time.RFC3339Nano))
	got, _ = ReadRequest(req, "claude", now)
	if !got.Received.Equal(now) || got.Event != "Stop" {
		t.Errorf("received %v event %q, want the server's now and Stop", got.Received, got.Event)
	}

	req = httptest.NewRequest("POST", "/api/hooks/claude", strings.NewReader(`{}`))
	req.Header.Set(HeaderReceived, "yesterday")
	if _, err := ReadRequest(req, "claude", now); err == nil {
		t.Error("a bad time was accepted")
	}
}

func TestReadRequestCutsAnOversizedBody(t *testing.T) {
	body := bytes.Repeat([]byte("a"), MaxPayload+10)
	req := httptest.NewRequest("POST", "/api/hooks/claude", bytes.NewReader(body))
	got, err := ReadRequest(req, "claude", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Truncated != int64(len(body)) || len(got.Payload) != MaxPayload {
		t.Errorf("truncated %d, payload %d bytes", got.Truncated, len(got.Payload))
	}
}

// fakeServer records itself in dir's server.json and answers every report
// with status.
func fakeServer(t *testing.T, dir string, status int, delay time.Duration) chan *http.Request {
	t.Helper()
	got := make(chan *http.Request, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		got <- r
		time.Sleep(delay)
		w.WriteHeader(status)
		fmt.Fprintln(w, `{"error":"test"}`)
	}))
	t.Cleanup(srv.Close)
	if err := serverfile.Write(dir, serverfile.Info{PID: os.Getpid(), URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if _, err := Token(dir); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestDeliverPostsWithTheTokenAndTheHookTime(t *testing.T) {
	dir := t.TempDir()
	reqs := fakeServer(t, dir, http.StatusAccepted, 0)
	out, err := Deliver(context.Background(), dir, report(7))
	if out != Posted || err != nil {
		t.Fatalf("Deliver = %s, %v", out, err)
	}
	r := <-reqs
	tok, _ := ReadToken(dir)
	if r.URL.Path != "/api/hooks/claude" || r.Header.Get(HeaderToken) != tok || r.Header.Get(HeaderEvent) != "PreToolUse" ||
		r.Header.Get(HeaderReceived) != report(7).Received.Format(time.RFC3339Nano) {
		t.Errorf("request %s %v", r.URL, r.Header)
	}
	if Pending(dir) {
		t.Error("a posted report was spooled too")
	}
}

func TestDeliverSpoolsWhatNoServerTakes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		delay  time.Duration
		want   Outcome
	}{
		{"no server", 0, 0, Spooled},
		{"server busy", http.StatusServiceUnavailable, 0, Spooled},
		{"token out of step", http.StatusForbidden, 0, Spooled},
		{"server too slow", http.StatusAccepted, time.Second, Spooled},
		{"bad report", http.StatusBadRequest, 0, Refused},
		{"unknown client", http.StatusNotFound, 0, Refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.status != 0 {
				fakeServer(t, dir, tc.status, tc.delay)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			out, err := Deliver(ctx, dir, report(1))
			if out != tc.want || err == nil {
				t.Fatalf("Deliver = %s, %v; want %s with a reason", out, err, tc.want)
			}
			if d := time.Since(start); d > 600*time.Millisecond {
				t.Errorf("Deliver took %s", d)
			}
			if got, _ := drainAll(t, dir); (len(got) == 1) != (tc.want == Spooled) {
				t.Errorf("spool holds %d reports", len(got))
			}
		})
	}
}

func TestDeliverLeavesNoDeskWhereThereIsNone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nodesk")
	out, err := Deliver(context.Background(), dir, report(1))
	if out != Dropped || err == nil {
		t.Fatalf("Deliver = %s, %v", out, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("Deliver created a data folder")
	}
}
