package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/agent/intake"
	"desk/agent/live"
	deskhttp "desk/http"
	"desk/internal/testdesk"
	"desk/link"
	"desk/sqlite"
)

// The agent tests run a desk that tracks agent sessions, as desk serve
// does, and post real hook payloads to it the way the agents' hooks do.

// The captured hook runs of real Claude Code and Codex sessions.
const (
	claudeRun     = "../agent/testdata/hooks/claude-code-2.1.197-interactive.jsonl"
	codexRun      = "../agent/testdata/hooks/codex-0.171.0-exec.jsonl"
	claudeSession = "547f7264-e9b6-4b28-a037-7b11995f935f"
	codexSession  = "01a22c56-d2b2-78b0-9829-98271ef98ba1"
	claudeFolder  = "/home/user/cc/proj"
)

// agentDesk is a running desk with agent tracking and the sample project.
type agentDesk struct {
	*testdesk.Desk
	t     *testing.T
	token string
	runs  map[string]map[string]json.RawMessage // client → event name → its captured payload
}

func startAgentDesk(t *testing.T) (*agentDesk, sample) {
	t.Helper()
	dir := t.TempDir()
	desk := testdesk.StartWith(t, dir, func(db *sqlite.DB) deskhttp.Options {
		return deskhttp.Options{Agents: live.New(db, live.Options{DataDir: dir, Tick: 20 * time.Millisecond})}
	})
	// Hooks read the token from the data folder, as desk hook event does.
	token, err := os.ReadFile(filepath.Join(dir, intake.TokenName))
	if err != nil {
		t.Fatal(err)
	}
	d := &agentDesk{
		Desk:  desk,
		t:     t,
		token: strings.TrimSpace(string(token)),
		runs:  map[string]map[string]json.RawMessage{"claude": readRun(t, claudeRun), "codex": readRun(t, codexRun)},
	}
	return d, seedSample(t, desk.DB)
}

// readRun reads a captured hook run: each hook's payload by event name
// (the first of each name).
func readRun(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if _, seen := out[line.Event]; !seen {
			out[line.Event] = line.Payload
		}
	}
	return out
}

// hook posts a payload to the server's hook intake, as a client's hook does.
func (d *agentDesk) hook(client, payload string) {
	d.t.Helper()
	req, err := http.NewRequest("POST", d.URL+"/api/hooks/"+client, strings.NewReader(payload))
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set(intake.HeaderToken, d.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		d.t.Fatalf("POST /api/hooks/%s: %s", client, res.Status)
	}
}

// replay posts the captured payloads of the named events, in that order.
func (d *agentDesk) replay(client string, events ...string) {
	d.t.Helper()
	for _, ev := range events {
		p, ok := d.runs[client][ev]
		if !ok {
			d.t.Fatalf("the %s run has no %s", client, ev)
		}
		d.hook(client, string(p))
	}
}

// claudeHook posts a Claude Code hook of the captured session with fields
// of its own, for tools the captured run did not use.
func (d *agentDesk) claudeHook(event string, fields map[string]any) {
	d.t.Helper()
	m := map[string]any{"session_id": claudeSession, "hook_event_name": event, "cwd": claudeFolder}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		d.t.Fatal(err)
	}
	d.hook("claude", string(b))
}

// sameColour is a JavaScript test that an element's computed colour
// property is the theme colour named by a CSS variable.
func sameColour(element, property, variable string) string {
	return `(() => {
		const el = ` + element + `;
		const probe = document.createElement('span');
		probe.style.color = 'var(` + variable + `)';
		document.body.append(probe);
		const want = getComputedStyle(probe).color;
		probe.remove();
		return !!el && getComputedStyle(el).` + property + ` === want;
	})()`
}

// agentItems lists the sessions of the Agents view, in order, as
// "client state: activity".
const agentItems = `[...document.querySelectorAll('.agent-list:not(.folded) > .agent-item')].map((li) =>
	li.querySelector('.agent-who strong').textContent + ' ' + li.querySelector('.agent-state').textContent + ': ' + li.querySelector('.agent-activity').textContent)`

