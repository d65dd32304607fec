import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, formatRoute, codeHash } from '../static/js/router.js';

const route = (fields) => ({ project: null, issue: null, handoff: false, agents: false, agent: null, pair: false, pairId: null, office: false, code: null, ...fields });

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

test('the Code view names a repository and its log, a folder or file, a blame or a change', () => {
  const id = 'a'.repeat(64);
  const code = (fields) => route({ code: { repo: 'acme/game', view: 'log', at: 'main', path: '', change: null, ...fields } });
  assert.deepEqual(parseRoute('#/~code'), route({ code: { repo: null, view: 'log', at: 'main', path: '', change: null } }));
  assert.deepEqual(parseRoute('#/~code/acme/game'), code({}));
  assert.deepEqual(parseRoute('#/~code/acme/game/files/main'), code({ view: 'files' }));
  assert.deepEqual(parseRoute(`#/~code/acme/game/files/${id}/src/a%20b.go`), code({ view: 'files', at: id, path: 'src/a b.go' }));
  assert.deepEqual(parseRoute('#/~code/acme/game/blame/main/README.md'), code({ view: 'blame', path: 'README.md' }));
  assert.deepEqual(parseRoute(`#/~code/acme/game/change/${id}`), code({ view: 'change', change: id }));
  assert.deepEqual(parseRoute('#/~code/acme/game/history/src/a.go'), code({ view: 'history', path: 'src/a.go' }));
  assert.deepEqual(parseRoute('#/~code/acme/game/search/main/a%2Fb%20c'), code({ view: 'search', q: 'a/b c' }));
  assert.equal(codeHash({ repo: 'acme/game', view: 'search', at: 'main', q: 'a/b c' }), '#/~code/acme/game/search/main/a%2Fb%20c');
  for (const hash of ['#/~code', '#/~code/acme/game', '#/~code/acme/game/files/main', `#/~code/acme/game/files/${id}/src/a%20b.go`,
    '#/~code/acme/game/blame/main/README.md', `#/~code/acme/game/change/${id}`, '#/~code/acme/game/history/src/a.go']) {
    assert.equal(formatRoute(parseRoute(hash)), hash);
  }
  assert.equal(codeHash({ repo: 'acme/game', view: 'files', at: 'main', path: 'a#b/c?d' }), '#/~code/acme/game/files/main/a%23b/c%3Fd');
});

test('a bad part of a Code address leaves the view at what comes before it', () => {
  const log = { repo: 'acme/game', view: 'log', at: 'main', path: '', change: null };
  assert.deepEqual(parseRoute('#/~code/acme/game/change/nothex').code, log);
  assert.deepEqual(parseRoute('#/~code/acme/game/files/HEAD/a').code, log);
  assert.deepEqual(parseRoute('#/~code/acme/game/files/main/../etc').code, log);
  assert.deepEqual(parseRoute('#/~code/acme/game/blame/main').code, { ...log, view: 'files' });
  assert.deepEqual(parseRoute('#/~code/acme/game/history').code, log);
  assert.deepEqual(parseRoute('#/~code/acme/game/history/../x').code, log);
  assert.equal(parseRoute('#/~code/acme').code.repo, null);
  assert.equal(parseRoute('#/~code/a b/game').code.repo, null);
});
