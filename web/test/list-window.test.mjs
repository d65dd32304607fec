import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeTops, indexAt, visibleRange } from '../static/js/list-window.js';

const items = (n, h = 64) => Array.from({ length: n }, (_, i) => ({ key: `K-${i}`, height: h }));

test('tops are prefix sums of the fixed heights', () => {
  const tops = computeTops([{ height: 36 }, { height: 64 }, { height: 64 }]);
  assert.deepEqual([...tops], [0, 36, 100, 164]);
});

test('indexAt finds the row under a point', () => {
  const tops = computeTops(items(2000));
  assert.equal(indexAt(tops, 0), 0);
  assert.equal(indexAt(tops, 63), 0);
  assert.equal(indexAt(tops, 64), 1);
  assert.equal(indexAt(tops, 64 * 1999 + 10), 1999);
  assert.equal(indexAt(tops, 1e9), 1999);
});

test('the window covers the viewport plus overscan and stays bounded on a large list', () => {
  const tops = computeTops(items(2000));
  const [start, end] = visibleRange(tops, 64 * 1000, 640, 5);
  assert.equal(start, 995);
  assert.equal(end, 1015);
  assert.ok(end - start <= 640 / 64 + 2 * 5);
  assert.deepEqual(visibleRange(tops, 0, 640, 5), [0, 15]);
  assert.deepEqual(visibleRange(computeTops([]), 0, 640, 5), [0, 0]);
});
