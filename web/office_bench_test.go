package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"desk/office"
)

// BenchmarkOffice measures the office view in the repo's headless
// Chromium, with 30 Claude Code sessions reported through the hooks:
//
//		go test ./web -run '^$' -bench BenchmarkOffice -benchtime 1x
//		go test ./web -run '^$' -bench 'BenchmarkOffice/HookToRoster' -benchtime 300x
//
//	  - Frames: 30 characters walking and typing at once (every 1.5 s half
//	    of them are given other seats through the seat API), each frame's
//	    work (moving everyone on and drawing) timed in the page, over 10 s a
//	    run, at the zoom that fits the office (1×) and at 3× (FramesZoom3);
//	  - Idle: 30 agents waiting for their owner, seated: frames drawn in
//	    5 s; IdleHidden: 30 typing agents in a minimised window, the same;
//	  - HookToRoster: from a hook's report (taken before the POST) to the
//	    page seeing its character's roster item in the new state, this
//	    process's wall clock against the page's, one hook every 100 ms;
//	  - FirstPaint: from the navigation to the first frame with every
//	    character on screen, after a reload (FirstPaint) and with the
//	    browser's cache emptied (FirstPaintEmptyCache).
func BenchmarkOffice(b *testing.B) {
	d := startOfficeDesk(b, 0)
	d.putLayout(benchLayout())
	const agents = 30
	ids := make([]string, agents)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-%02d", i)
		d.start(ids[i], "/work/mygame", "Edit", map[string]any{"file_path": "/work/mygame/file" + strconv.Itoa(i) + ".go"})
	}
	p := openPage(b, d.Desk, "/#/~office", pageOptions{width: 1400, height: 900})
	p.waitFor("every character at work", `document.querySelectorAll('#office-roster > li[data-pose="type"]').length === 30`)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)

	frames := func(b *testing.B) {
		var work, gaps, walkers, typers []float64
		drawn := 0.0
		seconds := 0.0
		for i := 0; i < b.N; i++ {
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				// Half of the agents get up every 1.5 s, each going between
				// the seat behind its desk and the one in front of the next
				// desk: a walk of a second or two, then typing again.
				across := make([]bool, agents)
				for round := 0; ; round++ {
					for k := round % 2; k < agents; k += 2 {
						across[k] = !across[k]
						seat := k
						if across[k] {
							seat = 36 + (k+1)%36
						}
						choose(b, d.URL, ids[k], seatName(seat))
					}
					select {
					case <-stop:
						return
					case <-time.After(1500 * time.Millisecond):
					}
				}
			}()
			time.Sleep(500 * time.Millisecond)
			eval[bool](p, `(() => { const s = document.getElementById('office-canvas').officeStats; s.work.length = 0; s.gaps.length = 0; window.benchFrames = s.frames; return true; })()`)
			start := time.Now()
			for time.Since(start) < 10*time.Second {
				time.Sleep(500 * time.Millisecond)
				n := eval[[]float64](p, `[document.querySelectorAll('#office-roster > li[data-pose="walk"]').length, document.querySelectorAll('#office-roster > li[data-pose="type"]').length]`)
				walkers, typers = append(walkers, n[0]), append(typers, n[1])
			}
			r := eval[[][]float64](p, `(() => { const s = document.getElementById('office-canvas').officeStats; return [s.work.slice(), s.gaps.slice(), [s.frames - window.benchFrames]]; })()`)
			seconds += time.Since(start).Seconds()
			close(stop)
			<-done
			work, gaps = append(work, r[0]...), append(gaps, r[1]...)
			drawn += r[2][0]
		}
		b.ReportMetric(percentile(work, 50), "ms-p50")
		b.ReportMetric(percentile(work, 95), "ms-p95")
		b.ReportMetric(percentile(work, 99), "ms-p99")
		b.ReportMetric(percentile(gaps, 95), "gap-ms-p95")
		b.ReportMetric(drawn/seconds, "frames/s")
		b.ReportMetric(mean(walkers), "walking")
		b.ReportMetric(mean(typers), "typing")
		b.Logf("%d frames; frame work p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms; between frames p50 %.1f ms, p95 %.1f ms; %.1f walking and %.1f typing on average",
			len(work), percentile(work, 50), percentile(work, 95), percentile(work, 99), percentile(work, 100), percentile(gaps, 50), percentile(gaps, 95), mean(walkers), mean(typers))
	}
	b.Run("Frames", frames)
	// The same, zoomed in to 3×, where each sprite costs nine times the pixels.
	b.Run("FramesZoom3", func(b *testing.B) {
		p.do(chromedp.Focus(chromedp.ID("office-stage")))
		for eval[float64](p, `+document.getElementById('office-canvas').dataset.zoom`) < 3 {
			p.key("+")
		}
		frames(b)
		p.key("0")
	})

	// Everyone back to the office's own seats, then waiting for the owner.
	for _, id := range ids {
		choose(b, d.URL, id, "")
	}
	setStates := func(waiting bool) {
		for i, id := range ids {
			if !waiting {
				d.as(id, "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/work/mygame/x.go"}})
				continue
			}
			if i%2 == 0 {
				d.as(id, "/work/mygame", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
			} else {
				d.as(id, "/work/mygame", "Notification", map[string]any{"notification_type": "idle_prompt", "message": "waiting"})
			}
		}
	}

	b.Run("Idle", func(b *testing.B) {
		setStates(true)
		p.waitForWithin("everyone seated and waiting", `[...document.querySelectorAll('#office-roster > li')].every((li) => li.dataset.pose === 'sit' && li.dataset.bubble !== '')`, 20*time.Second)
		var drawn []float64
		for i := 0; i < b.N; i++ {
			time.Sleep(time.Second) // the last steps settle
			before := eval[float64](p, `document.getElementById('office-canvas').officeStats.frames`)
			time.Sleep(5 * time.Second)
			drawn = append(drawn, eval[float64](p, `document.getElementById('office-canvas').officeStats.frames`)-before)
		}
		b.ReportMetric(mean(drawn), "frames/5s")
		b.Logf("frames drawn in 5 s with nothing moving: %v", drawn)
	})

	b.Run("IdleHidden", func(b *testing.B) {
		setStates(false)
		p.waitFor("everyone typing", `document.querySelectorAll('#office-roster > li[data-pose="type"]').length === 30`)
		shown := measureFrames(b, p, 2*time.Second)
		// The window minimised: the page is hidden.
		minimize(b, p.ctx, true)
		p.waitFor("the office hidden", `document.visibilityState === 'hidden'`)
		var drawn []float64
		for i := 0; i < b.N; i++ {
			time.Sleep(500 * time.Millisecond)
			drawn = append(drawn, measureFrames(b, p, 5*time.Second))
		}
		minimize(b, p.ctx, false)
		p.waitFor("the office shown again", `document.visibilityState === 'visible'`)
		b.ReportMetric(mean(drawn), "frames/5s")
		b.Logf("30 typing agents: %.0f frames in 2 s shown, %v in 5 s hidden", shown, drawn)
	})

	waiting := map[string]bool{} // the sessions HookToRoster left needing permission
	b.Run("HookToRoster", func(b *testing.B) {
		eval[bool](p, `(() => {
			if (window.benchSeen) {
				window.benchSeen.length = 0;
				window.benchHeard.length = 0;
				return true;
			}
			window.benchSeen = [];
			// The page's own ear on the live stream, beside the shared one
			// the desk uses: when the browser had the change in hand.
			window.benchHeard = [];
			new EventSource('/api/events').addEventListener('change', (e) => {
				const t = performance.timeOrigin + performance.now();
				for (const c of JSON.parse(e.data).changes || []) if (c.type === 'agent') window.benchHeard.push([c.actor, t]);
			});
			new MutationObserver((list) => {
				const t = performance.timeOrigin + performance.now();
				for (const m of list) if (m.attributeName === 'data-state') window.benchSeen.push([m.target.dataset.session, m.target.dataset.state, t]);
			}).observe(document.getElementById('office-roster'), { attributes: true, subtree: true, attributeFilter: ['data-state'] });
			return true;
		})()`)
		type sent struct {
			id, state string
			at        float64
		}
		// The server's side, heard as any client of the live stream hears
		// it: when each session's change reached the stream.
		streamed := followStream(b, d.URL)
		var hooks []sent
		for i := 0; i < b.N; i++ {
			id := ids[i%agents]
			state := "needs_permission"
			at := float64(time.Now().UnixNano()) / 1e6
			if !waiting[id] {
				d.as(id, "/work/mygame", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
			} else {
				state = "working"
				d.as(id, "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/work/mygame/y.go"}})
			}
			waiting[id] = !waiting[id]
			hooks = append(hooks, sent{id, state, at})
			time.Sleep(100 * time.Millisecond)
		}
		p.waitForWithin("every change seen", fmt.Sprintf(`window.benchSeen.length >= %d`, len(hooks)), 10*time.Second)
		var seen [][]any
		raw := eval[json.RawMessage](p, `window.benchSeen`)
		if err := json.Unmarshal(raw, &seen); err != nil {
			b.Fatal(err)
		}
		var heard [][]any
		if err := json.Unmarshal(eval[json.RawMessage](p, `window.benchHeard`), &heard); err != nil {
			b.Fatal(err)
		}
		var ms, server, browser []float64
		for _, h := range hooks {
			for _, e := range heard {
				if e[0] == h.id && e[1].(float64) >= h.at {
					browser = append(browser, e[1].(float64)-h.at)
					break
				}
			}
			for _, s := range seen {
				if s[0] == h.id && s[1] == h.state && s[2].(float64) >= h.at {
					ms = append(ms, s[2].(float64)-h.at)
					break
				}
			}
			if at, ok := streamed.first(h.id, h.at); ok {
				server = append(server, at-h.at)
			}
		}
		if len(ms) != len(hooks) {
			b.Fatalf("%d of %d changes reached the roster: sent %+v, seen %v", len(ms), len(hooks), hooks, seen)
		}
		b.ReportMetric(percentile(ms, 50), "ms-p50")
		b.ReportMetric(percentile(ms, 95), "ms-p95")
		b.ReportMetric(percentile(ms, 99), "ms-p99")
		b.Logf("%d hooks: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms", len(ms), percentile(ms, 50), percentile(ms, 95), percentile(ms, 99), percentile(ms, 100))
		b.Logf("of which the server's part, hook to the live stream: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%d heard)", percentile(server, 50), percentile(server, 95), percentile(server, 99), percentile(server, 100), len(server))
		b.Logf("and to the page's own EventSource: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%d heard)", percentile(browser, 50), percentile(browser, 95), percentile(browser, 99), percentile(browser, 100), len(browser))
		b.ReportMetric(percentile(server, 99), "stream-ms-p99")
		b.ReportMetric(percentile(browser, 99), "page-stream-ms-p99")
	})

	for _, c := range []struct {
		name  string
		empty bool
	}{{"FirstPaint", false}, {"FirstPaintEmptyCache", true}} {
		b.Run(c.name, func(b *testing.B) {
			var ms []float64
			var phases [][]float64
			for i := 0; i < b.N*5; i++ {
				if c.empty {
					if _, err := chromedp.Call(p.ctx, network.ClearBrowserCache, cdp.Empty{}); err != nil {
						b.Fatal(err)
					}
				}
				p.do(reload())
				p.waitFor("the first office frame", `performance.getEntriesByName('office:first-paint').length > 0`)
				if n := eval[int](p, `document.querySelectorAll('#office-roster > li').length`); n != agents {
					b.Fatalf("%d characters at the first paint", n)
				}
				ms = append(ms, eval[float64](p, `performance.getEntriesByName('office:first-paint')[0].startTime`))
				phases = append(phases, eval[[]float64](p, `(() => {
					const end = (part) => (performance.getEntriesByType('resource').find((e) => e.name.includes(part)) || { responseEnd: -1 }).responseEnd;
					const mark = (name) => (performance.getEntriesByName(name)[0] || { startTime: -1 }).startTime;
					return [performance.getEntriesByType('navigation')[0].responseEnd, mark('desk:start'), end('office/office-view.js'), end('office/art.js'), end('/api/office/layout'), end('/api/agents'), end('css/office.css'), mark('office:layout'), mark('office:shown')];
				})()`))
			}
			report(b, ms)
			col := func(k int) []float64 { return column(phases, k) }
			b.Logf("medians (ms after navigation): page %.0f, first modules ran %.0f, office-view.js in %.0f, art.js in %.0f, layout in %.0f, agents in %.0f, office.css in %.0f, office built %.0f, shown %.0f, first frame painted %.0f",
				median(col(0)), median(col(1)), median(col(2)), median(col(3)), median(col(4)), median(col(5)), median(col(6)), median(col(7)), median(col(8)), median(ms))
		})
	}
}

