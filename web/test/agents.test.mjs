// The rules of the Agents view and of the agent markers, on sessions shaped
// as GET /api/agents answers them.

import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import {
  shortId, shortFolder, toolName, durationText, durationSince, activityText, doingSince, issueMark, onIssueText, sessionName,
  issueIndex, sessionTree, foldEnded, filterSessions, filterChoices, cleanAgentFilters, summaryText, attentionCount,
  stateSnapshot, attentionEntered, alertText, eventLine, stateClass, isDim, FOLD_ENDED_AFTER_MS, NO_PROJECT, ATTENTION,
} from '../static/js/agents/agent-model.js';
import { Throttle } from '../static/js/throttle.js';

const NOW = Date.parse('2026-11-30T12:00:00.000Z');
const ago = (ms) => new Date(NOW - ms).toISOString();

function session(id, state, extra = {}) {
  return { id, client: 'claude', project: 'mygame', cwd: '/home/me/src/game', state, activity: null, since: ago(5000), issues: [], ...extra };
}

test('names, folders, tools and durations read short', () => {
  assert.equal(shortId('1a2b3c4d-0000'), '1a2b');
  assert.equal(shortId('s'), 's');
  assert.equal(shortId('--'), '--');
  assert.equal(shortFolder('/home/me/src/game/web'), '…/game/web');
  assert.equal(shortFolder('/src/game'), '/src/game');
  assert.equal(shortFolder('C:\\Users\\me\\game'), '…/me/game');
  assert.equal(shortFolder(''), '');
  assert.equal(toolName('mcp__desk-gosdk__echo'), 'desk-gosdk: echo');
  assert.equal(toolName('Bash'), 'Bash');
  assert.equal(durationText(8400), '8s');
  assert.equal(durationText(184000), '3m 04s');
  assert.equal(durationText(2 * 3600e3 + 5 * 60e3), '2h 05m');
  assert.equal(durationText(3 * 86400e3 + 4 * 3600e3), '3d 4h');
  assert.equal(durationText(-5), '0s');
  assert.equal(durationSince(ago(61000), NOW), '1m 01s');
  assert.equal(durationSince('not a time', NOW), '');
});

test('what a session does is said once, beside its state', () => {
  const working = session('w', 'working', { activity: { kind: 'editing', label: 'Editing store.go', since: ago(2000) } });
  assert.equal(activityText(working), 'Editing store.go');
  assert.equal(doingSince(working), working.activity.since, 'a working session counts from its current tool');
  const asking = session('p', 'needs_permission', { permission: { tool: 'Bash', label: 'Bash: make' } });
  assert.equal(activityText(asking), 'Bash: make');
  assert.equal(doingSince(asking), asking.since);
  assert.equal(activityText(session('p', 'needs_permission', { permission: { tool: 'mcp__desk__create_issue' } })), 'desk: create_issue');
  assert.equal(activityText(session('u', 'unknown', { note: 'no event for 10 minutes' })), 'no event for 10 minutes');
  assert.equal(activityText(session('d', 'done')), '');
});

test('an issue names the session on it the way the owner reads it', () => {
  const s = session('1a2b-ffff', 'working', { activity: { label: 'Editing store.go' } });
  assert.equal(sessionName(s) + onIssueText(s), 'claude (session 1a2b) is working on this: Editing store.go');
  assert.deepEqual(issueMark(s), { id: '1a2b-ffff', state: 'working', text: 'claude · Editing store.go', title: 'claude (session 1a2b) is working on this: Editing store.go' });
  assert.equal(issueMark(session('x', 'needs_permission')).text, 'claude · needs permission');
  assert.equal(issueMark(session('x', 'waiting_input')).text, 'claude · waiting for input');
  assert.equal(issueMark(session('x', 'teleporting')).state, 'unknown', 'a state the page does not know reads as unknown');
  assert.equal(stateClass('teleporting'), 'ag-unknown');
  assert.ok(isDim('ended') && isDim('unknown') && !isDim('working'));
});

