import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Selection, oldestFirst } from '../static/js/selection.js';

const order = ['MG-1', 'MG-2', 'MG-3', 'MG-4', 'MG-5'];

test('toggle and shift ranges in view order, either direction', () => {
  const s = new Selection();
  s.toggle('MG-2');
  s.extendTo('MG-4', order);
  assert.deepEqual(s.ordered(order), ['MG-2', 'MG-3', 'MG-4']);
  s.toggle('MG-3');
  assert.deepEqual(s.ordered(order), ['MG-2', 'MG-4']);
  s.extendTo('MG-1', order);
  assert.deepEqual(s.ordered(order), ['MG-1', 'MG-2', 'MG-3', 'MG-4']);
});

test('a range without an anchor selects one row; retain drops vanished keys', () => {
  const s = new Selection();
  s.extendTo('MG-5', order);
  assert.deepEqual(s.ordered(order), ['MG-5']);
  s.toggle('MG-1');
  s.retain(new Set(['MG-5']));
  assert.deepEqual([...s.keys], ['MG-5']);
  assert.equal(s.anchor, null);
});

test('retain takes the view positions map as it is', () => {
  const s = new Selection();
  s.toggle('MG-2');
  s.toggle('MG-3');
  s.retain(new Map([['MG-2', 0], ['MG-4', 1]]));
  assert.deepEqual([...s.keys], ['MG-2']);
});

test('the default merge target is the oldest issue', () => {
  assert.deepEqual(oldestFirst(['MG-10', 'MG-9', 'MG-100']), ['MG-9', 'MG-10', 'MG-100']);
});
