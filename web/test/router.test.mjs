import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, formatRoute } from '../static/js/router.js';

test('deep links name the project, an issue or the handoff', () => {
  assert.deepEqual(parseRoute('#/mygame/mg-12'), { project: 'mygame', issue: 'MG-12', handoff: false, agents: false });
  assert.deepEqual(parseRoute('#/mygame/~handoff'), { project: 'mygame', issue: null, handoff: true, agents: false });
  assert.deepEqual(parseRoute('#/mygame'), { project: 'mygame', issue: null, handoff: false, agents: false });
  assert.deepEqual(parseRoute('#/~agents'), { project: null, issue: null, handoff: false, agents: true });
});

test('junk hashes give the start page or drop the bad part', () => {
  assert.equal(parseRoute('').project, null);
  assert.equal(parseRoute('#/Bad Slug!').project, null);
  assert.equal(parseRoute('#/%E0%A4%A').project, null);
  assert.deepEqual(parseRoute('#/mygame/<script>'), { project: 'mygame', issue: null, handoff: false, agents: false });
});

test('routes round-trip', () => {
  for (const hash of ['#/mygame/MG-12', '#/mygame/~handoff', '#/mygame', '#/~agents', '#/']) {
    assert.equal(formatRoute(parseRoute(hash)), hash);
  }
});