test('the issue index keeps live sessions only, the ones that need the owner first', () => {
  const index = issueIndex([
    session('a', 'working', { issues: ['MG-1', 'MG-2'] }),
    session('b', 'ended', { issues: ['MG-1'] }),
    session('c', 'needs_permission', { issues: ['MG-1'] }),
  ]);
  assert.deepEqual(index.get('MG-1').map((s) => s.id), ['c', 'a']);
  assert.deepEqual(index.get('MG-2').map((s) => s.id), ['a']);
  assert.equal(index.has('MG-3'), false);
});

test('sub-agents nest under their session, and a stuck one lifts its family', () => {
  const tree = sessionTree([
    session('top', 'working'),
    session('other', 'waiting_input'),
    session('child', 'needs_permission', { parent: 'top' }),
    session('grandchild', 'working', { parent: 'child' }),
    session('orphan', 'done', { parent: 'gone' }),
  ]);
  assert.deepEqual(tree.map((n) => [n.session.id, n.children.map((c) => c.id)]), [
    ['top', ['child', 'grandchild']],
    ['other', []],
    ['orphan', []],
  ]);
});

test('parents that name each other never hide a session', () => {
  const tree = sessionTree([session('a', 'working', { parent: 'b' }), session('b', 'working', { parent: 'a' })]);
  const ids = tree.flatMap((n) => [n.session.id, ...n.children.map((c) => c.id)]);
  assert.deepEqual(ids.sort(), ['a', 'b']);
});

test('sessions that ended a while ago fold away; recent ones and live families stay', () => {
  const old = ago(FOLD_ENDED_AFTER_MS + 1000);
  const tree = sessionTree([
    session('live', 'working'),
    session('just-ended', 'ended', { since: ago(60000) }),
    session('long-ended', 'ended', { since: old }),
    session('ended-parent', 'ended', { since: old }),
    session('running-child', 'working', { parent: 'ended-parent' }),
  ]);
  const { shown, folded } = foldEnded(tree, NOW);
  assert.deepEqual(shown.map((n) => n.session.id), ['live', 'ended-parent', 'just-ended']);
  assert.deepEqual(folded.map((n) => n.session.id), ['long-ended']);
});

test('filters pick by project (or none), state (or both waiting states) and client', () => {
  const all = [
    session('a', 'needs_permission'),
    session('b', 'working', { project: '', client: 'codex' }),
    session('c', 'waiting_input', { project: 'tools' }),
    session('d', 'done'),
  ];
  const ids = (f) => filterSessions(all, { project: '', state: '', client: '', ...f }).map((s) => s.id);
  assert.deepEqual(ids({}), ['a', 'b', 'c', 'd']);
  assert.deepEqual(ids({ project: 'mygame' }), ['a', 'd']);
  assert.deepEqual(ids({ project: NO_PROJECT }), ['b']);
  assert.deepEqual(ids({ state: ATTENTION }), ['a', 'c']);
  assert.deepEqual(ids({ state: 'working' }), ['b']);
  assert.deepEqual(ids({ client: 'codex' }), ['b']);
  assert.deepEqual(filterChoices(all, { project: 'gone', state: '', client: '' }), { projects: ['gone', 'mygame', 'tools'], clients: ['claude', 'codex'], unlinked: true });
  assert.deepEqual(cleanAgentFilters({ project: 3, state: 'busy', client: 'codex' }), { project: '', state: '', client: 'codex' });
  assert.deepEqual(cleanAgentFilters('junk'), { project: '', state: '', client: '' });
});

test('the summary counts every state present, in attention order', () => {
  const all = [session('a', 'working'), session('b', 'needs_permission'), session('c', 'working'), session('d', 'waiting_input')];
  assert.equal(summaryText(all), '1 needs permission · 1 waiting for input · 2 working');
  assert.equal(summaryText([]), 'No sessions');
  assert.equal(attentionCount(all), 2);
});

