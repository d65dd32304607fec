package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"desk/agent"
	"desk/agent/intake"
	"desk/agent/live"
	deskhttp "desk/http"
	"desk/internal/testdesk"
	"desk/link"
	"desk/office"
	"desk/sqlite"
)

var updateOfficeShots = flag.Bool("update-office-screenshots", false, "write the office's screenshots to docs/")

// officeDesk is a desk with agent tracking, the sample projects linked to
// folders, and helpers that report hooks for any number of Claude Code
// sessions, the way the clients' hooks do.
type officeDesk struct {
	*testdesk.Desk
	tb    testing.TB
	token string
	runs  map[string]map[string]json.RawMessage
}

// startOfficeDesk starts a desk whose silent working sessions read unknown
// after lease (0: the default).
func startOfficeDesk(tb testing.TB, lease time.Duration) *officeDesk {
	tb.Helper()
	dir := tb.TempDir()
	timers := agent.DefaultTimers
	if lease > 0 {
		timers.WorkingLease = lease
	}
	d := testdesk.StartWith(tb, dir, func(db *sqlite.DB) deskhttp.Options {
		return deskhttp.Options{Agents: live.New(db, live.Options{DataDir: dir, Tick: 20 * time.Millisecond, Timers: &timers})}
	})
	token, err := os.ReadFile(filepath.Join(dir, intake.TokenName))
	if err != nil {
		tb.Fatal(err)
	}
	seedSample(tb, d.DB)
	for folder, slug := range map[string]string{"/work/mygame": "mygame", "/work/tools": "tools", claudeFolder: "mygame"} {
		if err := link.Write(dir, folder, slug); err != nil {
			tb.Fatal(err)
		}
	}
	return &officeDesk{Desk: d, tb: tb, token: strings.TrimSpace(string(token)),
		runs: map[string]map[string]json.RawMessage{"claude": readRunTB(tb, claudeRun), "codex": readRunTB(tb, codexRun)}}
}

// readRunTB reads a captured hook run (see readRun).
func readRunTB(tb testing.TB, path string) map[string]json.RawMessage {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var l struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			tb.Fatal(err)
		}
		if _, seen := out[l.Event]; !seen {
			out[l.Event] = l.Payload
		}
	}
	return out
}

// hook posts a payload to the server's hook intake, as a client's hook does.
func (d *officeDesk) hook(client, payload string) {
	d.tb.Helper()
	req, err := http.NewRequest("POST", d.URL+"/api/hooks/"+client, strings.NewReader(payload))
	if err != nil {
		d.tb.Fatal(err)
	}
	req.Header.Set(intake.HeaderToken, d.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		d.tb.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		d.tb.Fatalf("POST /api/hooks/%s: %s", client, res.Status)
	}
}

// replay posts the captured payloads of the named events, in that order.
func (d *officeDesk) replay(client string, events ...string) {
	d.tb.Helper()
	for _, ev := range events {
		p, ok := d.runs[client][ev]
		if !ok {
			d.tb.Fatalf("the %s run has no %s", client, ev)
		}
		d.hook(client, string(p))
	}
}

// claudeHook posts a hook of the captured Claude Code session.
func (d *officeDesk) claudeHook(event string, fields map[string]any) {
	d.tb.Helper()
	d.as(claudeSession, claudeFolder, event, fields)
}

// as posts one Claude Code hook of session id working in folder cwd,
// shaped as the captured run's payloads are.
func (d *officeDesk) as(id, cwd, event string, fields map[string]any) {
	d.tb.Helper()
	m := map[string]any{"session_id": id, "hook_event_name": event, "cwd": cwd,
		"transcript_path": "/home/user/.claude/projects/x/" + id + ".jsonl"}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		d.tb.Fatal(err)
	}
	d.hook("claude", string(b))
}

