package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"desk"
	deskhttp "desk/http"
	"desk/internal/deskbin"
	"desk/internal/testdesk"
)

// The browser tests drive a real headless Chromium against a real desk
// (SQLite in a temp folder, the HTTP server on a free port) and fail on any
// JavaScript error or Content Security Policy violation in the console.

func startSample(t *testing.T) (*testdesk.Desk, sample) {
	t.Helper()
	d := testdesk.Start(t)
	return d, seedSample(t, d.DB)
}

// rowsShown waits until the list shows the issue's row.
func (p *page) waitRow(id string) {
	p.tb.Helper()
	p.waitFor("row "+id, `!!document.querySelector('[data-id="`+id+`"]')`)
}

func (p *page) waitDetail(id string) {
	p.tb.Helper()
	p.waitFor("detail of "+id, `!!document.querySelector('article.detail[data-issue="`+id+`"]:not([aria-busy])')`)
}

func issue(t *testing.T, d *testdesk.Desk, id string) *desk.IssueDetail {
	t.Helper()
	is, err := d.DB.Issue(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return is
}

// screenshotPNG is a small real PNG, as a pasted screenshot would be.
func screenshotPNG(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 24, 16))
	for x := 0; x < 24; x++ {
		for y := 0; y < 16; y++ {
			img.Set(x, y, color.RGBA{uint8(x * 10), 80, uint8(y * 15), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// pasteImage dispatches a real paste event carrying a PNG file, as Ctrl+V
// with a screenshot on the clipboard does.
func (p *page) pasteImage(target, b64 string) {
	p.tb.Helper()
	eval[bool](p, `(() => {
		const bytes = Uint8Array.from(atob(`+jsString(b64)+`), (c) => c.charCodeAt(0));
		const dt = new DataTransfer();
		dt.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
		const ev = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
		document.querySelector(`+jsString(target)+`).dispatchEvent(ev);
		return ev.defaultPrevented;
	})()`)
}

func TestDeskOpensOnFirstProjectAndQuickAddFilesAnIssue(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/")
	p.waitFor("the first project's list", `location.hash === "#/mygame"`)
	p.waitRow(s.Check)
	p.waitFor("the project switcher", `document.querySelector('.project-button')?.textContent.includes('Ember Isles')`)
	if got := eval[string](p, `document.getElementById('live-state').textContent`); got == "" {
		t.Error("no live state in the footer")
	}
	p.waitFor("the live footer", `document.getElementById('live-state').textContent === "● live"`)

	p.typeInto("#quick-add", "Torch flickers in the cave !p1 @deep_caves +task #lighting")
	p.waitFor("the quick add hint", `document.getElementById('quick-add-hint').textContent.includes('area deep caves')`)
	p.key("\r")
	p.waitFor("the new row", `[...document.querySelectorAll('.row-title')].some((el) => el.textContent === 'Torch flickers in the cave')`)
	if v := eval[string](p, `document.getElementById('quick-add').value`); v != "" {
		t.Errorf("quick add kept %q after adding", v)
	}

	list, err := d.DB.Issues(context.Background(), "mygame", desk.IssueFilter{Q: "Torch flickers"})
	if err != nil || len(list.Issues) != 1 {
		t.Fatalf("store: %v, %d issues", err, len(list.Issues))
	}
	got := list.Issues[0]
	if got.Priority != "p1" || got.Area != "deep caves" || got.Kind != "task" || strings.Join(got.Tags, ",") != "lighting" || got.Source != "owner" {
		t.Errorf("quick add stored %+v", got)
	}

	// A screenshot pasted into quick add goes with the new issue.
	p.do(chromedp.Focus(chromedp.ID("quick-add")))
	p.pasteImage("#quick-add", screenshotPNG(t))
	p.waitFor("the screenshot in the hint", `document.getElementById('quick-add-hint').textContent.includes('1 screenshot')`)
	p.typeInto("#quick-add", "Water glitters through the wall")
	p.key("\r")
	p.waitFor("the second row", `[...document.querySelectorAll('.row-title')].some((el) => el.textContent === 'Water glitters through the wall')`)
	list, err = d.DB.Issues(context.Background(), "mygame", desk.IssueFilter{Q: "glitters"})
	if err != nil || len(list.Issues) != 1 || list.Issues[0].AttachmentCount != 1 {
		t.Fatalf("the pasted screenshot was not attached: %v %+v", err, list.Issues)
	}
}

func TestQuickAddRefusesAMarkerOnlyLineWithAMessage(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.typeInto("#quick-add", "!p0 +bug")
	p.key("\r")
	p.waitFor("the error", `document.getElementById('quick-add-hint').classList.contains('error')`)
	if got := eval[string](p, `document.getElementById('quick-add-hint').textContent`); !strings.Contains(got, "title") {
		t.Errorf("hint %q does not ask for a title", got)
	}
}

func TestOpenIssueShowsEveryPart(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.click(`[data-id="` + s.Check + `"] .row-title`)
	p.waitFor("the deep link", `location.hash === "#/mygame/`+s.Check+`"`)
	p.waitDetail(s.Check)
	text := eval[string](p, `document.querySelector('article.detail').textContent`)
	for _, want := range []string{
		"Lava tips are rounded now", "the east flow", "the ridge above", "/goto 1240 12 -380 yaw 90; /time 17:30",
		"Send to game", "Round the flow tips", "stage shot 12 from the ridge", "Part of", "Lava flows end in square blocks",
		"Handed over in", "nightly 42", "Copy path", "Timeline", "Passed", "Still broken",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	// The description is markdown; the issue reference links inside the project.
	if n := eval[int](p, `document.querySelectorAll('.description strong').length`); n != 1 {
		t.Errorf("bold in the description rendered %d times", n)
	}
	if href := eval[string](p, `document.querySelector('.description a.issue-ref').getAttribute('href')`); href != "#/mygame/"+s.Parent {
		t.Errorf("issue ref links to %q", href)
	}
	// The plan shows its progress.
	if v := eval[string](p, `document.querySelector('.plan progress').value + '/' + document.querySelector('.plan progress').max`); v != "3/3" {
		t.Errorf("plan progress %s", v)
	}
	// Open folder and Run appear only for a build on this machine.
	if n := eval[int](p, `[...document.querySelectorAll('.build-card button')].filter((b) => /Open folder|Run/.test(b.textContent)).length`); n != 0 {
		t.Errorf("build buttons for a path that is not on this machine: %d", n)
	}
	// Back leaves the issue; Forward opens it again.
	eval[bool](p, `(history.back(), true)`)
	p.waitFor("the list after Back", `location.hash === '#/mygame' && !document.querySelector('article.detail')`)
	eval[bool](p, `(history.forward(), true)`)
	p.waitDetail(s.Check)
}

func TestPassedAndStillBrokenWithAPastedScreenshot(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame/"+s.Check)
	p.waitDetail(s.Check)
	shot := screenshotPNG(t)

	// Still broken: a pasted screenshot and a note.
	p.pasteImage("#detail-pane", shot)
	p.waitFor("the pasted thumbnail", `document.querySelectorAll('.composer-file img').length === 1`)
	p.typeInto(".composer-text", "the east tip is still square")
	p.click(".composer .button.danger")
	p.waitFor("the verdict in the timeline", `!!document.querySelector('.entry.comment.verdict-failed')`)
	p.waitFor("the status select", `document.querySelector('.status-select').value === 'failed'`)
	is := issue(t, d, s.Check)
	if is.Status != "failed" {
		t.Errorf("status after Still broken: %s", is.Status)
	}
	last := is.Comments[len(is.Comments)-1]
	if last.Verdict == nil || *last.Verdict != "failed" || last.Text != "the east tip is still square" || len(last.Attachments) != 1 || !last.Attachments[0].IsImage {
		t.Errorf("stored comment %+v", last)
	}
	if n := eval[int](p, `document.querySelectorAll('.composer-file').length`); n != 0 {
		t.Errorf("composer kept %d files after sending", n)
	}

	// Passed, with a screenshot pasted while the list has the focus, by the p key.
	// The list settles in the server's order with the failed check in its new place.
	p.waitFor("the list in the server's order", `fetch('/api/projects/mygame/issues?status=to_check,auto_check,reported,failed,open,in_progress&summary=1')
		.then((r) => r.json())
		.then((l) => l.issues.map((i) => i.id).join() === [...document.querySelectorAll('#list-scroller [data-id]')].map((r) => r.dataset.id).join())`)
	order := eval[[]string](p, `[...document.querySelectorAll('#list-scroller [data-id]')].map((r) => r.dataset.id)`)
	p.do(focusList())
	p.pasteImage("#list-scroller", shot)
	p.waitFor("the pasted thumbnail", `document.querySelectorAll('.composer-file img').length === 1`)
	p.key("p")
	// After Passed the next item of the view opens.
	next := ""
	for i, id := range order {
		if id == s.Check && i+1 < len(order) {
			next = order[i+1]
		}
	}
	if next == "" {
		t.Fatalf("no item after %s in %v", s.Check, order)
	}
	p.waitDetail(next)
	if h := eval[string](p, `location.hash`); h != "#/mygame/"+next {
		t.Errorf("after Passed the page shows %s, want %s", h, next)
	}
	is = issue(t, d, s.Check)
	last = is.Comments[len(is.Comments)-1]
	if is.Status != "passed" || last.Verdict == nil || *last.Verdict != "passed" || len(last.Attachments) != 1 {
		t.Errorf("after Passed: status %s, comment %+v", is.Status, last)
	}
}

func TestSendToGameShowsWhoPickedItUp(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame/"+s.Check)
	p.waitDetail(s.Check)
	p.click(`.command:nth-child(2) .button.primary`)
	p.waitFor("waiting for the game", `document.querySelectorAll('.send-state')[1].textContent === 'Waiting for the game…'`)

	// The game polls, as its dev console does every two seconds.
	res, err := http.Get(d.URL + "/api/projects/mygame/commands/next?client=game")
	if err != nil {
		t.Fatal(err)
	}
	var cmd desk.Command
	json.NewDecoder(res.Body).Decode(&cmd)
	res.Body.Close()
	if res.StatusCode != 200 || cmd.Command != "/goto 1310 20 -402" || cmd.Issue == nil || *cmd.Issue != s.Check {
		t.Fatalf("the game got %d %+v", res.StatusCode, cmd)
	}
	p.waitFor("the pickup", `document.querySelectorAll('.send-state')[1].textContent.startsWith('Picked up by game at')`)
	if got := eval[string](p, `document.querySelectorAll('.send-state')[0].textContent`); got != "" {
		t.Errorf("the first command shows %q though only the second was sent", got)
	}

	// y copies the first command, s sends it.
	p.do(focusList())
	p.key("y")
	p.waitFor("the copy toast", `document.getElementById('toasts').textContent.includes('Copied: /goto 1240 12 -380 yaw 90; /time 17:30')`)
	p.key("s")
	p.waitFor("the first command waiting", `document.querySelectorAll('.send-state')[0].textContent === 'Waiting for the game…'`)
}

func TestHandoffEditSavesAVersionWithItsDiff(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.do(focusList())
	p.key("h")
	p.waitFor("the handoff", `location.hash === '#/mygame/~handoff' && !!document.querySelector('.handoff[data-version="1"]')`)
	if got := eval[string](p, `document.querySelector('.handoff').innerText`); !strings.Contains(got, "lava_mesh") || !strings.Contains(got, "Where work stopped") {
		t.Errorf("handoff shows %q", short(got))
	}
	p.click(".handoff-head .button")
	p.waitFor("the editor", `!!document.querySelector('.handoff-editor')`)
	eval[bool](p, `(() => { const a = document.querySelector('.handoff-editor'); a.value = a.value.replace('Steep slopes, then the harbor collider.', 'The harbor collider first.'); return true; })()`)
	p.typeInto(`.handoff.editing input[type="text"]`, "harbor first")
	p.click(".handoff.editing .button.primary")
	p.waitFor("version 2", `!!document.querySelector('.handoff[data-version="2"]')`)
	diff := eval[string](p, `document.querySelector('.diff').innerText`)
	if !strings.Contains(diff, "The harbor collider first.") || !strings.Contains(diff, "Steep slopes") {
		t.Errorf("diff %q", diff)
	}
	h, err := d.DB.Handoff(context.Background(), "mygame", 0)
	if err != nil || h.Version != 2 || h.Author != "owner" || h.Note != "harbor first" {
		t.Fatalf("stored handoff %+v, %v", h, err)
	}
	if n := eval[int](p, `document.querySelectorAll('.handoff-head select option').length`); n != 2 {
		t.Errorf("version picker has %d versions", n)
	}
	// The picker shows an older version, with who saved it.
	if got := eval[string](p, `document.querySelector('.handoff-head select option:last-child').textContent`); !strings.HasPrefix(got, "v1 · claude · ") {
		t.Errorf("the first version reads %q", got)
	}
	eval[bool](p, `(() => { const s = document.querySelector('.handoff-head select'); s.value = '1'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.waitFor("version 1", `!!document.querySelector('.handoff[data-version="1"]') && document.querySelector('.handoff').innerText.includes('Steep slopes, then the harbor collider.')`)
	eval[bool](p, `(() => { const s = document.querySelector('.handoff-head select'); s.value = '2'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.waitFor("version 2 again", `!!document.querySelector('.handoff[data-version="2"]')`)
	// An agent saves a section from another process; the open handoff follows.
	if _, err := d.DB.UpdateHandoffSection(context.Background(), "mygame", "Traps", "Never bake the lava at runtime.", "claude"); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the live version 3", `!!document.querySelector('.handoff[data-version="3"]') && document.querySelector('.handoff').innerText.includes('Never bake the lava')`)
}

func TestMergeTwoIssuesAndUnmerge(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Report)
	p.waitRow(s.Plain)
	p.click(`[data-id="` + s.Report + `"] .row-check`)
	p.click(`[data-id="` + s.Plain + `"] .row-check`)
	p.waitFor("the selection bar", `!document.querySelector('.selection-bar').hidden`)
	p.click(`.selection-bar .button`)
	p.waitFor("the merge dialog", `!!document.querySelector('dialog[open] input[name="target"]')`)
	// The oldest is the default target.
	if got := eval[string](p, `document.querySelector('dialog[open] input[name="target"]:checked').value`); got != s.Report {
		t.Errorf("default target %s, want the oldest %s", got, s.Report)
	}
	p.click(`dialog[open] button[type="submit"]`)
	p.waitDetail(s.Report)
	p.waitFor("merged into this", `document.querySelector('.merged-sources')?.innerText.includes('`+s.Plain+`')`)
	p.waitFor("the merged report card", `!!document.querySelector('.report-card')`)
	src := issue(t, d, s.Plain)
	if src.ID != s.Report || src.RedirectedFrom != s.Plain {
		t.Fatalf("%s after the merge: %s (redirected from %q)", s.Plain, src.ID, src.RedirectedFrom)
	}
	p.waitFor("the merged row gone", `!document.querySelector('[data-id="`+s.Plain+`"]')`)

	p.click(`.merged-sources .button`)
	p.waitFor("unmerged", `!document.querySelector('.merged-sources')`)
	if back := issue(t, d, s.Plain); back.ID != s.Plain || back.MergedInto != nil {
		t.Errorf("after Unmerge %s is %s, merged into %v", s.Plain, back.ID, back.MergedInto)
	}
}

func TestGroupUnderMakesParts(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Report)
	p.do(focusList())
	p.click(`[data-id="` + s.Report + `"] .row-check`)
	p.click(`[data-id="` + s.Plain + `"] .row-check`)
	p.click(`.selection-bar .button:nth-of-type(2)`)
	p.waitFor("the group dialog", `!!document.querySelector('dialog[open] input[name="parent"]')`)
	p.click(`dialog[open] button[type="submit"]`)
	p.waitFor("the child badge", `document.querySelector('[data-id="`+s.Plain+`"]')?.textContent.includes('part of `+s.Report+`')`)
	if got := issue(t, d, s.Plain); got.Parent == nil || *got.Parent != s.Report {
		t.Errorf("parent of %s: %v", s.Plain, got.Parent)
	}
}

func TestWritesFromAnotherProcessShowLive(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame/"+s.Report)
	p.waitDetail(s.Report)
	p.waitFor("the live stream", `document.getElementById('live-state').textContent === '● live'`)
	// One stream for every tab lives in the shared worker, not in the page.
	if n := eval[int](p, `performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/events')).length`); n != 0 {
		t.Errorf("the page opened %d event streams itself", n)
	}

	// The CLI, a separate process on the same data folder, edits one
	// issue and comments on the open one, as an agent would.
	cli := buildCLI(t)
	runCLI := func(args ...string) {
		t.Helper()
		out, err := exec.Command(cli, append([]string{"--data", d.DataDir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("desk %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	runCLI("edit", s.Plain, "--title", "Fog pops in at the cliff edge at dawn", "--author", "codex")
	p.waitFor("the new title in its row", `document.querySelector('[data-id="`+s.Plain+`"] .row-title')?.textContent === 'Fog pops in at the cliff edge at dawn'`)
	if !eval[bool](p, `document.querySelector('[data-id="`+s.Plain+`"]').classList.contains('fresh')`) {
		t.Error("the changed row is not highlighted")
	}

	runCLI("comment", s.Report, "--author", "claude", "--text", "Reproduced at the pier; the collider is flipped.")
	p.waitFor("the comment in the timeline", `[...document.querySelectorAll('.entry.comment')].some((e) => e.textContent.includes('the collider is flipped') && e.classList.contains('fresh'))`)
	p.waitFor("the comment count in the row", `document.querySelector('[data-id="`+s.Report+`"] .row-meta')?.textContent.includes('2')`)

	// A store write from another process (an MCP server would make it so).
	writeFromProcess(t, d.DataDir, "status", s.Report, "in_progress", "claude")
	p.waitFor("the status of the open issue", `document.querySelector('.status-select').value === 'in_progress'`)

	// A project setting changed by the CLI reaches the page too.
	runCLI("project-set", "--project", "mygame", "--name", "Ember Isles II")
	p.waitFor("the new project name", `document.querySelector('.project-button').textContent.includes('Ember Isles II')`)
}

// buildCLI builds the desk binary for a test that runs it as another process.
func buildCLI(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "desk")
	if err := deskbin.Build(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDeepLinksAndMergedIdsLeadToTheIssue(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame/"+strings.ToLower(s.Report))
	p.waitDetail(s.Report)
	if _, err := d.DB.Merge(context.Background(), s.Report, []string{s.Plain}, "owner"); err != nil {
		t.Fatal(err)
	}
	p.do(navigate(d.URL + "/#/mygame/" + s.Plain))
	p.waitDetail(s.Report)
	p.waitFor("the address of the target", `location.hash === '#/mygame/`+s.Report+`'`)
	if !strings.Contains(eval[string](p, `document.querySelector('.detail-header').innerText`), "was merged into") {
		t.Error("no note that the id was merged")
	}
	p.allowConsole("/api/issues/MG-999") // the browser logs the 404 of the lookup
	p.do(navigate(d.URL + "/#/mygame/MG-999"))
	p.waitFor("the missing issue", `document.getElementById('detail-pane').innerText.includes('There is no issue MG-999')`)
}

func TestALateResponseNeverReplacesTheChosenIssue(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.waitRow(s.Report)
	// Make the server's answer for the first issue arrive late.
	eval[bool](p, `(() => {
		const real = window.fetch;
		window.fetch = (url, init) => {
			const r = real(url, init);
			return String(url).endsWith('/api/issues/`+s.Check+`') ? r.then((res) => new Promise((ok) => setTimeout(() => ok(res), 600))) : r;
		};
		return true;
	})()`)
	p.click(`[data-id="` + s.Check + `"] .row-title`)
	p.click(`[data-id="` + s.Report + `"] .row-title`)
	p.waitDetail(s.Report)
	time.Sleep(900 * time.Millisecond)
	if got := eval[string](p, `document.querySelector('article.detail').dataset.issue + ' ' + location.hash`); got != s.Report+" #/mygame/"+s.Report {
		t.Errorf("after the late answer the page shows %s", got)
	}
}

func TestKeyboardDrivesTheDesk(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.do(focusList())

	p.key("j")
	first := eval[string](p, `document.querySelector('.row.cursor').dataset.id`)
	p.key("j")
	second := eval[string](p, `document.querySelector('.row.cursor').dataset.id`)
	if first == second {
		t.Errorf("j did not move the cursor (%s)", first)
	}
	if got := eval[string](p, `document.getElementById('list-scroller').getAttribute('aria-activedescendant')`); got != "row-"+second {
		t.Errorf("aria-activedescendant %q, want row-%s", got, second)
	}
	p.key("k")
	p.key("\r")
	p.waitDetail(first)
	// With an issue open, the open issue follows the cursor.
	p.key("j")
	p.waitDetail(second)
	p.key("\x1b")
	p.waitFor("the list without an issue", `location.hash === '#/mygame'`)

	p.key("x")
	p.waitFor("one selected", `document.querySelector('.selection-bar').innerText.includes('1 issue selected')`)
	p.key("\x1b")
	p.waitFor("selection cleared", `document.querySelector('.selection-bar').hidden`)

	p.key("1")
	p.waitFor("only To check", `[...document.querySelectorAll('.chip[aria-pressed="true"]')].map((c) => c.textContent).join() === 'To check1'`)
	p.waitFor("one row", `document.querySelectorAll('#list-scroller [data-id]').length === 1`)
	p.key("0")
	p.waitFor("every status", `document.querySelectorAll('.chip[aria-pressed="true"]').length === 9`)
	p.waitFor("every row", `document.querySelectorAll('#list-scroller [data-id]').length === 12`)

	p.key("b")
	p.waitFor("the backlog", `!!document.querySelector('.group-header')`)
	p.key("b")
	p.waitFor("triage again", `!document.querySelector('.group-header')`)

	theme := eval[string](p, `document.documentElement.dataset.theme`)
	p.key("t")
	if got := eval[string](p, `document.documentElement.dataset.theme`); got == theme {
		t.Errorf("t kept the theme %s", got)
	}

	p.key("?")
	p.waitFor("the help", `document.querySelector('dialog[open]')?.innerText.includes('Keyboard')`)
	help := eval[string](p, `document.querySelector('dialog[open]').innerText`)
	for _, want := range []string{"next issue", "passed", "still broken", "send the first location command", "copy the first", "edit the description", "merge the selection", "triage / backlog", "handoff", "new issue", "quick add", "search", "show one status", "every status", "refresh", "theme"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	p.key("\x1b")
	p.waitFor("help closed", `!document.querySelector('dialog[open]')`)

	p.key("/")
	p.waitFor("search focused", `document.activeElement.id === 'search'`)
	p.typeInto("#search", "harbor")
	p.waitFor("the search result", `document.querySelectorAll('#list-scroller [data-id]').length === 1 && !!document.querySelector('[data-id="`+s.Report+`"]')`)
	p.key("\x1b")
	p.waitFor("search cleared", `document.querySelectorAll('#list-scroller [data-id]').length === 12`)

	p.key("q")
	p.waitFor("quick add focused", `document.activeElement.id === 'quick-add'`)
	p.key("\x1b")
	p.key("n")
	p.waitFor("the new issue dialog", `document.querySelector('dialog[open]')?.innerText.includes('New issue')`)
	p.key("\x1b")
	p.waitFor("dialog closed", `!document.querySelector('dialog[open]')`)

	// e edits the description of the open issue; Ctrl+Enter saves.
	p.do(navigate(d.URL + "/#/mygame/" + s.Report))
	p.waitDetail(s.Report)
	p.do(focusList())
	p.key("e")
	p.waitFor("the description editor", `document.activeElement.classList.contains('body-editor')`)
	eval[bool](p, `(() => { document.activeElement.value = 'Left of the **pier**.'; return true; })()`)
	p.do(ctrlEnter())
	p.waitFor("the saved description", `document.querySelector('.description strong')?.textContent === 'pier'`)
	if got := issue(t, d, s.Report).Body; got != "Left of the **pier**." {
		t.Errorf("stored body %q", got)
	}

	// c focuses the composer; f with an empty composer asks what is broken.
	p.do(focusList())
	p.key("f")
	p.waitFor("the armed composer", `document.activeElement.classList.contains('composer-text') && document.querySelector('.composer').classList.contains('armed-failed')`)
}

func TestProjectSettingsSave(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.click(".project-button")
	p.click(`.menu .menu-item:last-child`)
	p.waitFor("the settings dialog", `!!document.querySelector('dialog[open] input[name="seed"]')`)
	eval[bool](p, `(() => {
		const f = document.querySelector('dialog[open] form');
		f.querySelector('input[name="seed"]').value = 'abc';
		return true;
	})()`)
	p.click(`dialog[open] button[type="submit"]`)
	p.waitFor("the seed error", `document.querySelector('dialog[open] .form-error').textContent.includes('whole number')`)
	eval[bool](p, `(() => {
		const f = document.querySelector('dialog[open] form');
		f.querySelector('input[name="name"]').value = 'Ember Isles Remastered';
		f.querySelector('input[name="seed"]').value = '1234';
		f.querySelector('input[name="notify-status"]').checked = false;
		f.querySelector('select[name="lead"]').value = 'codex';
		return true;
	})()`)
	p.click(`dialog[open] button[type="submit"]`)
	p.waitFor("the dialog closed", `!document.querySelector('dialog[open]')`)
	pr, err := d.DB.Project(context.Background(), "mygame")
	if err != nil {
		t.Fatal(err)
	}
	if pr.Name != "Ember Isles Remastered" || pr.DefaultSeed == nil || *pr.DefaultSeed != 1234 || pr.Notify.Status || !pr.Notify.Comments || pr.Lead == nil || *pr.Lead != "codex" {
		t.Errorf("stored settings %+v", pr.Project)
	}
	p.waitFor("the new name in the top bar", `document.querySelector('.project-button').textContent.includes('Remastered')`)
}

func TestNewProjectFromTheMenu(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.click(".project-button")
	p.click(`.menu .menu-item:nth-last-child(2)`)
	p.waitFor("the dialog", `!!document.querySelector('dialog[open] input[name="slug"]')`)
	p.typeInto(`dialog[open] input[name="name"]`, "Star Forge")
	p.waitFor("the suggested slug and prefix", `document.querySelector('dialog[open] input[name="slug"]').value === 'star-forge' && document.querySelector('dialog[open] input[name="prefix"]').value === 'ST'`)
	p.click(`dialog[open] button[type="submit"]`)
	p.waitFor("the new project", `location.hash === '#/star-forge'`)
	if _, err := d.DB.Project(context.Background(), "star-forge"); err != nil {
		t.Fatal(err)
	}
}

func TestMarkdownFromTheServerNeverBecomesMarkup(t *testing.T) {
	d, s := startSample(t)
	body := "<img src=x onerror=\"document.title='pwned'\"> <script>document.title='pwned'</script>\n\n[x](javascript:document.title='pwned') **fine**"
	if _, err := d.DB.UpdateIssue(context.Background(), s.Plain, desk.IssueFields{Body: &body, Title: ptr(`<b>bold</b> title`)}, "owner"); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, d, "/#/mygame/"+s.Plain)
	p.waitDetail(s.Plain)
	if n := eval[int](p, `document.querySelectorAll('.description img, .description script, .description a[href^="javascript"], .detail-title b, .row b').length`); n != 0 {
		t.Errorf("%d elements came from the issue's text", n)
	}
	if got := eval[string](p, `document.querySelector('.description').innerText`); !strings.Contains(got, "<script>") {
		t.Errorf("the escaped text is not shown: %q", got)
	}
	if got := eval[string](p, `document.title`); got == "pwned" {
		t.Error("script from the body ran")
	}
}

func TestThemeAndSplitterAreRemembered(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.do(focusSplitter())
	before := eval[string](p, `document.getElementById('splitter').getAttribute('aria-valuenow')`)
	p.key(kbRight)
	p.key(kbRight)
	after := eval[string](p, `document.getElementById('splitter').getAttribute('aria-valuenow')`)
	if after == before {
		t.Fatalf("ArrowRight kept the splitter at %s", before)
	}
	p.click("#theme-button")
	theme := eval[string](p, `document.documentElement.dataset.theme`)
	p.do(reload())
	p.waitRow(s.Check)
	// The panes have their remembered widths in the first frame with rows.
	if got := eval[string](p, `Math.round(document.getElementById('list-pane').getBoundingClientRect().width / document.getElementById('workspace').getBoundingClientRect().width * 100) + ''`); got != after {
		t.Errorf("list width after reload %s%%, want %s%%", got, after)
	}
	p.waitFor("the splitter", `document.getElementById('splitter').getAttribute('aria-valuetext') !== null`)
	if got := eval[string](p, `document.getElementById('splitter').getAttribute('aria-valuenow')`); got != after {
		t.Errorf("splitter after reload %s, want %s", got, after)
	}
	if got := eval[string](p, `document.documentElement.dataset.theme`); got != theme {
		t.Errorf("theme after reload %s, want %s", got, theme)
	}
	p.do(focusSplitter())
	p.key(kbHome)
	if got := eval[string](p, `document.getElementById('splitter').getAttribute('aria-valuenow')`); got != "42" {
		t.Errorf("Home put the splitter at %s", got)
	}
}

func TestPhoneShowsOnePaneAtATime(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame", pageOptions{width: 390, height: 844})
	p.waitRow(s.Check)
	if eval[bool](p, `getComputedStyle(document.getElementById('detail-pane')).display !== 'none'`) {
		t.Error("the detail pane shows next to the list on a phone")
	}
	p.click(`[data-id="` + s.Check + `"] .row-title`)
	p.waitDetail(s.Check)
	if !eval[bool](p, `getComputedStyle(document.getElementById('list-pane')).display === 'none'`) {
		t.Error("the list still shows under the open issue")
	}
	p.click(`.detail-actions .phone-only`)
	p.waitFor("the list again", `location.hash === '#/mygame' && getComputedStyle(document.getElementById('list-pane')).display !== 'none'`)
}

func TestLargeListRendersAWindowAndKeysReachEveryRow(t *testing.T) {
	d, _ := startSample(t)
	seedLarge(t, d.DB, "mygame", 600)
	p := openPage(t, d, "/#/mygame")
	p.waitFor("the first rows", `document.querySelectorAll('#list-scroller [data-id]').length > 5`)
	p.do(focusList())
	p.key("0")
	p.waitFor("every issue loaded", `document.querySelector('.list-footer').textContent.startsWith('612 of 612')`)
	// The project opened with a short first page; the rest was asked for
	// only once that page was painted, so that it did not hold the rows up.
	if got := eval[string](p, `(() => {
		const lists = performance.getEntriesByType('resource').filter((e) => e.name.includes('/issues?'));
		const painted = performance.getEntriesByName('desk:first-rows')[0];
		if (lists.length < 2 || !painted) return 'lists ' + lists.length + ', first rows mark ' + !!painted;
		return lists[1].startTime >= painted.startTime ? '' : 'the rest of the page was asked for at ' + lists[1].startTime + ' ms, the first rows painted at ' + painted.startTime;
	})()`); got != "" {
		t.Error(got)
	}
	if n := eval[int](p, `document.querySelectorAll('#list-scroller [data-id]').length`); n > 40 {
		t.Errorf("%d row nodes for 612 issues", n)
	}
	// k from no cursor goes to the last issue, far outside the window.
	p.key("k")
	last := eval[string](p, `document.querySelector('.row.cursor')?.dataset.id || ''`)
	if last == "" {
		t.Fatal("the last row was not revealed")
	}
	if pos := eval[string](p, `document.querySelector('.row.cursor').getAttribute('aria-posinset') + '/' + document.querySelector('.row.cursor').getAttribute('aria-setsize')`); pos != "612/612" {
		t.Errorf("cursor row at %s", pos)
	}
	p.key("x")
	p.key("k")
	p.key("x")
	p.waitFor("two selected", `document.querySelector('.selection-bar').innerText.includes('2 issues selected')`)

	// A live edit replaces only its own row. In number order the edit
	// does not move the row.
	eval[bool](p, `(() => { const s = document.querySelector('select[aria-label="Sort"]'); s.value = 'number'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.waitFor("number order", `[...document.querySelectorAll('#list-scroller [data-id]')].map((r) => +r.dataset.id.slice(3)).every((n, i, a) => i === 0 || a[i - 1] > n)`)
	const ids = `[...document.querySelectorAll('#list-scroller [data-id]')].map((r) => r.dataset.id)`
	visible := eval[[]string](p, ids)
	target := visible[len(visible)/2]
	eval[bool](p, `(() => {
		window.touched = new Set();
		new MutationObserver((records) => {
			for (const r of records) for (const n of [...r.addedNodes, ...r.removedNodes]) if (n.dataset?.id) window.touched.add(n.dataset.id);
		}).observe(document.querySelector('.window-host'), { childList: true });
		return true;
	})()`)
	writeFromProcess(t, d.DataDir, "title", target, "renamed while the owner looks")
	p.waitFor("the renamed row", `document.querySelector('[data-id="`+target+`"] .row-title')?.textContent === 'renamed while the owner looks'`)
	time.Sleep(200 * time.Millisecond)
	if got := eval[[]string](p, `[...window.touched]`); len(got) != 1 || got[0] != target {
		t.Errorf("a live edit of %s touched rows %v", target, got)
	}
	if got := eval[string](p, `document.querySelector('.selection-bar').innerText`); !strings.Contains(got, "2 issues selected") {
		t.Errorf("the selection after a live edit: %q", got)
	}

	// A scroll adds the rows that come into the window and removes those
	// that leave it; the rows that stay are not moved, since a moved node
	// is styled and laid out again.
	top := eval[[]string](p, ids)[0]
	eval[bool](p, `(document.getElementById('list-scroller').scrollTop = 300 * 64, true)`)
	p.waitFor("the middle of the list", ids+`[0] !== `+jsString(top))
	before := eval[[]string](p, ids)
	eval[bool](p, `(() => {
		window.touched = new Set();
		document.getElementById('list-scroller').scrollTop += 192;
		return true;
	})()`)
	p.waitFor("the window to move", ids+`[0] !== `+jsString(before[0]))
	p.waitFor("two more frames", `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))`)
	after := eval[[]string](p, ids)
	for _, id := range eval[[]string](p, `[...window.touched]`) {
		if slices.Contains(before, id) && slices.Contains(after, id) {
			t.Errorf("a scroll moved row %s, which stayed in the window", id)
		}
	}
}

// dropImage dispatches a real drop event carrying a PNG file.
func (p *page) dropImage(target, b64 string) {
	p.tb.Helper()
	eval[bool](p, `(() => {
		const bytes = Uint8Array.from(atob(`+jsString(b64)+`), (c) => c.charCodeAt(0));
		const dt = new DataTransfer();
		dt.items.add(new File([bytes], 'from-disk.png', { type: 'image/png' }));
		const el = document.querySelector(`+jsString(target)+`);
		el.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
		el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
		return true;
	})()`)
}

func TestDetailEditsSaveAsTheyChange(t *testing.T) {
	d, s := startSample(t)
	ctx := context.Background()
	p := openPage(t, d, "/#/mygame/"+s.Check)
	p.waitDetail(s.Check)

	// Inline title edit.
	p.click(".detail-title")
	p.waitFor("the title input", `document.activeElement.classList.contains('title-input')`)
	eval[bool](p, `(() => { document.activeElement.value = 'Lava tips are round at dusk'; return true; })()`)
	p.key("\r")
	p.waitFor("the saved title", `document.querySelector('.detail-title')?.textContent === 'Lava tips are round at dusk'`)

	// Fields save on change.
	eval[bool](p, `(() => { const s = document.querySelector('.fields select[name="priority"]'); s.value = 'p0'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.waitFor("the saved priority", `fetch('/api/issues/`+s.Check+`').then((r) => r.json()).then((i) => i.priority === 'p0')`)
	eval[bool](p, `(() => { const s = document.querySelector('.status-select'); s.value = 'open'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.waitFor("the saved status", `fetch('/api/issues/`+s.Check+`').then((r) => r.json()).then((i) => i.status === 'open')`)
	if is := issue(t, d, s.Check); is.Title != "Lava tips are round at dusk" || is.Priority != "p0" || is.Status != "open" {
		t.Errorf("stored %q %s %s", is.Title, is.Priority, is.Status)
	}

	// Untick the last plan step, then leave a note on the first.
	p.click(".steps li:nth-child(3) input[type=checkbox]")
	p.waitFor("the plan at 2/3", `document.querySelector('.plan .card-head .muted')?.textContent === '2/3'`)
	p.click(".steps li:nth-child(1) .step-note-button")
	p.waitFor("the note editor", `document.activeElement.tagName === 'TEXTAREA' && !!document.activeElement.closest('.step-note')`)
	eval[bool](p, `(() => { document.activeElement.value = 'looks right from the ridge'; return true; })()`)
	p.key("\r")
	p.waitFor("the note", `document.querySelector('.steps li:nth-child(1) .step-note')?.textContent === 'looks right from the ridge'`)
	is := issue(t, d, s.Check)
	if is.Plan.Steps[2].State != "todo" || is.Plan.Steps[0].Note != "looks right from the ridge" {
		t.Errorf("stored plan %+v", is.Plan.Steps)
	}

	// Edit the location list: add a labelled command and move it first.
	p.click(".location-card .card-head .button")
	p.waitFor("the command editor", `!!document.querySelector('.command-editor')`)
	p.click(".location-card .dialog-actions .button:first-child")
	eval[bool](p, `(() => {
		const row = document.querySelector('.command-editor li:last-child');
		const [cmd, label] = row.querySelectorAll('input');
		cmd.value = '/goto 0 64 0'; cmd.dispatchEvent(new Event('input'));
		label.value = 'spawn'; label.dispatchEvent(new Event('input'));
		return true;
	})()`)
	p.click(`.command-editor li:last-child button[aria-label^="Move command 3 up"]`)
	p.click(`.command-editor li:nth-child(2) button[aria-label^="Move command 2 up"]`)
	p.click(".location-card .button.primary")
	p.waitFor("the new first command", `document.querySelector('.command .command-label')?.textContent === 'spawn'`)
	cmds := issue(t, d, s.Check).Location.Commands
	if len(cmds) != 3 || cmds[0].Command != "/goto 0 64 0" || cmds[0].Label != "spawn" || cmds[1].Label != "the east flow" {
		t.Errorf("stored commands %+v", cmds)
	}

	// A file dropped on the attachments box goes to the issue itself.
	p.dropImage(".attachments", screenshotPNG(t))
	p.waitFor("the thumbnail", `document.querySelectorAll('.attachments .thumb img').length === 1`)
	is = issue(t, d, s.Check)
	if len(is.Attachments) != 1 || is.Attachments[0].CommentID != nil || is.Attachments[0].Filename != "from-disk.png" {
		t.Errorf("stored attachments %+v", is.Attachments)
	}
	p.click(".attachments .thumb")
	p.waitFor("the lightbox", `!!document.querySelector('dialog.lightbox[open] img.lightbox-image')`)
	p.waitFor("the image loaded", `document.querySelector('dialog.lightbox img').naturalWidth === 24`)
	p.key("\x1b")
	p.waitFor("the lightbox closed", `!document.querySelector('dialog.lightbox')`)

	// The parent lists its part; once every part is done it offers to close.
	p.do(navigate(d.URL + "/#/mygame/" + s.Parent))
	p.waitDetail(s.Parent)
	p.waitFor("the child", `document.querySelector('.children')?.textContent.includes('`+s.Check+`')`)
	if eval[bool](p, `[...document.querySelectorAll('.children button')].some((b) => b.textContent.startsWith('Close'))`) {
		t.Error("Close offered while a part is open")
	}
	if _, err := d.DB.SetStatus(ctx, s.Check, "passed", "owner"); err != nil {
		t.Fatal(err)
	}
	p.waitFor("Close offered", `[...document.querySelectorAll('.children button')].some((b) => b.textContent === 'Close `+s.Parent+`')`)
	p.click(".children .button.primary")
	p.waitFor("the parent closed", `document.querySelector('.status-select').value === 'closed'`)
	if st := issue(t, d, s.Parent).Status; st != "closed" {
		t.Errorf("parent status %s", st)
	}
}

func TestBoardAndBacklogViews(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.click(`.view-switch button:nth-child(3)`)
	p.waitFor("the board", `document.querySelectorAll('.board-column').length === 6`)
	cols := eval[[]string](p, `[...document.querySelectorAll('.board-column')].map((c) => c.getAttribute('aria-label') + ':' + c.querySelectorAll('.card').length)`)
	if strings.Join(cols, ",") != "To check:1,Auto check:1,Reported:4,Failed:1,Open:2,In progress:1" {
		t.Errorf("board columns %v", cols)
	}
	// The board takes the width until an issue opens.
	if eval[bool](p, `getComputedStyle(document.getElementById('detail-pane')).display !== 'none'`) {
		t.Error("the detail pane shows beside the board")
	}
	p.click(`.card[data-id="` + s.Check + `"] .card-title`)
	p.waitDetail(s.Check)

	p.do(navigate(d.URL + "/#/mygame"))
	p.click(`.view-switch button:nth-child(2)`)
	p.waitFor("the backlog groups", `document.querySelectorAll('.group-header').length === 3`)
	groups := eval[[]string](p, `[...document.querySelectorAll('.window-host .group-header')].map((g) => g.querySelector('.group-name').textContent + ' ' + g.querySelector('.group-count').textContent + ' ' + g.querySelector('.group-sizes').textContent)`)
	if strings.Join(groups, ",") != "audio 1 1 M,water 1 1 S,No area 1 1 S" {
		t.Errorf("backlog groups %v", groups)
	}
	// Collapse a group; the keyboard still reaches its issue and opens it.
	p.click(`.window-host .group-header[data-group="area:water"]`)
	p.waitFor("collapsed", `document.querySelector('.window-host .group-header[data-group="area:water"]').getAttribute('aria-expanded') === 'false'`)
	p.do(focusList())
	p.key("j")
	p.key("j")
	p.waitFor("the group open again", `document.querySelector('.window-host .group-header[data-group="area:water"]').getAttribute('aria-expanded') === 'true'`)
}

func TestRunTheCurrentBuildFromThePage(t *testing.T) {
	d, s := startSample(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	exe := filepath.Join(dir, "ember-isles")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DB.SetBuild(context.Background(), "mygame", desk.BuildInput{Path: exe, Label: "local 43", Author: "ci"}); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.waitFor("the build pill", `document.querySelector('.build-pill > .button')?.textContent.includes('local 43')`)
	p.click(".build-pill > .button")
	p.waitFor("the popover with Open folder and Run", `[...document.querySelectorAll('.build-pill .popover button')].map((b) => b.textContent).join() === 'Copy path,Open folder,Run'`)
	p.click(".build-pill .popover button:last-child")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Run did not start the build: %s", p.describe())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.waitFor("the toast", `document.getElementById('toasts').textContent.includes('Build started')`)

	// Without the page's token the same request is refused.
	res, err := http.Post(d.URL+"/api/projects/mygame/build/run", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("run without the token: %d", res.StatusCode)
	}

	// A cleared build shows in red.
	if _, err := d.DB.ClearBuild(context.Background(), "mygame", false, "owner"); err != nil {
		t.Fatal(err)
	}
	p.waitFor("No current build", `document.querySelector('.build-pill.none')?.textContent.includes('No current build')`)
}

func TestTabsShareOneLiveStream(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	q := p.newTab("/#/mygame/" + s.Report)
	q.waitDetail(s.Report)
	q.waitFor("live in the second tab", `document.getElementById('live-state').textContent === '● live'`)

	targets, err := chromedp.Targets(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	workers := 0
	for _, ti := range targets {
		if ti.Type == "shared_worker" && strings.HasSuffix(ti.URL, "/js/live-worker.js") {
			workers++
		}
	}
	if workers != 1 {
		t.Errorf("%d live workers for two tabs, want one", workers)
	}

	// Both tabs hear a write from another process through it.
	writeFromProcess(t, d.DataDir, "comment", s.Report, "claude", "Both tabs see this.")
	q.waitFor("the comment in the open issue", `document.querySelector('.timeline').textContent.includes('Both tabs see this.')`)
	p.waitFor("the comment count in the other tab's row", `document.querySelector('[data-id="`+s.Report+`"] .row-meta')?.textContent.includes('2')`)
}

func TestWithoutSharedWorkerThePagePolls(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame", pageOptions{width: 1400, height: 900, beforeLoad: "delete window.SharedWorker;"})
	p.waitRow(s.Check)
	p.waitFor("the polling footer", `document.getElementById('live-state').textContent === '○ polling'`)
	writeFromProcess(t, d.DataDir, "title", s.Plain, "Found by polling")
	p.waitForWithin("the polled change", `document.querySelector('[data-id="`+s.Plain+`"] .row-title')?.textContent === 'Found by polling'`, 12*time.Second)
}

func TestWhenTheStreamDropsThePagePollsAndCatchesUp(t *testing.T) {
	d, s := startSample(t)
	p := openPage(t, d, "/#/mygame")
	p.waitRow(s.Check)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	addr := d.Server.Addr().String()

	// The server goes away; the page says so and keeps trying.
	p.allowConsole("ERR_CONNECTION_REFUSED")
	p.allowConsole("Failed to fetch")
	p.allowConsole("net::ERR_")
	if err := d.Server.Close(); err != nil {
		t.Fatal(err)
	}
	p.waitForWithin("the polling footer", `document.getElementById('live-state').textContent === '○ polling'`, 15*time.Second)

	// A write while it is away, then the server is back on the same address.
	if _, err := d.DB.UpdateIssue(context.Background(), s.Plain, desk.IssueFields{Title: ptr("Written while the desk was away")}, "codex"); err != nil {
		t.Fatal(err)
	}
	srv := deskhttp.NewServer(d.DB, deskhttp.Options{Addr: addr})
	if err := srv.Open(); err != nil {
		t.Fatalf("reopen on %s: %v", addr, err)
	}
	t.Cleanup(func() { srv.Close() })
	p.waitForWithin("live again", `document.getElementById('live-state').textContent === '● live'`, 15*time.Second)
	p.waitForWithin("the missed write", `document.querySelector('[data-id="`+s.Plain+`"] .row-title')?.textContent === 'Written while the desk was away'`, 10*time.Second)
}
