package session_test

// The whole-system figures of the sessions (docs/performance.md, section
// "Managed sessions"): each benchmark runs the real binaries (desk serve,
// desk hold, bash, tmux beside it) and reports its figures as metrics.
// Run them with
//
//	go test -run '^$' -bench . -benchtime 1x ./session/
//
// (each collects its own samples; -benchtime 1x runs each once).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// percentile returns the p-th percentile of samples (sorted in place).
func percentile(samples []time.Duration, p float64) time.Duration {
	slices.Sort(samples)
	i := int(float64(len(samples)-1) * p)
	return samples[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rawViewer is a WebSocket viewer that keeps nothing but the bytes.
type rawViewer struct {
	ws *websocket.Conn
}

func (s *server) rawAttach(tb testing.TB, id, query string) (*rawViewer, []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, s.wsURL(id, query), nil)
	if err != nil {
		tb.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	v := &rawViewer{ws: ws}
	snapshot := false
	for {
		typ, b, err := ws.Read(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		if typ == websocket.MessageText {
			snapshot = snapshot || strings.Contains(string(b), `"snapshot"`)
			continue
		}
		if snapshot {
			return v, b
		}
	}
}

// until reads output until it contains want, and returns how many bytes
// came (want included).
func (v *rawViewer) until(want []byte, sum io.Writer) (int, error) {
	n := 0
	var tail []byte
	for {
		typ, b, err := v.ws.Read(context.Background())
		if err != nil {
			return n, err
		}
		if typ != websocket.MessageBinary {
			continue
		}
		n += len(b)
		if sum != nil {
			sum.Write(b)
		}
		tail = append(tail, b...)
		if bytes.Contains(tail, want) {
			return n, nil
		}
		if len(tail) > len(want) {
			tail = tail[len(tail)-len(want):]
		}
	}
}

func (v *rawViewer) close() { v.ws.Close(websocket.StatusNormalClosure, "") }

// tmuxControl is a tmux server with a control-mode client attached: the
// same shape as a desk session with a viewer.
type tmuxControl struct {
	cmd   *exec.Cmd
	in    io.Writer
	lines chan string
	sock  string
}

func startTmux(tb testing.TB, cols, rows int, command string) *tmuxControl {
	tb.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		tb.Fatal("tmux is needed for the comparison: apt-get install tmux")
	}
	sock := filepath.Join(tb.TempDir(), "tmux.sock")
	cmd := exec.Command(bin, "-S", sock, "-f", "/dev/null", "-C", "new-session", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), command)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tc := &tmuxControl{cmd: cmd, in: in, lines: make(chan string, 1<<16), sock: sock}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			tc.lines <- sc.Text()
		}
		close(tc.lines)
	}()
	tb.Cleanup(func() {
		exec.Command(bin, "-S", sock, "kill-server").Run()
		cmd.Wait()
	})
	return tc
}