// start opens a session and starts a turn on a tool.
func (d *officeDesk) start(id, cwd, tool string, input map[string]any) {
	d.tb.Helper()
	d.as(id, cwd, "SessionStart", map[string]any{"source": "startup", "model": "claude-opus-4-8[1m]"})
	d.as(id, cwd, "UserPromptSubmit", map[string]any{"prompt": "go on", "prompt_id": "p-" + id})
	d.as(id, cwd, "PreToolUse", map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": "t-" + id})
}

// putLayout saves a layout through the API, failing the test otherwise.
func (d *officeDesk) putLayout(l *office.Layout) *office.Layout {
	d.tb.Helper()
	b, _ := json.Marshal(l)
	req, _ := http.NewRequest("PUT", d.URL+"/api/office/layout", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		d.tb.Fatal(err)
	}
	defer res.Body.Close()
	var out office.Layout
	if res.StatusCode != 200 {
		d.tb.Fatalf("PUT /api/office/layout: %s", res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		d.tb.Fatal(err)
	}
	return &out
}

// mappedOffice is the default office with its wings tied to the sample
// projects.
func mappedOffice() *office.Layout {
	l := office.Default()
	l.Areas[0].Name, l.Areas[0].Project = "Ember Isles", "mygame"
	l.Areas[1].Name, l.Areas[1].Project = "Level tools", "tools"
	return l
}

// roster reads the office's hidden list: one line per character.
const officeRoster = `[...document.querySelectorAll('#office-roster > li')].map((li) => [li.dataset.session, li.dataset.state, li.dataset.pose, li.dataset.bubble, li.dataset.seat, li.dataset.area, li.textContent].join(' | '))`

// item is a JavaScript expression for a roster item.
func item(id string) string {
	return `document.querySelector('#office-roster > li[data-session="` + id + `"]')`
}

// pixels is a JavaScript function, installed once per test, that tells
// whether the canvas has a pixel of a colour within a box around a
// character: box is [left, top, right, bottom] in world pixels from the
// character's feet (the roster item's data-x and data-y).
const pixelsJS = `window.officeHas = (id, box, hex) => {
	const li = document.querySelector('#office-roster > li[data-session="' + id + '"]');
	const c = document.getElementById('office-canvas');
	if (!li || li.dataset.x === undefined) return false;
	const z = +c.dataset.zoom, dpr = devicePixelRatio;
	const x = Math.round((+li.dataset.x + box[0] * z) * dpr), y = Math.round((+li.dataset.y + box[1] * z) * dpr);
	const w = Math.round((box[2] - box[0]) * z * dpr), h = Math.round((box[3] - box[1]) * z * dpr);
	const d = c.getContext('2d').getImageData(x, y, w, h).data;
	const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
	for (let i = 0; i < d.length; i += 4) {
		if (Math.abs(d[i] - want[0]) + Math.abs(d[i + 1] - want[1]) + Math.abs(d[i + 2] - want[2]) < 16) return true;
	}
	return false;
};
window.officeSprite = (id) => {
	const li = document.querySelector('#office-roster > li[data-session="' + id + '"]');
	const c = document.getElementById('office-canvas');
	const z = +c.dataset.zoom, dpr = devicePixelRatio;
	const d = c.getContext('2d').getImageData(Math.round((+li.dataset.x - 8 * z) * dpr), Math.round((+li.dataset.y - 22 * z) * dpr), Math.round(16 * z * dpr), Math.round(24 * z * dpr)).data;
	let h = 0;
	for (let i = 0; i < d.length; i++) h = (h * 31 + d[i]) | 0;
	return h;
};
true`

// Above a character's head, where its bubble goes; the bubble's colours.
const (
	bubbleBox      = "[-7, -36, 8, -20]"
	permissionDots = "#e8a317"
	waitingMark    = "#3b7dd8"
	doneCheck      = "#2e9e4f"
)

func TestOfficeCharactersFollowTheirSessionsLive(t *testing.T) {
	d := startOfficeDesk(t, 0)
	d.putLayout(mappedOffice())
	p := openPage(t, d.Desk, "/#/~office")
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	p.waitFor("the empty office", `!document.querySelector('.office-empty').hidden && document.querySelectorAll('#office-roster > li').length === 0`)
	eval[bool](p, pixelsJS)

	// A Claude Code session, from its real hook payloads, in a folder of
	// the project the west wing belongs to: it walks in and sits there.
	d.replay("claude", "SessionStart", "UserPromptSubmit", "PreToolUse")
	p.waitFor("the character walking in", item(claudeSession)+`?.dataset.pose === 'walk'`)
	p.waitFor("the character at work", item(claudeSession)+`?.dataset.pose === 'type' && `+item(claudeSession)+`.dataset.state === 'working'`)
	got := eval[string](p, item(claudeSession)+`.dataset.area + ' ' + `+item(claudeSession)+`.dataset.seat + ' ' + `+item(claudeSession)+`.textContent`)
	if got != "west chair-11 claude · mygame · Using desk-gosdk: echo" {
		t.Errorf("the character is %q", got)
	}
	if !eval[bool](p, `document.querySelector('.office-empty').hidden`) {
		t.Error("the empty office's note still shows")
	}
	// Typing moves its hands: two frames apart, the sprite differs.
	first := eval[int](p, `officeSprite('`+claudeSession+`')`)
	p.waitFor("a typing frame", `officeSprite('`+claudeSession+`') !== `+fmt.Sprint(first))
	if eval[bool](p, `officeHas('`+claudeSession+`', `+bubbleBox+`, '`+permissionDots+`')`) {
		t.Error("a bubble over a working agent")
	}

	// A second client's session, from Codex's real hooks, takes the next seat.
	d.replay("codex", "SessionStart", "UserPromptSubmit", "PreToolUse")
	p.waitFor("the codex character", item(codexSession)+`?.dataset.pose === 'type'`)
	if got := eval[string](p, item(codexSession)+`.textContent`); !strings.HasPrefix(got, "codex · ") || !strings.HasSuffix(got, "Running: echo from-codex-shell") {
		t.Errorf("codex reads %q", got)
	}

	// Permission: it sits still under the "…" bubble, and nothing is drawn.
	d.replay("claude", "PermissionRequest")
	p.waitFor("the permission bubble", item(claudeSession)+`.dataset.state === 'needs_permission' && `+item(claudeSession)+`.dataset.bubble === 'permission' && `+item(claudeSession)+`.dataset.pose === 'sit'`)
	p.waitFor("the bubble drawn", `officeHas('`+claudeSession+`', `+bubbleBox+`, '`+permissionDots+`')`)
	if got := eval[string](p, item(claudeSession)+`.textContent`); got != "claude · mygame · needs permission: desk-gosdk: echo" {
		t.Errorf("permission reads %q", got)
	}

	// Hover: the label; click: the card, with the way to the Agents view.
	x := eval[float64](p, `+`+item(claudeSession)+`.dataset.x`)
	y := eval[float64](p, `+`+item(claudeSession)+`.dataset.y`)
	canvas := eval[[]float64](p, `(() => { const r = document.getElementById('office-canvas').getBoundingClientRect(); return [r.left, r.top]; })()`)
	cx, cy := canvas[0]+x, canvas[1]+y-20
	p.do(chromedp.MouseEvent("mouseMoved", cx, cy))
	p.waitFor("the hover label", `!document.getElementById('office-label').hidden && document.getElementById('office-label').textContent === 'claude · mygame · needs permission: desk-gosdk: echo'`)
	if err := d.DB.AgentTouched(context.Background(), "claude", claudeSession, claudeFolder, "MG-3"); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.MouseClickXY(cx, cy))
	p.waitFor("the card", `!document.querySelector('.office-card').hidden && document.querySelector('.office-card-state').textContent.startsWith('Needs permission for ')`)
	p.waitFor("the issue it touched", `document.querySelector('.office-card-issues a')?.getAttribute('href') === '#/mygame/MG-3'`)
	if got := eval[string](p, `document.querySelector('.office-card a.button').getAttribute('href')`); got != "#/~agents/"+claudeSession {
		t.Errorf("the card links to %q", got)
	}
	if eval[bool](p, `[...document.querySelectorAll('.office-card button')].some((b) => /terminal|Allow/.test(b.textContent))`) {
		t.Error("a session desk did not launch offers a terminal")
	}
	// The card follows the session live.
	d.replay("claude", "PostToolUse", "Stop")
	p.waitFor("done on the card", `document.querySelector('.office-card-state')?.textContent.startsWith('Done for ')`)
	p.waitFor("the done check", item(claudeSession)+`.dataset.bubble === 'done' && officeHas('`+claudeSession+`', `+bubbleBox+`, '`+doneCheck+`')`)
	p.key("\x1b")
	p.waitFor("the card closed", `document.querySelector('.office-card').hidden`)
	// The check fades by itself.
	p.waitForWithin("the check faded", item(claudeSession)+`.dataset.bubble === '' && !officeHas('`+claudeSession+`', `+bubbleBox+`, '`+doneCheck+`')`, 6*time.Second)

	// Waiting for input: the waiting bubble.
	d.replay("codex", "PostToolUse", "Stop")
	d.hook("codex", `{"session_id":"`+codexSession+`","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"again"}`)
	d.claudeHook("Notification", map[string]any{"notification_type": "idle_prompt", "message": "Claude is waiting for your input"})
	p.waitFor("waiting for input", item(claudeSession)+`.dataset.state === 'waiting_input' && `+item(claudeSession)+`.dataset.bubble === 'waiting'`)
	p.waitFor("the waiting bubble drawn", `officeHas('`+claudeSession+`', `+bubbleBox+`, '`+waitingMark+`')`)

	// The session ends: out through the door, then gone from the roster.
	d.replay("claude", "SessionEnd")
	p.waitFor("leaving", `!`+item(claudeSession)+` || `+item(claudeSession)+`.dataset.pose === 'leave'`)
	p.waitForWithin("gone", `!`+item(claudeSession)+` && document.querySelectorAll('#office-roster > li').length === 1`, 8*time.Second)
}

// tileJS adds page functions that find a tile of the office on screen
// (from the canvas's data-zoom, data-x and data-y) and read its colour.
const tileJS = `window.officeTileAt = (c, r, dx = 8, dy = 8) => {
	const el = document.getElementById('office-canvas');
	const rect = el.getBoundingClientRect();
	const z = +el.dataset.zoom;
	return [rect.left + +el.dataset.x + (c * 16 + dx) * z, rect.top + +el.dataset.y + (r * 16 + dy) * z];
};
window.officeTileColor = (c, r, dx = 8, dy = 1) => {
	const el = document.getElementById('office-canvas');
	const z = +el.dataset.zoom, dpr = devicePixelRatio;
	const x = Math.round((+el.dataset.x + (c * 16 + dx) * z + z / 2) * dpr), y = Math.round((+el.dataset.y + (r * 16 + dy) * z + z / 2) * dpr);
	const d = el.getContext('2d').getImageData(x, y, 1, 1).data;
	return '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
};
true`

// at is where tile (c, r) is on the page.
func (p *page) at(c, r int) (float64, float64) {
	p.tb.Helper()
	xy := eval[[]float64](p, fmt.Sprintf(`officeTileAt(%d, %d)`, c, r))
	return xy[0], xy[1]
}

// stroke presses the left button on the first tile, drags over the others
// and lets go on the last.
func (p *page) stroke(tiles ...[2]int) {
	p.tb.Helper()
	held := func(ev *input.DispatchMouseEventParams) {
		ev.Button = input.MouseButtonLeft
		ev.Buttons = 1
	}
	for i, t := range tiles {
		x, y := p.at(t[0], t[1])
		switch {
		case i == 0:
			p.do(chromedp.MouseEvent(chromedp.MousePressed, x, y, held, chromedp.ClickCount(1)))
		default:
			p.do(chromedp.MouseEvent(chromedp.MouseMoved, x, y, held))
		}
		if i == len(tiles)-1 {
			p.do(chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
		}
	}
}

func (p *page) tileColor(c, r int) string {
	p.tb.Helper()
	return eval[string](p, fmt.Sprintf(`officeTileColor(%d, %d)`, c, r))
}

// setColor sets a colour input as the owner would with the picker.
func (p *page) setColor(css, hex string) {
	p.tb.Helper()
	eval[bool](p, `(() => { const i = document.querySelector(`+jsString(css)+`); i.value = '`+hex+`'; i.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`)
}

func TestOfficeEditorPaintsUndoesSavesAndEveryTabFollows(t *testing.T) {
	d := startOfficeDesk(t, 0)
	one := openPage(t, d.Desk, "/#/~office")
	two := one.newTab("/#/~office")
	for _, p := range []*page{one, two} {
		p.waitFor("the office", `+document.getElementById('office-canvas').dataset.zoom > 0`)
		p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
		eval[bool](p, tileJS)
	}
	const pink = "#ff00aa"
	before := one.tileColor(2, 8)
	if before == pink {
		t.Fatal("the floor is pink before any paint")
	}

	// Paint: a stroke over three tiles, then a second stroke of one.
	one.click("#office-edit")
	one.waitFor("the editor", `!document.querySelector('.office-editor-box').hidden`)
	one.click(`.office-tool[data-tool="floor"]`)
	one.setColor(`.office-editor-options input[type="color"]`, pink)
	time.Sleep(100 * time.Millisecond) // the editor's camera settles on its border
	one.stroke([2]int{2, 8}, [2]int{3, 8}, [2]int{4, 8})
	one.stroke([2]int{6, 8})
	one.waitFor("the paint", `officeTileColor(2, 8) === '`+pink+`' && officeTileColor(4, 8) === '`+pink+`' && officeTileColor(6, 8) === '`+pink+`'`)
	// Undo goes back a stroke at a time; redo forward.
	one.click(`[data-act="undo"]`)
	one.waitFor("the second stroke undone", `officeTileColor(6, 8) !== '`+pink+`' && officeTileColor(3, 8) === '`+pink+`'`)
	one.click(`[data-act="undo"]`)
	one.waitFor("the first stroke undone", `officeTileColor(3, 8) === '`+before+`' && officeTileColor(2, 8) === '`+before+`'`)
	if !eval[bool](one, `document.querySelector('[data-act="undo"]').disabled && document.querySelector('[data-act="save"]').disabled`) {
		t.Error("with everything undone, undo and save are still on")
	}
	one.click(`[data-act="redo"]`)
	one.waitFor("the first stroke redone", `officeTileColor(2, 8) === '`+pink+`' && officeTileColor(6, 8) !== '`+pink+`'`)
	// The other tab shows the saved office until a save.
	if got := two.tileColor(2, 8); got != before {
		t.Fatalf("the other tab shows %s before the save", got)
	}
	one.click(`[data-act="save"]`)
	one.waitFor("saved", `document.querySelector('.office-editor-status').textContent === 'Saved (revision 1).'`)
	two.waitFor("the other tab follows", `officeTileColor(2, 8) === '`+pink+`' && officeTileColor(4, 8) === '`+pink+`'`)
	saved := getLayout(t, d.URL)
	if saved.Revision != 1 || saved.Colors[8*22+3] != pink || saved.Colors[8*22+6] != "" {
		t.Fatalf("saved revision %d, colours %q %q", saved.Revision, saved.Colors[8*22+3], saved.Colors[8*22+6])
	}

	// Two editors: the one that saves second, on the older revision, is told.
	two.click("#office-edit")
	two.waitFor("the editor", `!document.querySelector('.office-editor-box').hidden`)
	two.click(`.office-tool[data-tool="wall"]`)
	time.Sleep(100 * time.Millisecond)
	one.stroke([2]int{8, 8})
	// Painting on the border beyond the right wall grows the office.
	one.stroke([2]int{22, 10})
	one.click(`[data-act="save"]`)
	one.waitFor("saved again", `document.querySelector('.office-editor-status').textContent === 'Saved (revision 2).'`)
	two.waitFor("told of it", `document.querySelector('.office-editor-status').textContent.includes('saved elsewhere (revision 2)')`)
	two.stroke([2]int{5, 10})
	two.allowConsole("status of 409")
	two.click(`[data-act="save"]`)
	two.waitFor("the stale save refused", `document.querySelector('.office-editor-status').textContent.startsWith('the office changed since revision 1: it is at revision 2 now')`)
	if got := getLayout(t, d.URL); got.Revision != 2 || got.Cols != 23 || got.Tiles[10*23+5] == 1 {
		t.Fatalf("after the refused save: revision %d, %d cols, tile %d", got.Revision, got.Cols, got.Tiles[10*23+5])
	}
	// It takes the other tab's office, and its own edit is one undo away.
	two.click(`[data-act="theirs"]`)
	two.waitFor("theirs loaded", `document.querySelector('.office-editor-status').textContent.startsWith('Loaded revision 2')`)
	two.waitFor("their paint", `officeTileColor(8, 8) === '`+pink+`'`)
	two.click(`[data-act="close"]`)

	// The layout outlives the server. (The open tabs lose it meanwhile.)
	one.allowConsole("ERR_CONNECTION_REFUSED")
	two.allowConsole("ERR_CONNECTION_REFUSED")
	d.Server.Close()
	again := testdesk.StartIn(t, d.DataDir)
	if got := getLayout(t, again.URL); got.Revision != 2 || got.Cols != 23 || got.Colors[8*23+8] != pink || got.Colors[8*23+2] != pink {
		t.Fatalf("after a restart: revision %d, %d cols", got.Revision, got.Cols)
	}
	three := openPage(t, again, "/#/~office")
	three.waitFor("the office", `+document.getElementById('office-canvas').dataset.zoom > 0`)
	eval[bool](three, tileJS)
	three.waitFor("the paint after the restart", `officeTileColor(2, 8) === '`+pink+`' && officeTileColor(8, 8) === '`+pink+`'`)
}

// getLayout reads the office's layout through the API.
func getLayout(t *testing.T, url string) *office.Layout {
	t.Helper()
	res, err := http.Get(url + "/api/office/layout")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var l office.Layout
	if err := json.NewDecoder(res.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	return &l
}

func TestOfficeEditorFurnitureAreasImportAndExport(t *testing.T) {
	d := startOfficeDesk(t, 0)
	p := openPage(t, d.Desk, "/#/~office")
	p.waitFor("the office", `+document.getElementById('office-canvas').dataset.zoom > 0`)
	eval[bool](p, tileJS)
	p.click("#office-edit")
	p.waitFor("the editor", `!document.querySelector('.office-editor-box').hidden`)
	time.Sleep(100 * time.Millisecond)
	save := func(rev int) {
		t.Helper()
		p.click(`[data-act="save"]`)
		p.waitFor("saved", `document.querySelector('.office-editor-status').textContent === 'Saved (revision `+fmt.Sprint(rev)+`).'`)
	}
	choose := func(css, value string) {
		t.Helper()
		eval[bool](p, `(() => { const s = document.querySelector(`+jsString(css)+`); s.value = `+jsString(value)+`; s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`)
	}

	// Place a plant, and a desk turned a quarter (R), in the lounge.
	p.click(`.office-tool[data-tool="place"]`)
	choose(`select[aria-label="Furniture"]`, "plant")
	p.stroke([2]int{12, 9})
	choose(`select[aria-label="Furniture"]`, "desk")
	p.do(chromedp.Focus(chromedp.ID("office-stage")))
	p.key("r")
	p.stroke([2]int{14, 9})
	// A plant where a desk stands does not fit, and nothing changes.
	choose(`select[aria-label="Furniture"]`, "plant")
	p.stroke([2]int{14, 10})
	p.waitFor("the refusal", `document.querySelector('.office-editor-status').textContent === 'A plant does not fit there.'`)
	save(1)
	l := getLayout(t, d.URL)
	find := func(l *office.Layout, typ string, c, r int) *office.Item {
		for i := range l.Furniture {
			if f := &l.Furniture[i]; f.Type == typ && f.Col == c && f.Row == r {
				return f
			}
		}
		return nil
	}
	desk := find(l, "desk", 14, 9)
	if find(l, "plant", 12, 9) == nil || desk == nil || desk.Rot != 1 || find(l, "plant", 14, 10) != nil {
		t.Fatalf("after placing: %+v", l.Furniture[len(l.Furniture)-3:])
	}

	// Select the desk, turn it back (R), remove it (Delete), undo the removal.
	p.click(`.office-tool[data-tool="select"]`)
	p.stroke([2]int{14, 10})
	p.waitFor("the desk selected", `document.querySelector('.office-editor-options .office-hint')?.textContent === 'Desk `+desk.UID+`'`)
	p.do(chromedp.Focus(chromedp.ID("office-stage")))
	p.key("r")
	p.key("r")
	p.key("r")
	p.key(kb.Delete)
	p.click(`[data-act="undo"]`)
	// Drag it one tile right, and paint it walnut.
	p.stroke([2]int{14, 9}, [2]int{15, 9})
	p.setColor(`.office-editor-options input[type="color"]`, "#5a3a22")
	save(2)
	if got := find(getLayout(t, d.URL), "desk", 15, 9); got == nil || got.Rot != 0 || got.Color != "#5a3a22" {
		t.Fatalf("the desk after turning, removing, undoing, dragging and painting: %+v", got)
	}

	// A new area for the tools project, painted over three tiles.
	p.click(`.office-tool[data-tool="area"]`)
	p.click(`.office-editor-options button:nth-of-type(1)`)
	p.waitFor("the new area", `document.querySelector('input[aria-label="Area name"]')?.value === 'Area 3'`)
	eval[bool](p, `(() => { const i = document.querySelector('input[aria-label="Area name"]'); i.value = 'Review'; i.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`)
	choose(`select[aria-label="Area project"]`, "tools")
	p.stroke([2]int{2, 10}, [2]int{3, 10}, [2]int{4, 10})
	save(3)
	l = getLayout(t, d.URL)
	a := l.Areas[len(l.Areas)-1]
	if a.Name != "Review" || a.Project != "tools" || fmt.Sprint(a.Tiles) != fmt.Sprint([]int{10*22 + 2, 10*22 + 3, 10*22 + 4}) {
		t.Fatalf("the area: %+v", a)
	}

	// Export: the file is the layout.
	downloads := t.TempDir()
	if _, err := chromedp.CallBrowser(p.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatal(err)
	}
	p.click(`[data-act="export"]`)
	var exported []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(downloads, "desk-office.json")); err == nil && len(b) > 0 && bytes.HasSuffix(b, []byte("\n")) {
			exported = b
			break
		}
	}
	back, err := office.Decode(exported)
	if err != nil {
		t.Fatalf("the exported file: %v", err)
	}
	if back.Revision != 3 || len(back.Areas) != 3 || len(back.Furniture) != len(l.Furniture) {
		t.Errorf("exported revision %d, %d areas, %d items", back.Revision, len(back.Areas), len(back.Furniture))
	}

	// Import: a file with unknown furniture is refused with the reason, and changes nothing.
	bad := *back
	bad.Furniture = append([]office.Item{}, back.Furniture...)
	bad.Furniture[0].Type = "jukebox"
	writeJSON := func(name string, v any) string {
		b, _ := json.Marshal(v)
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p.allowConsole("status of 400")
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`.office-editor input[type="file"]`), []string{writeJSON("bad.json", bad)}))
	p.waitFor("the refusal", `document.querySelector('.office-editor-status').textContent.startsWith('bad.json: furniture[0]: "jukebox" is not a kind of furniture')`)
	notJSON := filepath.Join(t.TempDir(), "notes.json")
	os.WriteFile(notJSON, []byte("shopping list"), 0o644)
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`.office-editor input[type="file"]`), []string{notJSON}))
	p.waitFor("not JSON", `document.querySelector('.office-editor-status').textContent.startsWith('notes.json is not JSON')`)
	if got := getLayout(t, d.URL); got.Revision != 3 {
		t.Fatalf("a refused import saved revision %d", got.Revision)
	}
	// A good file replaces the office (the default one, here).
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`.office-editor input[type="file"]`), []string{writeJSON("plain.json", office.Default())}))
	p.waitFor("imported", `document.querySelector('.office-editor-status').textContent === 'Imported plain.json (revision 4).'`)
	if got := getLayout(t, d.URL); got.Revision != 4 || len(got.Areas) != 2 || find(got, "desk", 15, 9) != nil {
		t.Errorf("after the import: revision %d, %d areas", got.Revision, len(got.Areas))
	}
}