// stream is what a live-stream client heard: when each session's agent
// change arrived, by the wall clock in ms.
type stream struct {
	mu sync.Mutex
	at map[string][]float64
}

// followStream reads the server's live stream until the benchmark ends.
func followStream(b *testing.B, url string) *stream {
	s := &stream{at: map[string][]float64{}}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/api/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !bytes.HasPrefix(line, []byte("data: ")) {
				continue
			}
			now := float64(time.Now().UnixNano()) / 1e6
			var ev struct {
				Changes []struct {
					Type, Actor string
				}
			}
			if json.Unmarshal(line[6:], &ev) != nil {
				continue
			}
			s.mu.Lock()
			for _, c := range ev.Changes {
				if c.Type == "agent" {
					s.at[c.Actor] = append(s.at[c.Actor], now)
				}
			}
			s.mu.Unlock()
		}
	}()
	return s
}

// first is when the stream first carried a change of session id after t.
func (s *stream) first(id string, t float64) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.at[id] {
		if at >= t {
			return at, true
		}
	}
	return 0, false
}

// measureFrames counts the frames the office draws in d.
func measureFrames(b testing.TB, p *page, d time.Duration) float64 {
	b.Helper()
	before := eval[float64](p, `document.getElementById('office-canvas').officeStats.frames`)
	time.Sleep(d)
	return eval[float64](p, `document.getElementById('office-canvas').officeStats.frames`) - before
}