// untilOutput reads control-mode lines until a %output line contains want.
func (tc *tmuxControl) untilOutput(want string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-tc.lines:
			if !ok {
				return false
			}
			if strings.HasPrefix(l, "%output") && strings.Contains(l, want) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func (tc *tmuxControl) send(command string) { io.WriteString(tc.in, command+"\n") }

// Keystroke to echo through the WebSocket with cat in a bash session,
// and tmux's own round trip in the same run: a key sent by a control-mode
// client to its %output.
func BenchmarkKeystrokeEcho(b *testing.B) {
	const keys = 500
	w := newWorld(b)
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	v, _ := srv.rawAttach(b, s.ID, "")
	defer v.close()
	v.ws.Write(context.Background(), websocket.MessageBinary, []byte("cat\r"))
	v.until([]byte("cat\r\n"), nil)
	time.Sleep(200 * time.Millisecond)
	desk := make([]time.Duration, 0, keys)
	for i := range keys {
		k := []byte{byte('a' + i%26)}
		t0 := time.Now()
		v.ws.Write(context.Background(), websocket.MessageBinary, k)
		if _, err := v.until(k, nil); err != nil {
			b.Fatal(err)
		}
		desk = append(desk, time.Since(t0))
	}
	tc := startTmux(b, 80, 24, "cat")
	time.Sleep(300 * time.Millisecond)
	tmux := make([]time.Duration, 0, keys)
	for i := range keys {
		k := string(rune('a' + i%26))
		t0 := time.Now()
		tc.send("send-keys -l " + k)
		if !tc.untilOutput(k, 5*time.Second) {
			b.Fatal("tmux did not echo")
		}
		tmux = append(tmux, time.Since(t0))
	}
	b.ReportMetric(ms(percentile(desk, 0.5)), "desk-p50-ms")
	b.ReportMetric(ms(percentile(desk, 0.99)), "desk-p99-ms")
	b.ReportMetric(ms(percentile(tmux, 0.5)), "tmux-p50-ms")
	b.ReportMetric(ms(percentile(tmux, 0.99)), "tmux-p99-ms")
}

// Attaching to a full 200×50 screen with colours: from the WebSocket's
// opening request to the whole replay received.
func BenchmarkAttachFullScreen(b *testing.B) {
	const attaches = 200
	w := newWorld(b)
	srv := w.serve()
	script := `i=0; while [ $i -lt 50 ]; do printf '\033[3%d;4%dm%s\033[0m' $((i%8)) $(((i+3)%8)) "$(printf 'row %02d ' $i; head -c 193 /dev/zero | tr '\0' x)"; [ $i -lt 49 ] && printf '\n'; i=$((i+1)); done; sleep 3600`
	cmd, _ := json.Marshal([]string{"sh", "-c", script})
	s := srv.launch(`{"kind": "custom", "cwd": "` + w.data + `", "cols": 200, "rows": 50, "command": ` + string(cmd) + `}`)
	srv.waitScreen(s.ID, "row 49", 10*time.Second)
	samples := make([]time.Duration, 0, attaches)
	var size int
	for range attaches {
		t0 := time.Now()
		v, snap := srv.rawAttach(b, s.ID, "")
		samples = append(samples, time.Since(t0))
		size = len(snap)
		v.close()
	}
	b.ReportMetric(ms(percentile(samples, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(samples, 0.95)), "p95-ms")
	b.ReportMetric(float64(size), "snapshot-bytes")
}

// bigFile writes size bytes of lines, plain or coloured.
func bigFile(tb testing.TB, size int, coloured bool) string {
	path := filepath.Join(tb.TempDir(), "big.txt")
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		if coloured {
			fmt.Fprintf(&buf, "\x1b[3%dm%09d\x1b[0m a build log line, step %d of the benchmark's many\n", i%8, i, i%101)
		} else {
			fmt.Fprintf(&buf, "%09d a build log line, step %d of the benchmark's many, plain\n", i, i%101)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// throughput times cat of a file through a desk session to a WebSocket
// viewer, and through tmux to a control-mode client, in the same run.
func throughput(b *testing.B, size int, coloured bool) {
	w := newWorld(b)
	file := bigFile(b, size, coloured)
	srv := w.serve()
	script := "read x; cat " + file + "; echo END-$((40+2)); sleep 3600"
	cmd, _ := json.Marshal([]string{"sh", "-c", script})
	s := srv.launch(`{"kind": "custom", "cwd": "` + w.data + `", "cols": 200, "rows": 50, "command": ` + string(cmd) + `}`)
	v, _ := srv.rawAttach(b, s.ID, "")
	defer v.close()
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	v.ws.Write(context.Background(), websocket.MessageBinary, []byte("\r"))
	n, err := v.until([]byte("END-42"), nil)
	if err != nil {
		b.Fatal(err)
	}
	deskTime := time.Since(t0)
	// The screen model is current: the holder parses every chunk before
	// it forwards it.
	if got := srv.screenText(s.ID); !strings.Contains(got, "END-42") {
		b.Fatalf("the screen model is behind:\n%s", got)
	}
	tc := startTmux(b, 200, 50, "sh -c '"+script+"'")
	time.Sleep(300 * time.Millisecond)
	t1 := time.Now()
	tc.send("send-keys Enter")
	if !tc.untilOutput("END-42", 5*time.Minute) {
		b.Fatal("tmux never showed the end")
	}
	tmuxTime := time.Since(t1)
	b.ReportMetric(float64(size)/deskTime.Seconds()/1e6, "desk-MB/s")
	b.ReportMetric(float64(size)/tmuxTime.Seconds()/1e6, "tmux-MB/s")
	b.ReportMetric(float64(n)/1e6, "desk-MB-delivered")
}

// 50 MB of plain lines (cat of a log) through one session.
func BenchmarkThroughputPlain50MB(b *testing.B) { throughput(b, 50<<20, false) }

// 50 MB of coloured lines, every line's colours ending in a reset (as
// compilers, test runners and ls print them).
func BenchmarkThroughputColoured50MB(b *testing.B) { throughput(b, 50<<20, true) }

// Twenty sessions streaming at once, each to its own viewer: every byte
// is delivered once and in order (the viewer's checksum is the output's).
func BenchmarkTwentySessions(b *testing.B) {
	const sessions, lines = 20, 100000
	w := newWorld(b)
	srv := w.serve()
	gate := filepath.Join(b.TempDir(), "go")
	script := fmt.Sprintf("while [ ! -e %s ]; do sleep 0.01; done; seq 1 %d; echo END-$((40+2)); sleep 3600", gate, lines)
	cmd, _ := json.Marshal([]string{"sh", "-c", script})
	var want bytes.Buffer
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&want, "%d\r\n", i)
	}
	want.WriteString("END-42")
	wantSum := sha256.Sum256(want.Bytes())
	type result struct {
		sum [32]byte
		err error
	}
	results := make(chan result, sessions)
	var viewers []*rawViewer
	for range sessions {
		s := srv.launch(`{"kind": "custom", "cwd": "` + w.data + `", "command": ` + string(cmd) + `}`)
		v, _ := srv.rawAttach(b, s.ID, "")
		viewers = append(viewers, v)
	}
	var wg sync.WaitGroup
	t0 := time.Now()
	for _, v := range viewers {
		wg.Add(1)
		go func(v *rawViewer) {
			defer wg.Done()
			h := sha256.New()
			var got bytes.Buffer
			_, err := v.until([]byte("END-42"), io.MultiWriter(h, &got))
			var r result
			r.err = err
			// The stream may carry bytes past the marker (the prompt of
			// nothing, here none); compare what came up to it.
			r.sum = sha256.Sum256(got.Bytes()[:min(got.Len(), want.Len())])
			results <- r
			v.close()
		}(v)
	}
	os.WriteFile(gate, nil, 0o644)
	wg.Wait()
	elapsed := time.Since(t0)
	close(results)
	ok := 0
	for r := range results {
		if r.err == nil && r.sum == wantSum {
			ok++
		}
	}
	if ok != sessions {
		b.Fatalf("%d of %d viewers got every byte once and in order", ok, sessions)
	}
	b.ReportMetric(float64(sessions*want.Len())/elapsed.Seconds()/1e6, "total-MB/s")
	b.ReportMetric(float64(ok), "exact-streams")
}

// memory reads a process's memory from /proc/PID/smaps_rollup: its
// resident set, its proportional share (pages shared with other
// processes count by their share), the part no other process maps, and
// the anonymous part (its heap and stacks), in MB.
func memory(tb testing.TB, pid int) (rss, pss, private, anon float64) {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "Rss:":
			rss = kb / 1024
		case "Pss:":
			pss = kb / 1024
		case "Private_Clean:", "Private_Dirty:":
			private += kb / 1024
		case "Anonymous:":
			anon = kb / 1024
		}
	}
	return
}