func TestOfficeSoundsAreOptInAndRemembered(t *testing.T) {
	d := startOfficeDesk(t, 0)
	d.start("loud", "/work/mygame", "Edit", map[string]any{"file_path": "/work/mygame/a.go"})
	p := openPage(t, d.Desk, "/#/~office", pageOptions{width: 1400, height: 900, beforeLoad: alertStubs})
	p.waitFor("the character", item("loud")+`?.dataset.pose === 'type'`)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	box := `input[name="office-sound"]`
	if eval[bool](p, `document.querySelector('`+box+`').checked`) {
		t.Fatal("sounds are on before the owner turned them on")
	}
	d.as("loud", "/work/mygame", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	p.waitFor("the permission", item("loud")+`.dataset.state === 'needs_permission'`)
	time.Sleep(100 * time.Millisecond)
	if got := eval[int](p, `window.alertLog.tones`); got != 0 {
		t.Fatalf("%d tones while sounds are off", got)
	}
	p.click(box)
	p.waitFor("the sample chime", `window.alertLog.tones === 2`)
	// A turn that ends chimes; a permission asked sounds its own pair.
	d.as("loud", "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/work/mygame/a.go"}})
	p.waitFor("working", item("loud")+`.dataset.state === 'working'`)
	d.as("loud", "/work/mygame", "Stop", nil)
	p.waitFor("the done chime", `window.alertLog.tones === 4`)
	d.as("loud", "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	d.as("loud", "/work/mygame", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	p.waitFor("the permission pair", `window.alertLog.tones === 6`)

	p.do(reload())
	p.waitFor("the character after a reload", item("loud")+` !== null`)
	if !eval[bool](p, `document.querySelector('`+box+`').checked`) {
		t.Error("the choice was not remembered")
	}
	p.click(box)
	p.waitFor("off, forgotten", `localStorage.getItem('desk.office.sound') === null`)
}

