package web_test

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkCodeView measures the Code view in the repo's headless Chromium
// on a repository of 300 landings made through the HTTP API:
//
//   - LandingToLog: from just before POST land (this process's clock) to
//     the page drawing the landing at the top of the log (the page's
//     clock, when a MutationObserver saw it), with the log open;
//   - OpenLog: from the address of the log set in the page to its 50
//     newest landings drawn, coming from a change's page (the page's
//     clock).
//
// Run it with
//
//	go test ./web -run '^$' -bench BenchmarkCodeView -benchtime 30x
func BenchmarkCodeView(b *testing.B) {
	c := startCodeSample(b)
	files := map[string]string{"README.md": "# Ember Isles\n"}
	head := c.send(b, "owner", files, "the first flow", nil, "")
	c.land(b, head)
	for i := 1; i < 300; i++ {
		files[fmt.Sprintf("src/f%03d.go", i%40)] = fmt.Sprintf("package src\n\n// %d\n", i)
		head = c.send(b, "owner", files, fmt.Sprintf("change %d", i), []string{c.Check}, "", head)
		c.land(b, head)
	}
	p := openPage(b, c.Desk, "/#/~code/acme/game")
	p.waitFor("the log", `document.querySelectorAll('.code-entry').length === 50`)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)

	b.Run("LandingToLog", func(b *testing.B) {
		eval[bool](p, `(() => {
			window.benchLanded = new Map();
			new MutationObserver(() => {
				const t = performance.timeOrigin + performance.now();
				const top = document.querySelector('.code-entry');
				if (top && !window.benchLanded.has(top.dataset.change)) window.benchLanded.set(top.dataset.change, t);
			}).observe(document.getElementById('code-pane'), { childList: true, subtree: true });
			return true;
		})()`)
		var ms []float64
		for i := 0; i < b.N; i++ {
			files["src/live.go"] = fmt.Sprintf("package src\n\n// live %d\n", i)
			id := c.send(b, "owner", files, fmt.Sprintf("live %d", i), nil, "", head)
			start := time.Now()
			c.land(b, id)
			head = id
			p.waitFor("the landing", `window.benchLanded.has('`+id.String()+`')`)
			at := eval[float64](p, `window.benchLanded.get('`+id.String()+`')`)
			ms = append(ms, at-float64(start.UnixNano())/1e6)
		}
		report(b, ms)
	})

	b.Run("OpenLog", func(b *testing.B) {
		var ms []float64
		for i := 0; i < b.N; i++ {
			p.do(navigate(c.URL + "/#/~code/acme/game/change/" + head.String()))
			p.waitFor("the change", `!!document.querySelector('.code-change-card[data-change="`+head.String()+`"]')`)
			d := eval[float64](p, `new Promise((resolve) => {
				const t0 = performance.now();
				const pane = document.getElementById('code-pane');
				const done = () => document.querySelectorAll('.code-log .code-entry').length === 50;
				const seen = new MutationObserver(() => {
					if (done()) {
						seen.disconnect();
						resolve(performance.now() - t0);
					}
				});
				seen.observe(pane, { childList: true, subtree: true });
				location.hash = '#/~code/acme/game';
			})`)
			ms = append(ms, d)
		}
		report(b, ms)
	})
}
