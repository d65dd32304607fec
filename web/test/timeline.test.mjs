import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTimeline, describeActivity, partsText, mergedCard } from '../static/js/timeline-model.js';
import { parseUnifiedDiff, diffStats } from '../static/js/diff.js';
import { issuePrompt } from '../static/js/copy-prompt.js';

const act = (id, at, action, detail, extra = {}) => ({ id, actor: 'claude', action, detail, created_at: at, merged_from: null, ...extra });

test('comments and activity interleave by time; merged-in entries keep their origin', () => {
  const tl = buildTimeline({
    comments: [{ id: 1, author: 'owner', text: 'hi', created_at: '2026-01-01T10:00:02.000Z', merged_from: 'MG-9' }],
    activity: [act(5, '2026-01-01T10:00:01.000Z', 'created', { status: 'reported' }), act(6, '2026-01-01T10:00:03.000Z', 'merged', { from: 'MG-9', title: 'Dup' })],
  });
  assert.deepEqual(tl.map((e) => [e.type, e.key]), [['activity', 'a5'], ['comment', 'c1'], ['merged', 'a6']]);
  assert.equal(tl[1].mergedFrom, 'MG-9');
  assert.equal(mergedCard(tl[2].activity).title, 'Dup');
});

test('three or more build publications in a row fold into one entry', () => {
  const builds = [1, 2, 3].map((n) => act(n, `2026-01-01T10:00:0${n}.000Z`, 'build', { number: n, label: `n${n}` }));
  const tl = buildTimeline({ comments: [], activity: [...builds, act(9, '2026-01-01T10:00:09.000Z', 'status', { from: 'to_check', to: 'passed' })] });
  assert.equal(tl.length, 2);
  assert.equal(tl[0].type, 'builds');
  assert.equal(tl[0].runs.length, 3);
});

test('activity sentences read naturally and accept detail as JSON text', () => {
  assert.equal(partsText(describeActivity(act(1, '', 'status', '{"from":"to_check","to":"failed","reason":"verdict"}'))), 'moved it from To check to Failed by a verdict');
  assert.equal(partsText(describeActivity(act(1, '', 'command_delivered', { command: '/goto 1', client: 'game' }))), 'game picked up /goto 1');
  assert.equal(partsText(describeActivity(act(1, '', 'plan', { op: 'step', index: 2, text: 'Clamp', from: 'todo', to: 'done', commit: 'abc', done: 2, total: 3 }))), 'step 2 “Clamp”: todo → done at abc (2/3)');
  assert.equal(partsText(describeActivity(act(1, '', 'merged_into', { into: 'MG-4' }))), 'merged it into MG-4');
  assert.equal(partsText(describeActivity(act(1, '', 'something_new', {}))), 'something new');
  assert.equal(partsText(describeActivity(act(1, '', 'edited', 'not json'))), 'edited it');
});

test('unified diffs split into added, removed and context lines', () => {
  const lines = parseUnifiedDiff('--- v1\n+++ v2\n@@ -1,2 +1,2 @@\n ## State\n-old\n+new\n');
  assert.deepEqual(lines.map((l) => l.type), ['meta', 'meta', 'hunk', 'ctx', 'del', 'add']);
  assert.deepEqual(diffStats(lines), { added: 1, removed: 1 });
});

test('copy as prompt carries the issue, its location, plan and comments', () => {
  const text = issuePrompt({
    id: 'MG-4', title: 'Lava tips', kind: 'check', status: 'to_check', priority: 'p1', area: 'terrain', tags: [], body: 'Round them.',
    location: { commands: [{ command: '/goto 1 2 3', label: 'rift' }], seed: 7, place: 'Ember Rift' },
    plan: { steps: [{ text: 'Round', state: 'done', commit: 'abc' }, { text: 'Clamp', state: 'todo' }], verification: 'shot 12' },
    comments: [{ author: 'owner', text: 'still\nsquare', verdict: 'failed' }],
  }, { name: 'MyGame' });
  assert.match(text, /^# MG-4: Lava tips\n/);
  assert.match(text, /1\. `\/goto 1 2 3 seed 7` \(rift\)/);
  assert.match(text, /- \[x\] Round \(abc\)\n- \[ \] Clamp/);
  assert.match(text, /- owner \[STILL BROKEN\]: still square/);
});
