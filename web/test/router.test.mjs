import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, formatRoute } from '../static/js/router.js';

const route = (fields) => ({ project: null, issue: null, handoff: false, agents: false, agent: null, pair: false, pairId: null, office: false, ...fields });

test('deep links name the project, an issue, the handoff or an agent session', () => {
  assert.deepEqual(parseRoute('#/mygame/mg-12'), route({ project: 'mygame', issue: 'MG-12' }));
  assert.deepEqual(parseRoute('#/mygame/~handoff'), route({ project: 'mygame', handoff: true }));
  assert.deepEqual(parseRoute('#/mygame'), route({ project: 'mygame' }));
  assert.deepEqual(parseRoute('#/~agents'), route({ agents: true }));
  assert.deepEqual(parseRoute('#/~agents/547f7264-e9b6'), route({ agents: true, agent: '547f7264-e9b6' }));
  assert.deepEqual(parseRoute('#/~office'), route({ office: true }));
});

test('junk hashes give the start page or drop the bad part', () => {
  assert.equal(parseRoute('').project, null);
  assert.equal(parseRoute('#/Bad Slug!').project, null);
  assert.equal(parseRoute('#/%E0%A4%A').project, null);
  assert.deepEqual(parseRoute('#/mygame/<script>'), route({ project: 'mygame' }));
  assert.deepEqual(parseRoute('#/~agents/%E0%A4%A'), route({ agents: true }));
});

test('routes round-trip', () => {
  for (const hash of ['#/mygame/MG-12', '#/mygame/~handoff', '#/mygame/~pair', '#/mygame/~pair/p3', '#/mygame', '#/~agents', '#/~agents/547f7264-e9b6', '#/~office', '#/']) {
    assert.equal(formatRoute(parseRoute(hash)), hash);
  }
});

test('any session id survives the address, slashes included', () => {
  const id = 'codex/rollout 2026-11-30?x=1#y';
  const hash = formatRoute({ agents: true, agent: id });
  assert.ok(!hash.slice('#/~agents/'.length).includes('/'));
  assert.equal(parseRoute(hash).agent, id);
});

test('the Pair view names a project and, optionally, one of its pairs', () => {
  assert.deepEqual(parseRoute('#/mygame/~pair'), route({ project: 'mygame', pair: true }));
  assert.deepEqual(parseRoute('#/mygame/~pair/p12'), route({ project: 'mygame', pair: true, pairId: 'p12' }));
  assert.deepEqual(parseRoute('#/mygame/~pair/<x>'), route({ project: 'mygame', pair: true }));
});