// choose seats a session through the seat API ("" lets the office choose).
func choose(b testing.TB, url, session, seat string) {
	body, _ := json.Marshal(map[string]string{"session": session, "seat": seat})
	req, _ := http.NewRequestWithContext(context.Background(), "PUT", url+"/api/office/seats", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		b.Errorf("PUT /api/office/seats %s %s: %s", session, seat, res.Status)
	}
}

// seatName is the uid of benchLayout's seat n: 0 to 35 behind the desks,
// 36 to 71 in front of them.
func seatName(n int) string {
	if n < 36 {
		return "chair-" + strconv.Itoa(5+5*n)
	}
	return "chair-" + strconv.Itoa(6+5*(n-36))
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// benchLayout is an office of 40×26 tiles with 72 seats: three rows of
// twelve desks, each seating two and holding two computers (see
// seatName for the chairs' uids).
func benchLayout() *office.Layout {
	const cols, rows = 40, 26
	l := &office.Layout{Version: office.Version, Cols: cols, Rows: rows, Tiles: make([]int, cols*rows), Colors: make([]string, cols*rows), Areas: []office.Area{}}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t := office.FloorFirst
			if r == 0 || c == 0 || r == rows-1 || c == cols-1 {
				t = office.Wall
			}
			l.Tiles[r*cols+c] = t
		}
	}
	n := 0
	add := func(typ string, c, r, rot int) {
		n++
		l.Furniture = append(l.Furniture, office.Item{UID: typ + "-" + strconv.Itoa(n), Type: typ, Col: c, Row: r, Rot: rot})
	}
	add("door", 20, 0, 0)
	for _, r := range []int{4, 12, 20} {
		for c := 2; c+1 < cols-1; c += 3 {
			add("desk", c, r, 0)
			add("computer", c, r, 2)
			add("computer", c+1, r, 0)
			add("chair", c, r-1, 0)
			add("chair", c+1, r+1, 2)
		}
	}
	return l
}
