import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  diffFiles, blameRuns, intentLink, overlapCard, crumbs, parentPath, sortEntries, textOf, numberedLines, authorName, firstLine,
} from '../static/js/code/code-model.js';
import { describeActivity, partsText } from '../static/js/timeline-model.js';

const projects = [{ slug: 'mygame', prefix: 'MG' }, { slug: 'desk', prefix: 'DK' }];

test('an intent links to its issue in the project of its prefix, or to nothing', () => {
  assert.deepEqual(intentLink('MG-12', projects), { id: 'MG-12', href: '#/mygame/MG-12' });
  assert.deepEqual(intentLink('dk-3', projects), { id: 'DK-3', href: '#/desk/DK-3' });
  assert.deepEqual(intentLink('ZZ-9', projects), { id: 'ZZ-9', href: null });
});

test('a diff splits by file, with its status, its counts and the numbers of its lines', () => {
  const text = [
    'diff --git a/src/a.txt b/src/a.txt',
    '--- a/src/a.txt',
    '+++ b/src/a.txt',
    '@@ -1,3 +1,3 @@',
    '-1',
    '+ONE',
    ' 2',
    ' 3',
    'diff --git a/new.md b/new.md',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/new.md',
    '@@ -0,0 +1 @@',
    '+# new',
    'diff --git a/old.bin b/old.bin',
    'deleted file mode 100644',
    'Binary files a/old.bin and /dev/null differ',
    '',
  ].join('\n');
  const files = diffFiles(text);
  assert.deepEqual(files.map((f) => [f.path, f.status, f.binary, f.added, f.removed]), [
    ['src/a.txt', 'modified', false, 1, 1], ['new.md', 'added', false, 1, 0], ['old.bin', 'deleted', true, 0, 0]]);
  assert.deepEqual(files[0].lines.map((l) => [l.type, l.old, l.new, l.text]), [
    ['hunk', null, null, '@@ -1,3 +1,3 @@'], ['del', 1, null, '1'], ['add', null, 1, 'ONE'], ['ctx', 2, 2, '2'], ['ctx', 3, 3, '3']]);
  assert.deepEqual(files[1].lines.map((l) => [l.type, l.new]), [['hunk', null], ['add', 1]]);
});

test('blame lines of one change make one run', () => {
  const l = (line, change) => ({ line, change, author: change.toUpperCase(), time: '2026-12-01T00:00:00.000Z', text: `l${line}` });
  const runs = blameRuns([l(1, 'a'), l(2, 'a'), l(3, 'b'), l(4, 'a')]);
  assert.deepEqual(runs.map((r) => [r.change, r.lines.map((x) => x.line)]), [['a', [1, 2]], ['b', [3]], ['a', [4]]]);
  assert.deepEqual(blameRuns([]), []);
});

test('an overlap card names both authors and what they both change', () => {
  const side = (change, author) => ({ workspace: `ws-${author}`, change, author, intents: [], paths: ['src/a.ts'], sent_at: '2026-12-01T00:00:00.000Z' });
  const one = overlapCard({ a: side('c1', 'agent-one'), b: side('c2', 'Ann <ann@example.com>'), shared: ['src/a.ts'] });
  assert.equal(one.title, 'agent-one and Ann both change src/a.ts');
  assert.equal(one.key, 'c1/c2');
  const many = overlapCard({ a: side('c1', 'x'), b: side('c2', 'y'), shared: ['a', 'b', 'c'] });
  assert.equal(many.title, 'x and y both change 3 paths');
  assert.equal(overlapCard({ a: side('c1', 'x'), b: side('c2', 'x'), shared: ['a'] }).title, 'Two open changes of x touch a');
});

test('paths: crumbs from the root, the parent folder, folders before files', () => {
  assert.deepEqual(crumbs('src/game/a.go'), [{ name: 'root', path: '' }, { name: 'src', path: 'src' }, { name: 'game', path: 'src/game' }, { name: 'a.go', path: 'src/game/a.go' }]);
  assert.deepEqual(crumbs(''), [{ name: 'root', path: '' }]);
  assert.equal(parentPath('src/game/a.go'), 'src/game');
  assert.equal(parentPath('a.go'), '');
  assert.deepEqual(sortEntries([{ name: 'a', type: 'blob' }, { name: 'b', type: 'tree' }, { name: 'c', type: 'blob' }]).map((e) => e.name), ['b', 'a', 'c']);
});

test('bytes are text only when they are UTF-8 with no NUL; lines are numbered without an empty last one', () => {
  const enc = new TextEncoder();
  assert.equal(textOf(enc.encode('héllo\n')), 'héllo\n');
  assert.equal(textOf(new Uint8Array([0x68, 0, 0x69])), null);
  assert.equal(textOf(new Uint8Array([0xff, 0xfe])), null);
  assert.deepEqual(numberedLines('a\nb\n'), [{ n: 1, text: 'a' }, { n: 2, text: 'b' }]);
  assert.deepEqual(numberedLines('a'), [{ n: 1, text: 'a' }]);
});

test('names and messages: an imported author drops the email, a message its body', () => {
  assert.equal(authorName('Ann Lee <ann@example.com>'), 'Ann Lee');
  assert.equal(authorName('agent-7'), 'agent-7');
  assert.equal(firstLine('fix: the jump\n\nbecause'), 'fix: the jump');
  assert.equal(firstLine(''), '(no message)');
});

test('a landing on an issue\'s timeline names the change, linked to the Code view, the repository and the message', () => {
  const change = 'ab'.repeat(32);
  const parts = describeActivity({ action: 'landed', actor: 'agent-1', detail: JSON.stringify({ repo: 'acme/game', seq: 3, change, submitted: change, rebased: true, message: 'jump: land on the ledge' }) });
  assert.equal(partsText(parts), `landed ${change.slice(0, 12)} on acme/game main (merged on the server): jump: land on the ledge`);
  assert.equal(parts[1].href, `#/~code/acme/game/change/${change}`);
});