func TestDraggingACharacterToAChairKeepsItThere(t *testing.T) {
	d := startOfficeDesk(t, 0)
	d.start("mover", "/work/mygame", "Edit", map[string]any{"file_path": "/work/mygame/a.go"})
	p := openPage(t, d.Desk, "/#/~office")
	p.waitFor("the character", item("mover")+`?.dataset.pose === 'type'`)
	eval[bool](p, tileJS)
	from := eval[string](p, item("mover")+`.dataset.seat`)
	// The default office's chair-37 is in front of the east wing's last desk (col 19, row 5).
	x := eval[float64](p, `+`+item("mover")+`.dataset.x + document.getElementById('office-canvas').getBoundingClientRect().left`)
	y := eval[float64](p, `+`+item("mover")+`.dataset.y + document.getElementById('office-canvas').getBoundingClientRect().top`)
	tx, ty := p.at(19, 5)
	held := func(ev *input.DispatchMouseEventParams) {
		ev.Button = input.MouseButtonLeft
		ev.Buttons = 1
	}
	p.do(chromedp.MouseEvent(chromedp.MousePressed, x, y-20, held, chromedp.ClickCount(1)))
	for i := 1; i <= 8; i++ {
		f := float64(i) / 8
		p.do(chromedp.MouseEvent(chromedp.MouseMoved, x+(tx-x)*f, y-20+(ty-y+20)*f, held))
	}
	p.do(chromedp.MouseEvent(chromedp.MouseReleased, tx, ty, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.waitFor("the walk to the new seat", item("mover")+`.dataset.seat === 'chair-37'`)
	p.waitFor("seated there", item("mover")+`.dataset.pose === 'type' && `+item("mover")+`.dataset.area === 'east'`)
	if from == "chair-37" || !eval[bool](p, `document.querySelector('.office-card').hidden`) {
		t.Errorf("from %s; the card opened: %v", from, !eval[bool](p, `document.querySelector('.office-card').hidden`))
	}
	// The choice is kept: by the server, for every tab, after a reload.
	res, err := http.Get(d.URL + "/api/office/seats")
	if err != nil {
		t.Fatal(err)
	}
	var seats office.Seats
	json.NewDecoder(res.Body).Decode(&seats)
	res.Body.Close()
	if len(seats.Choices) != 1 || seats.Choices[0].Session != "mover" || seats.Choices[0].Seat != "chair-37" {
		t.Fatalf("seat choices %+v", seats.Choices)
	}
	p.do(reload())
	p.waitFor("the seat after a reload", item("mover")+`?.dataset.seat === 'chair-37' && `+item("mover")+`.dataset.pose === 'type'`)
}

// A character whose session desk launched opens its real terminal in its
// card: a bash session in a real desk serve, whose shell runs the hook a
// managed Claude Code would (desk hook event, with the session's
// DESK_SESSION_ID and generation), so that the agent asks for permission
// and is marked managed. The card's terminal shows the session's screen
// and types into it; Allow answers through the input route.
func TestTheCardOfALaunchedSessionOpensItsTerminalAndAnswersIt(t *testing.T) {
	s := startServe(t)
	rec := s.launchBash("office shell")
	payload := `{"session_id":"launched","hook_event_name":"PermissionRequest","cwd":"` + s.work + `","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`
	hook := `echo '` + payload + `' | desk hook event --client claude --event PermissionRequest; echo hook-sent`
	body, _ := json.Marshal(map[string]string{"text": hook + "\r"})
	if code := s.api("POST", "/api/sessions/"+rec.ID+"/input", string(body), nil); code != http.StatusOK {
		t.Fatalf("type the hook: %d", code)
	}
	p := openPage(t, s.desk, "/#/~office")
	p.waitForWithin("the character", item("launched")+`?.dataset.bubble === 'permission'`, 20*time.Second)
	x := eval[float64](p, `+`+item("launched")+`.dataset.x + document.getElementById('office-canvas').getBoundingClientRect().left`)
	y := eval[float64](p, `+`+item("launched")+`.dataset.y + document.getElementById('office-canvas').getBoundingClientRect().top`)
	p.do(chromedp.MouseClickXY(x, y-20))
	p.waitFor("the card", `!document.querySelector('.office-card').hidden`)
	buttons := eval[string](p, `[...document.querySelectorAll('.office-card-actions button, .office-card-actions a')].map((b) => b.textContent).join(', ')`)
	if buttons != "Open terminal, Allow, Deny" {
		t.Fatalf("the card offers %q", buttons)
	}
	// The terminal: the session's own screen, live, and what the owner types.
	p.click(".office-card-actions button")
	p.waitFor("the live terminal", `document.querySelector('.office-terminal .term-pane')?.dataset.state === 'live'`)
	p.waitTerm("the shell's screen", "hook-sent")
	p.sameScreen(s, rec.ID)
	p.typeTerm("echo card-$((3*3))")
	p.waitTerm("the echo", "card-9")
	p.sameScreen(s, rec.ID)
	// Allow sends Enter to the session, as the key a Claude prompt waits for.
	before := strings.Count(s.screen(rec.ID), "\n")
	p.click(".office-card-actions .button.primary")
	p.waitFor("allowed", `document.querySelector('.office-card-sent')?.textContent === 'Allowed.'`)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(s.screen(rec.ID), "\n") == before {
		if time.Now().After(deadline) {
			t.Fatalf("Allow did not reach the session:\n%s", s.screen(rec.ID))
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.sameScreen(s, rec.ID)
	// Esc typed into the terminal is the program's: the card stays open.
	p.do(chromedp.Focus(chromedp.CSS(".office-terminal .xterm-helper-textarea")))
	p.key(kb.Escape)
	if eval[bool](p, `document.querySelector('.office-card').hidden`) {
		t.Error("Esc in the terminal closed the card")
	}
	p.click(".office-card-actions button")
	p.waitFor("the terminal closed", `document.querySelector('.office-terminal').hidden && !document.querySelector('.term-pane')`)
}

// worldJS reads the canvas's colour at a world pixel (the middle of it).
const worldJS = `window.officeWorld = (wx, wy) => {
	const el = document.getElementById('office-canvas');
	const z = +el.dataset.zoom, dpr = devicePixelRatio;
	const d = el.getContext('2d').getImageData(Math.round((+el.dataset.x + (wx + 0.5) * z) * dpr), Math.round((+el.dataset.y + (wy + 0.5) * z) * dpr), 1, 1).data;
	return '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
};
true`

func TestDepthHidesWhatIsBehindAndScreensLightUp(t *testing.T) {
	d := startOfficeDesk(t, 0)
	// behind sits behind the first west desk (chair-11 at col 2, row 3,
	// facing down onto it); front sits in front of it (chair-12 at col 3,
	// row 5, facing up, its back to the room).
	for id, seat := range map[string]string{"behind": "chair-11", "front": "chair-12"} {
		d.start(id, "/work/mygame", "Edit", map[string]any{"file_path": "/work/mygame/a.go"})
		choose(t, d.URL, id, seat)
	}
	p := openPage(t, d.Desk, "/#/~office")
	p.waitFor("both seated", item("behind")+`?.dataset.seat === 'chair-11' && `+item("front")+`?.dataset.seat === 'chair-12' && `+item("behind")+`.dataset.pose === 'type' && `+item("front")+`.dataset.pose === 'type'`)
	eval[bool](p, worldJS)
	// World pixels: the lap of the one behind the desk (under the desk
	// top), its head (above it); the lower back of the one in the chair
	// (under the chair's back), its head; the edge of the screen the one
	// behind the desk looks at (from behind: the light round its edges).
	points := map[string][2]int{"behind lap": {36, 60}, "behind head": {38, 46}, "front back": {56, 89}, "front head": {56, 78}, "screen edge": {33, 62}}
	read := func() map[string]string {
		out := map[string]string{}
		for name, pt := range points {
			out[name] = eval[string](p, fmt.Sprintf(`officeWorld(%d, %d)`, pt[0], pt[1]))
		}
		return out
	}
	working := read()
	// Waiting for permission, the screen goes dark.
	d.as("behind", "/work/mygame", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	p.waitFor("the permission", item("behind")+`.dataset.bubble === 'permission'`)
	p.waitFor("the screen off", fmt.Sprintf(`officeWorld(33, 62) !== '%s'`, working["screen edge"]))
	for _, id := range []string{"behind", "front"} {
		d.as(id, "/work/mygame", "SessionEnd", map[string]any{"reason": "prompt_input_exit"})
	}
	p.waitForWithin("both gone", `document.querySelectorAll('#office-roster > li').length === 0`, 15*time.Second)
	empty := read()
	for _, hidden := range []string{"behind lap", "front back"} {
		if working[hidden] != empty[hidden] {
			t.Errorf("%s: %s with the agent there, %s without: it is not hidden", hidden, working[hidden], empty[hidden])
		}
	}
	for _, shown := range []string{"behind head", "front head"} {
		if working[shown] == empty[shown] {
			t.Errorf("%s: %s either way: the agent is not drawn there", shown, working[shown])
		}
	}
	if working["screen edge"] == empty["screen edge"] {
		t.Errorf("the screen edge is %s whether its agent works or not", working["screen edge"])
	}
}

// minimize minimises the tab's window (its page is hidden then) or brings
// it back.
func minimize(tb testing.TB, ctx context.Context, min bool) {
	tb.Helper()
	w, err := chromedp.CallBrowser(ctx, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: chromedp.FromContext(ctx).Target.TargetID})
	if err != nil {
		tb.Fatal(err)
	}
	state := browser.WindowStateNormal
	if min {
		state = browser.WindowStateMinimized
	}
	if _, err := chromedp.CallBrowser(ctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: w.WindowID, Bounds: &browser.Bounds{WindowState: state}}); err != nil {
		tb.Fatal(err)
	}
}

func TestAnIdleOrHiddenOfficeDrawsNothing(t *testing.T) {
	d := startOfficeDesk(t, 0)
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("idle-%d", i)
		d.start(id, "/work/mygame", "Bash", map[string]any{"command": "make"})
		d.as(id, "/work/mygame", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	}
	p := openPage(t, d.Desk, "/#/~office")
	p.waitFor("everyone seated, waiting", `document.querySelectorAll('#office-roster > li[data-pose="sit"][data-bubble="permission"]').length === 4`)
	time.Sleep(300 * time.Millisecond)
	if n := measureFrames(t, p, 1500*time.Millisecond); n != 0 {
		t.Errorf("%v frames drawn while nothing moves", n)
	}
	// At work they type, a few frames a second; hidden, not one.
	for i := 0; i < 4; i++ {
		d.as(fmt.Sprintf("idle-%d", i), "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/work/mygame/a.go"}})
	}
	p.waitFor("everyone typing", `document.querySelectorAll('#office-roster > li[data-pose="type"]').length === 4`)
	if n := measureFrames(t, p, time.Second); n < 2 || n > 12 {
		t.Errorf("%v frames a second for four typists; want a few (a frame per key stroke, not sixty)", n)
	}
	minimize(t, p.ctx, true)
	p.waitFor("the page hidden", `document.visibilityState === 'hidden'`)
	if n := measureFrames(t, p, 1500*time.Millisecond); n != 0 {
		t.Errorf("%v frames drawn while hidden", n)
	}
	minimize(t, p.ctx, false)
	p.waitFor("the page shown", `document.visibilityState === 'visible'`)
	before := eval[float64](p, `document.getElementById('office-canvas').officeStats.frames`)
	p.waitFor("drawing again", `document.getElementById('office-canvas').officeStats.frames > `+fmt.Sprint(before))
}

func TestTheOfficeOnAPhone(t *testing.T) {
	d := startOfficeDesk(t, 0)
	d.start("phone-1", "/work/mygame", "Edit", map[string]any{"file_path": "/work/mygame/store.go"})
	p := openPage(t, d.Desk, "/#/~office", pageOptions{width: 390, height: 844})
	p.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch), reload())
	p.waitReady()
	p.waitFor("the character", item("phone-1")+`?.dataset.pose === 'type'`)
	eval[bool](p, tileJS)
	if w := eval[float64](p, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("the page is %v px wide on a 390 px screen", w)
	}
	if !eval[bool](p, `devicePixelRatio === 2 && document.getElementById('office-canvas').width === 2 * document.getElementById('office-canvas').clientWidth`) {
		t.Error("the canvas does not use the screen's pixels")
	}
	// A tap on the character opens its card, docked at the bottom. The
	// camera may still be fitting the office to the new viewport when the
	// first tap lands, so the tap is made again, at the character's
	// position read again, until the card opens.
	for try := 0; ; try++ {
		x := eval[float64](p, `+`+item("phone-1")+`.dataset.x + document.getElementById('office-canvas').getBoundingClientRect().left`)
		y := eval[float64](p, `+`+item("phone-1")+`.dataset.y + document.getElementById('office-canvas').getBoundingClientRect().top`)
		p.do(chromedp.TapXY(x, y-10))
		time.Sleep(300 * time.Millisecond)
		if eval[bool](p, `!document.querySelector('.office-card').hidden`) {
			break
		}
		if try == 5 {
			p.waitFor("the card", `!document.querySelector('.office-card').hidden`)
		}
	}
	box := eval[[]float64](p, `(() => { const r = document.querySelector('.office-card').getBoundingClientRect(); const s = document.getElementById('office-stage').getBoundingClientRect(); return [r.left, r.right, r.bottom, s.bottom]; })()`)
	if box[0] > 6 || box[1] < 384 || box[3]-box[2] > 6 {
		t.Errorf("the card is at %v on the phone; want it across the bottom", box)
	}
	p.click(".office-card-close")
	p.waitFor("the card closed", `document.querySelector('.office-card').hidden`)

	// Two fingers apart zoom in; one finger pans.
	zoom := eval[float64](p, `+document.getElementById('office-canvas').dataset.zoom`)
	touch := func(typ input.DispatchTouchEventType, pts ...[2]float64) {
		var tp []*input.TouchPoint
		for i, pt := range pts {
			id := float64(i)
			tp = append(tp, &input.TouchPoint{X: pt[0], Y: pt[1], ID: &id})
		}
		p.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: tp})
			return err
		}))
	}
	cx, cy := 195.0, 420.0
	touch(input.DispatchTouchEventTypeTouchStart, [2]float64{cx - 30, cy}, [2]float64{cx + 30, cy})
	for step := 1; step <= 6; step++ {
		o := 30 + float64(step)*15
		touch(input.DispatchTouchEventTypeTouchMove, [2]float64{cx - o, cy}, [2]float64{cx + o, cy})
	}
	touch(input.DispatchTouchEventTypeTouchEnd)
	p.waitFor("zoomed in", `+document.getElementById('office-canvas').dataset.zoom > `+fmt.Sprint(zoom))
	left := eval[float64](p, `+document.getElementById('office-canvas').dataset.x`)
	touch(input.DispatchTouchEventTypeTouchStart, [2]float64{cx, cy})
	for step := 1; step <= 5; step++ {
		touch(input.DispatchTouchEventTypeTouchMove, [2]float64{cx + float64(step)*12, cy})
	}
	touch(input.DispatchTouchEventTypeTouchEnd)
	p.waitFor("panned", `Math.abs(+document.getElementById('office-canvas').dataset.x - `+fmt.Sprint(left)+` - 60) < 13`)
	if !eval[bool](p, `document.querySelector('.office-card').hidden`) {
		t.Error("a pan opened the card")
	}
}