func reportMemory(b *testing.B, prefix string, pid int) {
	rss, pss, private, anon := memory(b, pid)
	b.ReportMetric(rss, prefix+"rss-MB")
	b.ReportMetric(pss, prefix+"pss-MB")
	b.ReportMetric(private, prefix+"private-MB")
	b.ReportMetric(anon, prefix+"anon-MB")
}

// The floor under every desk process: the binary started and waiting,
// having done nothing but its start (desk hold before its spec arrives).
func BenchmarkDeskFloorMemory(b *testing.B) {
	floor := exec.Command(deskBin, "hold", "s-floor")
	stdin, _ := floor.StdinPipe() // never written: it waits for its spec
	defer stdin.Close()
	if err := floor.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { floor.Process.Kill(); floor.Wait() }()
	time.Sleep(time.Second)
	reportMemory(b, "", floor.Process.Pid)
}

// A holder's own memory, idle and with 5,000 lines of history, once it
// has been idle long enough to give back what its start and the burst
// touched (trimIdle).
func BenchmarkHolderMemory(b *testing.B) {
	const settle = 9 * time.Second // past two of the holder's idle checks (trimIdle, 2 s) after the last output
	w := newWorld(b)
	id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data))
	waitCLI(b, w, id, "@", 10*time.Second)
	hp := holderPID(b, w.data, id)
	time.Sleep(settle)
	reportMemory(b, "idle-", hp)
	w.must("type", id, "seq 1 6000", "--enter")
	waitCLI(b, w, id, "6000", 20*time.Second)
	time.Sleep(settle)
	reportMemory(b, "5000-lines-", hp)
}

// desk run bash to a live prompt on desk screen, and the floor beside it:
// one desk process start (desk version).
func BenchmarkRunBashToPrompt(b *testing.B) {
	const runs = 30
	w := newWorld(b)
	w.setenv("PS1", "ready$ ")
	rc := filepath.Join(b.TempDir(), "rc")
	os.WriteFile(rc, []byte("PS1='ready$ '\n"), 0o644)
	samples := make([]time.Duration, 0, runs)
	starts := make([]time.Duration, 0, runs)
	for range runs {
		t0 := time.Now()
		id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data, "--", "--rcfile", rc))
		for {
			out, _, _ := w.desk("screen", id)
			if strings.Contains(out, "ready$") {
				break
			}
			if time.Since(t0) > 10*time.Second {
				b.Fatalf("no prompt:\n%s", out)
			}
		}
		samples = append(samples, time.Since(t0))
		w.desk("stop-session", "--kill", id)
		t1 := time.Now()
		exec.Command(deskBin, "version").Run()
		starts = append(starts, time.Since(t1))
	}
	b.ReportMetric(ms(percentile(samples, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(samples, 0.95)), "p95-ms")
	b.ReportMetric(ms(percentile(starts, 0.5)), "desk-start-p50-ms")
}
