import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuickAdd, describeQuickAdd } from '../static/js/quick-add.js';

test('markers anywhere set priority, area, kind and tags; the rest is the title', () => {
  const r = parseQuickAdd('Lava tips are square !p1 @lava_flows +check #terrain #visual');
  assert.deepEqual(r, { title: 'Lava tips are square', priority: 'p1', area: 'lava flows', kind: 'check', tags: ['terrain', 'visual'] });
  assert.equal(describeQuickAdd(r), 'check · p1 · area lava flows · #terrain · #visual');
});

test('look-alike words stay in the title', () => {
  const r = parseQuickAdd('Fix #123 crash !p9 +feature with C# code');
  assert.equal(r.title, 'Fix #123 crash !p9 +feature with C# code');
  assert.deepEqual(r.tags, []);
  assert.equal(r.priority, undefined);
  assert.equal(r.kind, undefined);
});

test('markers alone are refused with a message', () => {
  const r = parseQuickAdd('  !p0 +bug ');
  assert.equal(r.title, '');
  assert.match(r.error, /title/);
});

test('repeated tags are kept once, case-insensitively', () => {
  assert.deepEqual(parseQuickAdd('x #UI #ui').tags, ['UI']);
});