test('alerts fire for sessions that came to need their owner, once', () => {
  const first = [session('a', 'working'), session('b', 'waiting_input')];
  assert.deepEqual(attentionEntered(null, first), [], 'the first load alerts about nothing');
  const before = stateSnapshot(first);
  const next = [
    session('a', 'needs_permission', { since: ago(10) }),
    session('b', 'waiting_input'),
    session('new-asking', 'needs_permission'),
    session('new-waiting', 'waiting_input'),
  ];
  assert.deepEqual(attentionEntered(before, next).map((s) => s.id), ['a', 'new-asking']);
  // Asked again after a quick approval: a new since, a new alert.
  const again = [session('a', 'needs_permission', { since: ago(1) })];
  assert.deepEqual(attentionEntered(stateSnapshot(next), again).map((s) => s.id), ['a']);
  assert.deepEqual(attentionEntered(stateSnapshot(again), again), []);
});

test('an alert says who needs what, and where', () => {
  const s = session('a', 'needs_permission', { permission: { label: 'Bash: make' } });
  assert.deepEqual(alertText(s), { title: 'claude needs your permission', body: 'Bash: make\nmygame · …/src/game' });
  assert.deepEqual(alertText(session('b', 'waiting_input', { project: '' })), { title: 'claude is waiting for your input', body: '…/src/game' });
});

test('timeline lines for every event kind', () => {
  assert.deepEqual(eventLine({ kind: 'permission_request', tool: 'Bash', input: 'rm -rf build' }), { text: 'Asked permission for Bash: rm -rf build', tone: 'needs_permission' });
  assert.equal(eventLine({ kind: 'tool_start', tool: 'mcp__desk__list_issues' }).text, 'Started desk: list_issues');
  assert.equal(eventLine({ kind: 'session_start', reason: 'resume' }).text, 'Session started (resume)');
  assert.equal(eventLine({ kind: 'session_start', reason: 'startup' }).text, 'Session started');
  assert.equal(eventLine({ kind: 'tool_failed', tool: 'Edit', message: 'no such file' }).tone, 'failed');
  assert.equal(eventLine({ kind: 'stop' }).tone, 'done');
  assert.equal(eventLine({ kind: 'from_the_future', name: 'Warp' }).text, 'Warp');
  for (const kind of ['session_end', 'prompt', 'busy', 'tool_end', 'tool_progress', 'permission_result', 'notification_permission',
    'notification_idle', 'message', 'stop_failed', 'interrupt', 'subagent_start', 'subagent_stop', 'compact', 'heartbeat', 'notice']) {
    assert.ok(eventLine({ kind }).text, kind);
  }
});

test('the throttle merges a burst into one run, spaces runs, and never runs two at once', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  try {
    let runs = 0;
    let finish;
    const throttle = new Throttle(() => {
      runs++;
      return new Promise((resolve) => { finish = resolve; });
    }, { wait: 30, gap: 250 });
    for (let i = 0; i < 20; i++) throttle.request();
    mock.timers.tick(29);
    assert.equal(runs, 0, 'waits for the burst');
    mock.timers.tick(1);
    assert.equal(runs, 1, 'one run for twenty requests');
    throttle.request();
    mock.timers.tick(1000);
    assert.equal(runs, 1, 'no second run while the first is under way');
    finish();
    await Promise.resolve();
    await Promise.resolve();
    mock.timers.tick(30);
    assert.equal(runs, 2, 'the request made meanwhile runs after it');
    finish();
    await Promise.resolve();
    await Promise.resolve();
    throttle.request();
    mock.timers.tick(30);
    assert.equal(runs, 2, 'runs are at least the gap apart');
    mock.timers.tick(220);
    assert.equal(runs, 3);
    finish();
  } finally {
    mock.timers.reset();
  }
});
