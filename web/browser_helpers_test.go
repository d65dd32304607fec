package web_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"desk/internal/testdesk"
)

// chromiumPath finds the browser the tests drive: Debian's chromium
// package, or CHROMIUM when set. Without one the browser tests fail:
// scripts/test.sh installs it where it is missing.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Fatal("no Chromium found: scripts/test.sh installs Debian's chromium package where it is missing " +
		"(apt-get install -y chromium), or set CHROMIUM to a Chromium or Chrome")
	return ""
}

// page is one browser tab on a running desk. It records every console
// error, uncaught exception and CSP violation; the test fails on any.
type page struct {
	tb   testing.TB
	ctx  context.Context
	desk *testdesk.Desk

	mu       sync.Mutex
	problems []string
	allowed  []string
}

// allowConsole accepts console errors that mention s: the browser's own
// log line for a 404 the test asks for on purpose.
func (p *page) allowConsole(s string) {
	p.mu.Lock()
	p.allowed = append(p.allowed, s)
	p.mu.Unlock()
}

type pageOptions struct {
	width, height int
	// beforeLoad runs in every document before the page's own scripts.
	beforeLoad string
}

// openPage starts a headless Chromium, opens a tab on d and navigates to
// path (e.g. "/#/mygame").
func openPage(tb testing.TB, d *testdesk.Desk, path string, opts ...pageOptions) *page {
	tb.Helper()
	o := pageOptions{width: 1400, height: 900}
	if len(opts) > 0 {
		o = opts[0]
	}
	exe := chromiumPath(tb)
	allocOpts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(o.width, o.height),
		chromedp.Flag("headless", "new"),
		chromedp.DisableGPU,
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	ctx, cancel := chromedp.NewContext(actx)
	tb.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	p := &page{tb: tb, ctx: ctx, desk: d}
	// Start the browser before the first navigation.
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("start chromium: %v", err)
	}
	p.listen()
	if o.beforeLoad != "" {
		p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: o.beforeLoad})
			return err
		}))
	}
	// The page gets exactly the asked size, whatever the window adds around it.
	p.do(chromedp.EmulateViewport(int64(o.width), int64(o.height)), chromedp.Navigate(d.URL+path))
	p.waitReady()
	return p
}

// waitReady waits until every part of the page has loaded: the keys, the
// live connection and the issue view come after the first rows.
func (p *page) waitReady() {
	p.tb.Helper()
	p.waitFor("the page to be ready", `document.body?.dataset.ready === 'true'`)
}

// newTab opens another tab of the same browser on path.
func (p *page) newTab(path string) *page {
	p.tb.Helper()
	ctx, cancel := chromedp.NewContext(p.ctx)
	p.tb.Cleanup(cancel)
	q := &page{tb: p.tb, ctx: ctx, desk: p.desk}
	if err := chromedp.Do(ctx); err != nil {
		p.tb.Fatalf("open a tab: %v", err)
	}
	q.listen()
	q.do(chromedp.EmulateViewport(1400, 900), chromedp.Navigate(p.desk.URL+path))
	q.waitReady()
	return q
}

// listen records every console error, uncaught exception and CSP
// violation of the tab, and fails the test on them when it ends.
func (p *page) listen() {
	messages := chromedp.Console(p.ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				p.mu.Lock()
				p.problems = append(p.problems, fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line))
				p.mu.Unlock()
			}
		}
	}()
	p.tb.Cleanup(p.checkConsole)
}

// checkConsole fails the test for anything the page reported as an error.
func (p *page) checkConsole() {
	p.mu.Lock()
	defer p.mu.Unlock()
next:
	for _, msg := range p.problems {
		for _, ok := range p.allowed {
			if strings.Contains(msg, ok) {
				continue next
			}
		}
		p.tb.Errorf("browser console: %s", msg)
	}
}

// do runs actions, failing the test on an error.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.tb.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) and decodes its value.
func eval[T any](p *page, js string) T {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.tb.Fatalf("evaluate %q: %v", short(js), err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is true.
func (p *page) waitFor(what, js string) {
	p.tb.Helper()
	p.waitForWithin(what, js, 10*time.Second)
}

func (p *page) waitForWithin(what, js string, limit time.Duration) {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, limit)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(10*time.Millisecond)))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			p.tb.Fatalf("waited %v for %s: %s", limit, what, p.describe())
		}
		p.tb.Fatalf("wait for %s: %v", what, err)
	}
}

// describe tells what the page shows, for a failure message.
func (p *page) describe() string {
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + " | " + document.body.innerText.slice(0, 600)`))
	if err != nil {
		return "(page not readable: " + err.Error() + ")"
	}
	return strings.ReplaceAll(text, "\n", " / ")
}

// click clicks the first element that matches a CSS selector, with a real
// mouse click at its centre. The element is first scrolled to the middle of
// its pane, so that the composer, which sticks to the bottom of the open
// issue, does not cover it.
func (p *page) click(css string) {
	p.tb.Helper()
	p.waitFor(css, `!!document.querySelector(`+jsString(css)+`)`)
	eval[bool](p, `(document.querySelector(`+jsString(css)+`).scrollIntoView({ block: 'center' }), true)`)
	p.do(chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible))
}

// key sends one key press to the focused element (or the page).
func (p *page) key(k string) {
	p.tb.Helper()
	p.do(chromedp.KeyEvent(k))
}

// typeInto focuses an input and types text into it.
func (p *page) typeInto(css, text string) {
	p.tb.Helper()
	p.do(chromedp.Focus(chromedp.CSS(css)), chromedp.SendKeys(chromedp.CSS(css), text))
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			if r < 0x20 || r == 0x2028 || r == 0x2029 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Keys that have no printable character.
const (
	kbRight = kb.ArrowRight
	kbHome  = kb.Home
)

// focusList puts the keyboard focus on the list, where the desk's keys act.
func focusList() chromedp.Action[chromedp.Void] {
	return chromedp.Focus(chromedp.ID("list-scroller"))
}

func focusSplitter() chromedp.Action[chromedp.Void] {
	return chromedp.Focus(chromedp.ID("splitter"))
}

// navigate moves the page to a URL of the same desk. A change of the hash
// alone is a same-document navigation, which the page handles itself.
func navigate(url string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(location.href = `+jsString(url)+`, true)`)(ctx, t)
		return err
	})
}

func reload() chromedp.Action[chromedp.Void] {
	return chromedp.Reload()
}

// ctrlEnter presses Ctrl+Enter, which saves an editor or sends a comment.
func ctrlEnter() chromedp.Action[chromedp.Void] {
	return chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl))
}
