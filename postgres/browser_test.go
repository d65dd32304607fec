package postgres_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts a headless Chromium with a profile of its own (no
// cookies) and returns a tab; it ends with the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		p, err := exec.LookPath("chromium")
		if err != nil {
			t.Fatal("no Chromium found: install Debian's chromium package, or set CHROMIUM")
		}
		exe = p
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.Flag("headless", "new"),
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelTime)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// tab drives one browser tab.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func (b tab) navigate(url string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
}

// wait polls a JavaScript condition for up to limit; a page that
// navigates meanwhile (a sign-in does) is asked again once it has.
func (b tab) wait(what, js string, limit time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+js+`)`))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname + " | " + document.body.innerText.slice(0, 400)`))
			b.t.Fatalf("waited %v for %s (%v):\n%s", limit, what, err, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b tab) eval(js string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %q: %v", js, err)
	}
	return v
}

// type fills an input the way a person does and submits its form with a
// click on its button.
func (b tab) signIn(token string) {
	b.t.Helper()
	b.wait("the sign-in panel", `!!document.querySelector('#token-input') && !document.querySelector('#token').hidden`, 10*time.Second)
	if err := chromedp.Do(b.ctx, chromedp.Focus(chromedp.CSS("#token-input")), chromedp.SendKeys(chromedp.CSS("#token-input"), token),
		chromedp.Click(chromedp.CSS("#token-form button[type=submit]"), chromedp.NodeVisible)); err != nil {
		b.t.Fatalf("sign in: %v", err)
	}
}

func (b tab) click(css string) {
	b.t.Helper()
	b.wait(css, `!!document.querySelector('`+css+`') && document.querySelector('`+css+`').offsetParent !== null`, 10*time.Second)
	if err := chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible)); err != nil {
		b.t.Fatalf("click %s: %v", css, err)
	}
}

// The team server's page loads without a token and asks its person to
// sign in: with a token pasted into the panel, or with a code another
// signed-in person approves (the device login); either way the desk then
// opens and works, and the token sits in a cookie script cannot read.
func TestTeamPageSignIn(t *testing.T) {
	a := startReplica(t, newSchema(t), nil, "")
	if code, body, _ := a.call(t, a.admin, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}); code != 201 {
		t.Fatalf("project: %d %s", code, body)
	}
	ready := `document.body?.dataset.ready === 'true'`

	t.Run("PasteAToken", func(t *testing.T) {
		b := tab{t, browser(t)}
		b.navigate(a.url + "/#/mygame")
		b.signIn("desk_not-a-token")
		b.wait("the refusal", `document.querySelector('#token-status').classList.contains('error')`, 10*time.Second)
		b.eval(`(document.querySelector('#token-input').value = '', '')`)
		b.signIn(a.admin)
		b.wait("the desk to open", ready, 20*time.Second)
		if c := b.eval(`document.cookie`); strings.Contains(c, "desk_") {
			t.Errorf("script can read the token: %q", c)
		}
	})

	t.Run("DeviceLogin", func(t *testing.T) {
		b := tab{t, browser(t)}
		b.navigate(a.url + "/")
		b.click("#device-start")
		b.wait("a code", `/^[A-Z]{4}-[A-Z]{4}$/.test(document.querySelector('#device-user-code').textContent)`, 10*time.Second)
		code := b.eval(`document.querySelector('#device-user-code').textContent`)
		// The admin, signed in on another browser, approves it on /device.
		admin := tab{t, browser(t)}
		admin.navigate(a.url + "/signin")
		admin.signIn(a.admin)
		admin.wait("the desk to open", ready, 20*time.Second)
		admin.navigate(a.url + "/device?user_code=" + code)
		admin.click("#approve-button")
		admin.wait("the approval", `document.querySelector('#approve-status').classList.contains('ok')`, 10*time.Second)
		// The page polls every 5 s.
		b.wait("the page to sign in with the approved code", ready, 30*time.Second)
	})
}