func TestAgentsViewListsSessionsLiveInAttentionOrder(t *testing.T) {
	d, _ := startAgentDesk(t)
	// The Claude session's folder belongs to the sample project.
	if err := link.Write(d.DataDir, claudeFolder, "mygame"); err != nil {
		t.Fatal(err)
	}
	d.replay("claude", "SessionStart", "UserPromptSubmit", "PreToolUse")
	d.claudeHook("SubagentStart", map[string]any{"agent_id": "explorer-1", "agent_type": "Explore"})
	// Of two working sessions, the one heard from last comes first.
	d.replay("codex", "SessionStart", "UserPromptSubmit", "PreToolUse")

	p := openPage(t, d.Desk, "/#/mygame")
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	p.do(focusList())
	p.key("a")
	p.waitFor("the Agents view", `location.hash === '#/~agents' && document.querySelectorAll('.agent-list > .agent-item').length === 2`)
	got := eval[[]string](p, agentItems)
	want := []string{"codex Working: Running: echo from-codex-shell", "claude Working: Using desk-gosdk: echo"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sessions %q, want %q", got, want)
	}
	where := eval[string](p, `document.querySelector('.agent-item[data-session="`+claudeSession+`"] .agent-where').textContent`)
	if !strings.Contains(where, "Ember Isles") || !strings.Contains(where, "…/cc/proj") {
		t.Errorf("the Claude session's place reads %q", where)
	}
	if got := eval[string](p, `document.querySelector('.agent-item[data-session="`+claudeSession+`"] .agent-children .agent-item')?.dataset.session || ''`); got != "explorer-1" {
		t.Errorf("the sub-agent is not nested under its session (%q)", got)
	}
	// The duration counts up by itself.
	first := eval[string](p, `document.querySelector('.agent-item .agent-since').textContent`)
	p.waitFor("the duration to tick", `document.querySelector('.agent-item .agent-since').textContent !== `+jsString(first))

	// A permission request of the session in second place puts it on top,
	// in its colour, within a second.
	d.replay("claude", "PermissionRequest")
	asked := time.Now()
	p.waitForWithin("claude needing permission on top", `(() => {
		const li = document.querySelector('.agent-list > .agent-item');
		return li?.dataset.session === '`+claudeSession+`' && li.classList.contains('ag-needs_permission');
	})()`, time.Second)
	t.Logf("the permission request showed %v after the hook answered", time.Since(asked).Round(time.Millisecond))
	if !eval[bool](p, sameColour(`document.querySelector('.agent-item.ag-needs_permission > .agent-link')`, "borderLeftColor", "--danger")) {
		t.Error("the session needing permission is not in the needs-permission colour")
	}
	if got := eval[[]string](p, agentItems)[0]; got != "claude Needs permission: desk-gosdk: echo" {
		t.Errorf("the top session reads %q", got)
	}
	p.waitFor("the count on the Agents link", `document.querySelector('.views-nav .nav-count')?.textContent === '1'`)

	// Opening a session (by keyboard: j to it, Enter) shows its timeline,
	// newest first, and it follows live.
	p.key("j")
	p.waitFor("the focus on the first session", `document.activeElement?.dataset.session === '`+claudeSession+`'`)
	p.key("\r")
	p.waitFor("the session's timeline", `location.hash === '#/~agents/`+claudeSession+`' && document.querySelectorAll('.agent-timeline .agent-event').length >= 4`)
	events := eval[[]string](p, `[...document.querySelectorAll('.agent-timeline .agent-event-text')].map((e) => e.textContent)`)
	wantEvents := []string{"Asked permission for desk-gosdk: echo", "Started desk-gosdk: echo", "Prompt submitted: a new turn", "Session started"}
	if strings.Join(events, "|") != strings.Join(wantEvents, "|") {
		t.Errorf("timeline %q, want %q", events, wantEvents)
	}
	d.replay("claude", "PostToolUse", "Stop")
	p.waitFor("the new events", `document.querySelector('.agent-timeline .agent-event-text')?.textContent === 'Finished its turn'`)
	p.waitFor("claude done, below the working session", `document.querySelector('.agent-list > .agent-item:last-child')?.dataset.session === '`+claudeSession+`'
		&& document.querySelector('.agent-now strong')?.textContent === 'Done'`)

	// Esc closes the session; an ended session is dimmed.
	p.key("\x1b")
	p.waitFor("the session closed", `location.hash === '#/~agents' && document.querySelector('.agent-session').hidden`)
	d.replay("codex", "PostToolUse", "Stop", "SessionEnd")
	p.waitFor("the ended session dimmed", `document.querySelector('.agent-item[data-session="`+codexSession+`"]')?.classList.contains('dim')`)

	// The filters pick sessions, and are remembered.
	eval[bool](p, `(() => { const s = document.querySelector('select[aria-label="Client"]'); s.value = 'codex'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.waitFor("only codex", `document.querySelectorAll('.agent-item').length === 1 && !!document.querySelector('.agent-item[data-session="`+codexSession+`"]')`)
	p.do(reload())
	p.waitFor("the filter after a reload", `document.querySelector('select[aria-label="Client"]')?.value === 'codex' && document.querySelectorAll('.agent-item').length === 1`)

	// a again: back to the issues.
	p.waitReady()
	eval[bool](p, `(document.activeElement?.blur(), true)`)
	p.key("a")
	p.waitFor("the issues again", `location.hash === '#/mygame' && getComputedStyle(document.getElementById('list-pane')).display !== 'none' && document.getElementById('agents-pane').hidden`)
}

func TestTheAgentOnAnIssueShowsOnItsRowAndDetail(t *testing.T) {
	ctx := context.Background()
	d, s := startAgentDesk(t)
	d.replay("claude", "SessionStart", "UserPromptSubmit")
	d.claudeHook("PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": claudeFolder + "/store.go"}})

	p := openPage(t, d.Desk, "/#/mygame/"+s.Report)
	p.waitDetail(s.Report)
	p.waitRow(s.Plain)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	if n := eval[int](p, `document.querySelectorAll('.agent-mark').length`); n != 0 {
		t.Fatalf("%d agent markers before any agent touched an issue", n)
	}
	issueReads := `performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.startsWith('/api/issues/')).length`
	reads := eval[int](p, issueReads)

	// The agent touches the open issue through desk's MCP tools.
	if err := d.DB.AgentTouched(ctx, "claude", claudeSession, claudeFolder, s.Report); err != nil {
		t.Fatal(err)
	}
	row := `document.querySelector('[data-id="` + s.Report + `"] .agent-mark')`
	p.waitFor("the marker on the row", row+`?.textContent === 'claude · Editing store.go'`)
	p.waitFor("the agent in the detail", `document.querySelector('.working-agents:not([hidden])')?.textContent.startsWith('claude (session 547f) is working on this: Editing store.go')`)
	if !eval[bool](p, sameColour(row, "color", "--accent")) {
		t.Error("the working marker is not in the working colour")
	}
	if got := eval[string](p, `document.querySelector('.working-agents a').getAttribute('href')`); got != "#/~agents/"+claudeSession {
		t.Errorf("the agent links to %q", got)
	}

	// It asks for a permission: row and detail follow, live.
	d.claudeHook("PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	p.waitFor("the marker asking", row+`?.textContent === 'claude · needs permission' && `+row+`.classList.contains('ag-needs_permission')`)
	p.waitFor("the detail asking", `document.querySelector('.working-agents')?.textContent.startsWith('claude (session 547f) needs your permission: Bash: make')`)
	// Agent changes redraw the markers from the agent list; no issue is read again for them.
	if got := eval[int](p, issueReads); got != reads {
		t.Errorf("agent changes read issues %d times", got-reads)
	}

	// A write to another issue re-reads it as a list row, not as a whole issue.
	writeFromProcess(t, d.DataDir, "title", s.Plain, "Fog pops in at dawn")
	p.waitFor("the renamed row", `document.querySelector('[data-id="`+s.Plain+`"] .row-title')?.textContent === 'Fog pops in at dawn'`)
	if !eval[bool](p, `performance.getEntriesByType('resource').some((e) => e.name.includes('/issues?id=`+s.Plain+`&summary=1'))`) {
		t.Error("the changed row was not read through the id filter")
	}
	if got := eval[int](p, issueReads); got != reads {
		t.Errorf("a change of a row that is not open read whole issues %d times", got-reads)
	}

	// After a reload the detail shows the agent from the issue's own agents field.
	p.do(reload())
	p.waitDetail(s.Report)
	p.waitFor("the agent after a reload", `document.querySelector('.working-agents')?.textContent.startsWith('claude (session 547f) needs your permission')`)
	p.waitFor("the marker after a reload", row+`?.textContent === 'claude · needs permission'`)
	// The session ends: it works on nothing any more.
	d.replay("claude", "SessionEnd")
	p.waitFor("the marker gone", `!`+row+` && document.querySelector('.working-agents').hidden`)
}

// Stand-ins for the browser's notifications and audio, installed before the
// page's scripts: the test sees what the page asked for.
const alertStubs = `
	window.alertLog = { asked: 0, shown: [], tones: 0 };
	window.Notification = class {
		static permission = localStorage.getItem('test.notify') || 'default';
		static requestPermission() {
			window.alertLog.asked++;
			localStorage.setItem('test.notify', 'granted');
			window.Notification.permission = 'granted';
			return Promise.resolve('granted');
		}
		constructor(title, options) { window.alertLog.shown.push(title + ' / ' + (options?.body || '')); }
		close() {}
	};
	window.AudioContext = class {
		constructor() { this.state = 'running'; this.currentTime = 0; this.destination = {}; }
		resume() { return Promise.resolve(); }
		createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect() {} }; }
		createOscillator() { return { frequency: {}, connect() {}, start() { window.alertLog.tones++; }, stop() {} }; }
	};
