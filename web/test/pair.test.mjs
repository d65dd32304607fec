import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickPair, chatEntry, mergeEntries, needsOwnersWord, memberLine, PHASES } from '../static/js/pair/pair-model.js';
import { seated } from '../static/js/pair/pair-terminals.js';

test('the view opens the pair the address names, else the newest live one', () => {
  const pairs = [{ id: 'p3', status: 'stopped' }, { id: 'p2', status: 'live' }, { id: 'p1', status: 'live' }];
  assert.equal(pickPair(pairs, 'p1').id, 'p1');
  assert.equal(pickPair(pairs, null).id, 'p2');
  assert.equal(pickPair(pairs, 'p9').id, 'p2');
  assert.equal(pickPair([{ id: 'p4', status: 'stopped' }], null).id, 'p4');
  assert.equal(pickPair([], null), null);
});

test('refusals, letters and authority read apart in the conversation', () => {
  const letter = chatEntry({ id: 1, kind: 'letter', role: 'codex', text: 'look', detail: { to: ['opencode'] } });
  assert.equal(letter.tone, 'letter');
  assert.equal(letter.to, 'opencode');
  const refusal = chatEntry({ id: 2, kind: 'refusal', role: 'codex', rule: 'single_writer', text: 'opencode holds write authority' });
  assert.equal(refusal.tone, 'refusal');
  assert.equal(refusal.rule, 'single_writer');
  assert.equal(chatEntry({ id: 3, kind: 'claim', role: 'opencode', text: 'x' }).tone, 'authority');
  assert.equal(chatEntry({ id: 4, kind: 'round_closed', role: 'opencode', text: 'x' }).tone, 'good');
  assert.equal(chatEntry({ id: 5, kind: 'unblock_refused', role: 'pilot', text: 'x' }).tone, 'refusal');
});

test('live entries join the conversation once, in order, without bookkeeping', () => {
  const shown = [{ id: 1, kind: 'created' }, { id: 3, kind: 'letter' }];
  const merged = mergeEntries(shown, [{ id: 3, kind: 'letter' }, { id: 2, kind: 'joined' }, { id: 4, kind: 'refusal' }, { id: 5, kind: 'not_a_kind' }]);
  assert.deepEqual(merged.map((e) => e.id), [1, 2, 3, 4]);
});

test('the OK button shows only while a live semi round waits for the word', () => {
  assert.equal(needsOwnersWord({ status: 'live', blocking: [{ rule: 'semi_needs_ok' }] }), true);
  assert.equal(needsOwnersWord({ status: 'live', blocking: [{ rule: 'no_evidence' }] }), false);
  assert.equal(needsOwnersWord({ status: 'stopped', blocking: [{ rule: 'semi_needs_ok' }] }), false);
});

test('members read as writer, critic, instance and unread', () => {
  assert.equal(memberLine({ writer: true, live: true }), 'writer');
  assert.equal(memberLine({ live: true, of: 'codex', unread: 2 }), 'critic · instance of codex · 2 unread');
  assert.equal(memberLine({ live: false }), 'not started');
  assert.equal(memberLine({ left: true, live: true }), 'left');
  assert.equal(memberLine({ live: false, session: 's-abc' }), 'starting');
  assert.deepEqual(PHASES, ['scoping', 'plan', 'code', 'review', 'test', 'pr', 'done']);
});

test('the terminals show only the seated members that did not leave', () => {
  const members = [{ role: 'claude', session: 's-1' }, { role: 'codex', session: '' }, { role: 'opencode', session: 's-2', left: true }];
  assert.deepEqual(seated(members).map((m) => m.role), ['claude']);
  assert.deepEqual(seated(undefined), []);
});
