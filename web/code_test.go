package web_test

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"desk"
	"desk/code"
	"desk/code/folderstore"
	deskhttp "desk/http"
	"desk/identity"
	"desk/internal/testdesk"
	"desk/sqlite"
)

var updateCodeScreenshot = flag.Bool("update-code-screenshot", false, "write the Code view's picture to docs/code-view.png")

// codeSample is a desk serving code: the sample project linked to the
// repository acme/game, and the owner's token, with which the test lands
// changes through the HTTP API as a thin client does.
type codeSample struct {
	*testdesk.Desk
	sample
	client *deskhttp.CodeClient
	// agents are the clients of two agents that may write, each from its own work folder.
	agents map[string]*deskhttp.CodeClient
}

func startCodeSample(t testing.TB) *codeSample {
	t.Helper()
	var svc *code.Service
	var ids *identity.Service
	d := testdesk.StartWith(t, t.TempDir(), func(db *sqlite.DB) deskhttp.Options {
		svc = code.NewService(db.Code(), folderstore.New(filepath.Join(db.Dir(), "code")))
		ids = identity.New(db.Identities())
		return deskhttp.Options{Code: svc, Identities: ids}
	})
	s := seedSample(t, d.DB)
	ctx := context.Background()
	token, err := ids.EnsureOwner(ctx, d.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateRepo(ctx, "acme/game", s.Slug); err != nil {
		t.Fatal(err)
	}
	c := &codeSample{Desk: d, sample: s, client: deskhttp.NewCodeClient(d.URL, "acme/game", token), agents: map[string]*deskhttp.CodeClient{}}
	for _, name := range []string{"agent-lava", "agent-docs"} {
		_, tok, err := ids.Add(ctx, name, identity.Agent)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ids.Grant(ctx, name, "acme/game", identity.Write); err != nil {
			t.Fatal(err)
		}
		c.agents[name] = deskhttp.NewCodeClient(d.URL, "acme/game", tok)
	}
	return c
}

// send builds a change of files on parents by author (the owner or one of
// the agents), uploads the objects the server lacks, and indexes it from a
// work folder (none when workspace is empty), as desk change does.
func (c *codeSample) send(t testing.TB, author string, files map[string]string, message string, intents []string, workspace string, parents ...code.ID) code.ID {
	t.Helper()
	ctx := context.Background()
	client := c.client
	if author != "owner" {
		client = c.agents[author]
	}
	var objs []code.Object
	var list []code.File
	for p, data := range files {
		b := code.NewObject(code.Blob, []byte(data))
		objs = append(objs, b)
		list = append(list, code.File{Path: p, Mode: code.ModeFile, ID: b.ID})
	}
	root, trees, err := code.BuildTree(list)
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, trees...)
	cb, err := code.EncodeChange(code.ChangeObject{Tree: root, Parents: parents, Author: author, Time: time.Now(), Message: message, Intents: intents})
	if err != nil {
		t.Fatal(err)
	}
	ch := code.NewObject(code.Change, cb)
	objs = append(objs, ch)
	var refs []code.Ref
	for _, o := range objs {
		refs = append(refs, o.Ref())
	}
	missing, err := client.Missing(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	lacks := map[code.Ref]bool{}
	for _, m := range missing {
		lacks[m] = true
	}
	var up []code.Object
	for _, o := range objs {
		if lacks[o.Ref()] {
			up = append(up, o)
		}
	}
	if _, err := client.PostObjects(ctx, up); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Index(ctx, ch.ID, workspace); err != nil {
		t.Fatal(err)
	}
	return ch.ID
}

func (c *codeSample) land(t testing.TB, id code.ID) {
	t.Helper()
	if res, err := c.client.Land(context.Background(), id); err != nil || res.Result != "landed" {
		t.Fatalf("land %s = %+v, %v", id.Short(), res, err)
	}
}

// The Code view of a repository, on a desk whose changes landed through
// the HTTP API: the log with the intents linked to their issues, the
// files, a file's blame, a change's diff, two open changes on one file as
// an amber card, and a new landing at the top of the log without a
// reload. The issue lists its landing, and the project page shows the
// repository and the overlap.
func TestTheCodeViewShowsTheLogFilesBlameDiffAndOverlaps(t *testing.T) {
	c := startCodeSample(t)
	base := c.send(t, "owner", map[string]string{"src/lava.go": "package lava\n\nfunc Tip() {}\n", "README.md": "# Ember Isles\n"}, "lava: the first flow", nil, "")
	c.land(t, base)
	fix := c.send(t, "owner", map[string]string{"src/lava.go": "package lava\n\n// Tip rounds the end of a flow.\nfunc Tip() { round() }\n", "README.md": "# Ember Isles\n"},
		"lava: round the tips\n\nA half-disc cap.", []string{c.Check}, "", base)
	c.land(t, fix)
	// Two work folders change the same file and have not landed.
	one := c.send(t, "agent-lava", map[string]string{"src/lava.go": "package lava\n// one\n", "README.md": "# Ember Isles\n"}, "lava: one cap", nil, "ws-one", fix)
	two := c.send(t, "agent-docs", map[string]string{"src/lava.go": "package lava\n// two\n", "README.md": "# Ember Isles\n"}, "lava: say why", []string{c.Report}, "ws-two", fix)

	// The project page shows its repository, the overlap, and the way in.
	p := openPage(t, c.Desk, "/#/mygame")
	p.waitFor("the project's code", `!!document.querySelector('.code-strip:not([hidden]) .code-strip-repo[data-repo="acme/game"] .overlap-card')`)
	strip := eval[string](p, `document.querySelector('.code-strip').innerText`)
	for _, want := range []string{"acme/game", fix.Short(), "2 landings", "src/lava.go", one.Short(), two.Short()} {
		if !strings.Contains(strip, want) {
			t.Errorf("the project page's code lacks %q:\n%s", want, strip)
		}
	}
	p.waitFor("the nav's Code link", `document.querySelector('#views-nav a[href="#/~code/acme/game"]')?.textContent === 'Code'`)
	p.click(`#views-nav a[href="#/~code/acme/game"]`)
	p.waitFor("the log", `document.querySelectorAll('.code-entry').length === 2`)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	top := `document.querySelector('.code-entry')`
	if got := eval[string](p, top+`.dataset.change`); got != fix.String() {
		t.Fatalf("the newest landing shows %s, want %s", got, fix)
	}
	if got := eval[string](p, top+`.querySelector('.code-msg').textContent`); got != "lava: round the tips" {
		t.Errorf("the landing's message shows as %q", got)
	}
	if got := eval[string](p, top+`.querySelector('a.intent').getAttribute('href')`); got != "#/mygame/"+c.Check {
		t.Errorf("the intent links to %q", got)
	}
	// The overlap, as an amber card naming the file and both open changes.
	card := eval[string](p, `document.querySelector('.code-overlaps .overlap-card')?.innerText || ''`)
	for _, want := range []string{"agent-lava and agent-docs both change src/lava.go", one.Short(), two.Short(), c.Report} {
		if !strings.Contains(card, want) {
			t.Errorf("the overlap card lacks %q:\n%s", want, card)
		}
	}

	codeScreenshot(t, p)

	// The change and its diff against its parent.
	p.click(`.code-entry[data-change="` + fix.String() + `"] a.code-change`)
	p.waitFor("the change", `!!document.querySelector('.code-change-card[data-change="`+fix.String()+`"]') && !!document.querySelector('.diff-file')`)
	if got := eval[string](p, `[...document.querySelectorAll('.diff-file')].map((f) => f.dataset.path).join(',')`); got != "src/lava.go" {
		t.Errorf("the diff names the files %q, want the one that changed", got)
	}
	if got := eval[string](p, `[...document.querySelectorAll('.diff-file tr.add .src')].map((e) => e.textContent).join('|')`); got != "+// Tip rounds the end of a flow.|+func Tip() { round() }" {
		t.Errorf("the added lines show as %q", got)
	}
	if got := eval[string](p, `[...document.querySelectorAll('.diff-file tr.del .src')].map((e) => e.textContent).join('|')`); got != "-func Tip() {}" {
		t.Errorf("the removed lines show as %q", got)
	}
	if got := eval[string](p, `document.querySelector('.code-change-card').innerText`); !strings.Contains(got, "A half-disc cap.") || !strings.Contains(got, base.Short()) {
		t.Errorf("the change's card lacks its message's body or its parent:\n%s", got)
	}

	// The first change shows its files, having no parent to compare with.
	p.click(`.code-change-card a.code-change[href$="` + base.String() + `"]`)
	p.waitFor("the first change", `!!document.querySelector('.code-change-card[data-change="`+base.String()+`"]') && [...document.querySelectorAll('.code-folder a')].map((a) => a.textContent).join(',') === 'src/,README.md'`)

	// The files at main, a file, and its blame.
	p.click(`.code-tabs a[href$="/files/main"]`)
	p.waitFor("the root folder", `[...document.querySelectorAll('.code-folder a')].map((a) => a.textContent).join(',') === 'src/,README.md'`)
	p.click(`.code-folder a[href$="/files/main/src"]`)
	p.waitFor("the folder src", `location.hash === '#/~code/acme/game/files/main/src' && [...document.querySelectorAll('.code-folder a')].some((a) => a.textContent === 'lava.go')`)
	p.click(`.code-folder a[href$="/src/lava.go"]`)
	p.waitFor("the file", `document.querySelector('.code-text .src')?.textContent === 'package lava\n\n// Tip rounds the end of a flow.\nfunc Tip() { round() }'`)
	if got := eval[string](p, `document.querySelector('.code-text .ln').textContent`); got != "1\n2\n3\n4" {
		t.Errorf("the line numbers are %q", got)
	}
	// The file's history: the landings that changed it.
	p.click(`.code-file-actions a[href$="/history/src/lava.go"]`)
	p.waitFor("the file's history", `[...document.querySelectorAll('.code-entry')].map((e) => e.dataset.change).join(',') === '`+fix.String()+","+base.String()+`'`)
	p.click(`.code-crumbs a[href$="/files/main/src/lava.go"]`)
	p.waitFor("the file again", `!!document.querySelector('.code-text .src')`)
	p.click(`.code-file-head a[href*="/blame/main/src/lava.go"]`)
	p.waitFor("the blame", `document.querySelectorAll('.code-blame tr').length > 0`)
	got := eval[string](p, `[...document.querySelectorAll('.code-blame tr')].map((r) => r.dataset.change.slice(0, 12) + ':' + r.querySelector('.ln').textContent.replace(/\n/g, ' ')).join(',')`)
	if want := base.Short() + ":1 2," + fix.Short() + ":3 4"; got != want {
		t.Errorf("the blame's runs are %q, want %q", got, want)
	}

	// A search of the files: plain text, each line found linked to its file.
	p.typeInto(`.code-search`, "round(")
	p.key("\r")
	p.waitFor("the search", `location.hash === '#/~code/acme/game/search/main/round(' && document.querySelectorAll('.code-matches li').length === 1`)
	if got := eval[string](p, `document.querySelector('.code-matches li').textContent`); got != "src/lava.go:4 func Tip() { round() }" {
		t.Errorf("the search found %q", got)
	}

	// Live: a landing made elsewhere shows at the top of the log, no reload.
	p.click(`.code-tabs a[href="#/~code/acme/game"]`)
	p.waitFor("the log again", `location.hash === '#/~code/acme/game' && document.querySelectorAll('.code-entry').length === 2`)
	eval[bool](p, `(window.sameDocument = true)`)
	start := time.Now()
	c.land(t, one)
	p.waitFor("the new landing", `document.querySelector('.code-entry')?.dataset.change === '`+one.String()+`' && document.querySelectorAll('.code-entry').length === 3`)
	t.Logf("the landing showed %v after it landed", time.Since(start).Round(time.Millisecond))
	if !eval[bool](p, `window.sameDocument === true`) {
		t.Fatal("the page reloaded to show the landing")
	}
	// Its open change is gone, and so is the overlap.
	p.waitFor("the overlap gone", `document.querySelectorAll('.overlap-card').length === 0`)

	// A page opened on the Code view itself links the intents too.
	direct := p.newTab("/#/~code/acme/game")
	direct.waitFor("the intent's link on a page opened on the log", `document.querySelector('.code-entry[data-change="`+fix.String()+`"] a.intent')?.getAttribute('href') === '#/mygame/`+c.Check+`'`)

	// The issue the change was for lists its landing, linked back, and a
	// plan step that carries the change as its commit links to it.
	if _, err := c.DB.SetPlan(context.Background(), c.Check, []desk.Step{{Text: "round the tips", State: desk.StepDone, Commit: fix.String()}, {Text: "elsewhere", Commit: "abc1234"}}, nil, "agent-lava"); err != nil {
		t.Fatal(err)
	}
	p.click(`.code-entry[data-change="` + fix.String() + `"] a.intent`)
	p.waitDetail(c.Check)
	p.waitFor("the issue's landings", `!!document.querySelector('.landings')`)
	landed := eval[string](p, `document.querySelector('.landings').innerText`)
	for _, want := range []string{fix.Short(), "lava: round the tips", "acme/game #2"} {
		if !strings.Contains(landed, want) {
			t.Errorf("the issue's landings lack %q:\n%s", want, landed)
		}
	}
	if got := eval[string](p, `document.querySelector('.landings a.code-change').getAttribute('href')`); got != "#/~code/acme/game/change/"+fix.String() {
		t.Errorf("the landing links to %q", got)
	}
	if got := eval[string](p, `document.querySelector('.steps li:nth-child(1) a.step-commit')?.getAttribute('href') || ''`); got != "#/~code/acme/game/change/"+fix.String() {
		t.Errorf("the step's commit links to %q, want its change", got)
	}
	if n := eval[int](p, `document.querySelectorAll('.steps li:nth-child(2) a.step-commit').length`); n != 0 {
		t.Error("a commit that is no landing of the issue is a link")
	}
	if got := eval[string](p, `[...document.querySelectorAll('.timeline .entry-line')].map((e) => e.textContent.replace(/\s+/g, ' ')).find((t) => t.includes('landed')) || ''`); !strings.Contains(got, "landed "+fix.Short()+" on acme/game main: lava: round the tips") {
		t.Errorf("the timeline's landing reads %q", got)
	}
}

// codeScreenshot checks that the Code view renders to a picture of the
// page's size; with -update-code-screenshot it writes it for docs/code.md:
//
//	go test ./web -run TestTheCodeViewShowsTheLogFilesBlameDiffAndOverlaps -update-code-screenshot
func codeScreenshot(t *testing.T, p *page) {
	t.Helper()
	eval[bool](p, `(() => { document.activeElement?.blur(); return true; })()`)
	shot, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 900 {
		t.Errorf("the screenshot is %v", b)
	}
	if *updateCodeScreenshot {
		if err := os.WriteFile(filepath.Join("..", "docs", "code-view.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