func TestHundredsOfSessionsFillTheOfficeAndTheRoster(t *testing.T) {
	d := startOfficeDesk(t, 0)
	const n = 150
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("crowd-%03d", i)
		d.as(id, "/work/tools", "UserPromptSubmit", map[string]any{"prompt": "go"})
		d.as(id, "/work/tools", "PreToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/work/tools/a.go"}})
	}
	p := openPage(t, d.Desk, "/#/~office")
	p.waitFor("everyone", fmt.Sprintf(`document.querySelectorAll('#office-roster > li').length === %d`, n))
	counts := eval[[]int](p, `(() => {
		const all = [...document.querySelectorAll('#office-roster > li')];
		return [all.filter((li) => li.dataset.seat).length, all.filter((li) => !li.dataset.seat && li.dataset.pose === 'standread').length];
	})()`)
	if counts[0] != 12 || counts[1] != n-12 {
		t.Errorf("%d seated and %d reading standing; want 12 and %d", counts[0], counts[1], n-12)
	}
	if got := eval[string](p, `document.getElementById('office-summary').textContent`); got != "150 working" {
		t.Errorf("summary %q", got)
	}
}

// TestScreenshotsOfTheOffice takes the pictures of the office in docs/ and
// the README: agents in every state (typing, reading, asking for
// permission, waiting for input, just done, unknown, a sub-agent), a card,
// and the editor. It always checks that the office shows them; with
// -update-office-screenshots it writes the files:
//
//	go test ./web -run TestScreenshotsOfTheOffice -update-office-screenshots
func TestScreenshotsOfTheOffice(t *testing.T) {
	const lease = 3 * time.Second
	d := startOfficeDesk(t, lease)
	d.putLayout(mappedOffice())
	file := func(name string) map[string]any { return map[string]any{"file_path": "/work/mygame/" + name} }
	// The one that goes quiet: unknown once its lease is over.
	d.start("s-quiet", "/work/tools", "Edit", file("quiet.go"))
	time.Sleep(lease + 300*time.Millisecond)
	d.start("s-edit", "/work/mygame", "Edit", file("store.go"))
	d.start("s-read", "/work/mygame", "Read", file("render.go"))
	d.start("s-grep", "/work/mygame", "Grep", map[string]any{"pattern": "lava"})
	d.as("s-edit", "/work/mygame", "SubagentStart", map[string]any{"agent_id": "explore-1", "agent_type": "Explore"})
	d.start("s-perm", "/work/tools", "Bash", map[string]any{"command": "make deploy"})
	d.as("s-perm", "/work/tools", "PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make deploy"}})
	d.start("s-wait", "/work/tools", "Read", file("a.go"))
	d.as("s-wait", "/work/tools", "PostToolUse", map[string]any{"tool_name": "Read"})
	d.as("s-wait", "/work/tools", "Notification", map[string]any{"notification_type": "idle_prompt", "message": "Claude is waiting for your input"})
	d.start("s-done", "/work/tools", "Bash", map[string]any{"command": "go test ./..."})

	p := openPage(t, d.Desk, "/#/~office", pageOptions{width: 1280, height: 800})
	p.waitFor("the characters", `document.querySelectorAll('#office-roster > li').length === 8`)
	p.waitFor("seated", `[...document.querySelectorAll('#office-roster > li')].every((li) => li.dataset.pose !== 'walk')`)
	// Keep the working ones working, and end a turn, right before the picture.
	d.as("s-edit", "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": file("store.go")})
	d.as("s-read", "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Read", "tool_input": file("render.go")})
	d.as("s-grep", "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "lava"}})
	d.as("explore-1", "/work/mygame", "PreToolUse", map[string]any{"tool_name": "Glob", "tool_input": map[string]any{"pattern": "**/*.go"}})
	d.as("s-done", "/work/tools", "PostToolUse", map[string]any{"tool_name": "Bash"})
	d.as("s-done", "/work/tools", "Stop", nil)
	p.waitFor("every state on screen", `(() => {
		const st = (id) => document.querySelector('#office-roster > li[data-session="' + id + '"]')?.dataset;
		return st('s-quiet')?.state === 'unknown' && st('s-perm')?.bubble === 'permission' && st('s-wait')?.bubble === 'waiting'
			&& st('s-done')?.bubble === 'done' && st('s-edit')?.pose === 'type' && st('s-read')?.pose === 'read' && st('explore-1')?.small === 'true';
	})()`)
	time.Sleep(150 * time.Millisecond)
	checkShot(t, shot(t, p, "office.png"), 1280, 800)

	// The card of the one asking for permission.
	eval[bool](p, pixelsJS)
	x := eval[float64](p, `+`+item("s-perm")+`.dataset.x + document.getElementById('office-canvas').getBoundingClientRect().left`)
	y := eval[float64](p, `+`+item("s-perm")+`.dataset.y + document.getElementById('office-canvas').getBoundingClientRect().top`)
	p.do(chromedp.MouseClickXY(x, y-20))
	p.waitFor("the card", `!document.querySelector('.office-card').hidden`)
	time.Sleep(100 * time.Millisecond)
	checkShot(t, shot(t, p, "office-card.png"), 1280, 800)
	p.key("\x1b")

	// The editor, painting an area.
	p.click("#office-edit")
	p.waitFor("the editor", `!document.querySelector('.office-editor-box').hidden`)
	p.click(`.office-tool[data-tool="area"]`)
	time.Sleep(150 * time.Millisecond)
	eval[bool](p, tileJS)
	xx, yy := p.at(12, 9)
	p.do(chromedp.MouseEvent(chromedp.MouseMoved, xx, yy))
	time.Sleep(100 * time.Millisecond)
	checkShot(t, shot(t, p, "office-editor.png"), 1280, 800)
}

func checkShot(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %v, want %d×%d", b, w, h)
	}
}

// shot takes a screenshot of the page; with -update-office-screenshots it
// goes to docs/<name>.
func shot(t *testing.T, p *page, name string) image.Image {
	t.Helper()
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(os.TempDir(), "office-"+name)
	if *updateOfficeShots {
		out = filepath.Join("..", "docs", name)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, len(b))
	return img
}