`

func TestAgentAlertsAreOptInAndRemembered(t *testing.T) {
	d, _ := startAgentDesk(t)
	d.replay("claude", "SessionStart", "UserPromptSubmit", "PreToolUse")
	p := openPage(t, d.Desk, "/#/~agents", pageOptions{width: 1400, height: 900, beforeLoad: alertStubs})
	p.waitFor("the session", `document.querySelectorAll('.agent-item').length === 1`)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	sound, notify := `input[name="agent-sound"]`, `input[name="agent-notify"]`
	if eval[bool](p, `document.querySelector('`+sound+`').checked || document.querySelector('`+notify+`').checked || window.alertLog.asked > 0`) {
		t.Fatal("an alert is on, or permission was asked, before the owner turned one on")
	}
	// Nothing rings while they are off.
	d.replay("claude", "PermissionRequest")
	p.waitFor("the permission request", `document.querySelector('.agent-item')?.classList.contains('ag-needs_permission')`)
	time.Sleep(100 * time.Millisecond)
	if got := eval[string](p, `JSON.stringify(window.alertLog)`); got != `{"asked":0,"shown":[],"tones":0}` {
		t.Fatalf("alerts while off: %s", got)
	}
	d.replay("claude", "PostToolUse")

	// The sound plays once as it is turned on; notifications ask the browser then.
	p.click(sound)
	p.waitFor("the sample chime", `window.alertLog.tones === 2`)
	p.click(notify)
	p.waitFor("the permission asked", `window.alertLog.asked === 1 && document.querySelector('`+notify+`').checked`)

	p.do(reload())
	p.waitFor("the session after a reload", `document.querySelectorAll('.agent-item').length === 1`)
	p.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	if !eval[bool](p, `document.querySelector('`+sound+`').checked && document.querySelector('`+notify+`').checked && window.alertLog.asked === 0`) {
		t.Fatalf("after a reload: %s", eval[string](p, `JSON.stringify(window.alertLog)`))
	}
	// The page may sound only after the owner used it.
	p.click(".agents-summary")
	d.claudeHook("PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}})
	p.waitFor("the notification", `window.alertLog.shown.length === 1`)
	if got := eval[string](p, `window.alertLog.shown[0]`); got != "claude needs your permission / Bash: make\n…/cc/proj" {
		t.Errorf("notification %q", got)
	}
	p.waitFor("the chime", `window.alertLog.tones === 2`)

	p.click(notify)
	p.waitFor("notifications off", `localStorage.getItem('desk.agents.notify') === null && localStorage.getItem('desk.agents.sound') === 'true'`)
}
