// boot.js builds the address of the first list itself (a classic script
// cannot import modules); it must ask for exactly the list the app asks
// for, or the early request is wasted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { cleanFilters, listQuery, FIRST_PAGE } from '../static/js/list-query.js';
import { parseRoute } from '../static/js/router.js';
import { prefs } from '../static/js/prefs.js';
import { takeEarlyList } from '../static/js/api.js';

const source = readFileSync(new URL('../static/js/boot.js', import.meta.url), 'utf8');

/** Runs boot.js with a stored state and an address; returns what it did. */
function boot(stored, hash, answer = {}) {
  const requests = [];
  const attrs = {};
  const window = {
    localStorage: { getItem: (k) => (k in stored ? stored[k] : null) },
  };
  const context = {
    window,
    location: { hash },
    document: {
      documentElement: {
        setAttribute: (k, v) => { attrs[k] = v; },
        style: { setProperty: (k, v) => { attrs[k] = v; } },
      },
    },
    URLSearchParams,
    fetch: (url) => {
      requests.push(url);
      return Promise.resolve(answer);
    },
  };
  vm.runInNewContext(source, context);
  return { requests, attrs, early: window.deskEarlyList };
}

/** The address the app asks for first, from the same state, through the app's own modules. */
function appAddress(stored, hash) {
  globalThis.localStorage = { getItem: (k) => (k in stored ? stored[k] : null) };
  const route = parseRoute(hash);
  const slug = route.project || (hash.replace(/^#\/?/, '') ? null : prefs.lastProject());
  if (!slug) return null;
  const saved = prefs.view(slug);
  const view = ['triage', 'backlog', 'board'].includes(saved) ? saved : 'triage';
  return `/api/projects/${slug}/issues?${listQuery(cleanFilters(prefs.filters(slug)), view, FIRST_PAGE)}`;
}

const cases = [
  [{}, '#/mygame'],
  [{}, '#/mygame/MG-12'],
  [{}, '#/mygame/~handoff'],
  [{ 'desk.project': '"tools"' }, ''],
  [{ 'desk.project': '"tools"' }, '#/'],
  [{ 'desk.project': '"tools"' }, '#/~agents'],
  [{}, ''],
  [{ 'desk.view.mygame': '"backlog"', 'desk.filters.mygame': '{"kind":"check","area":"deep caves"}' }, '#/mygame'],
  [{ 'desk.view.mygame': '"board"', 'desk.filters.mygame': '{"statuses":["open","failed"],"sort":"number","priority":"p1"}' }, '#/mygame'],
  [{ 'desk.view.mygame': '"nonsense"', 'desk.filters.mygame': '{"statuses":"open","kind":3}' }, '#/mygame'],
  [{ 'desk.filters.mygame': 'not json' }, '#/mygame'],
  [{}, '#/Bad Slug'],
];

test('boot.js asks for the same first list as the app, in every state', () => {
  for (const [stored, hash] of cases) {
    const want = appAddress(stored, hash);
    const got = boot(stored, hash);
    assert.deepEqual(got.requests, want ? [want] : [], `${hash} ${JSON.stringify(stored)}`);
    if (want) assert.equal(got.early.url, want);
  }
});

test('boot.js applies the remembered theme and list width and ignores anything else', () => {
  assert.deepEqual(boot({ 'desk.theme': 'dark', 'desk.split': '50' }, '').attrs, { 'data-theme': 'dark', '--list-width': '50%' });
  assert.deepEqual(boot({ 'desk.theme': '<x>', 'desk.split': '"90%; color: red"' }, '').attrs, {});
  assert.deepEqual(boot({ 'desk.split': '99' }, '').attrs, {});
});

/** A fetch Response as boot.js and api.js read it. */
function response(status, body, etag = '"v1"') {
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: String(status),
    headers: { get: (k) => (k === 'ETag' ? etag : null) },
    json: () => Promise.resolve(body),
  };
}

test('the app takes the early list as boot.js read it, once, and an error as the server said it', async () => {
  const url = appAddress({}, '#/mygame');
  globalThis.window = { deskEarlyList: boot({}, '#/mygame', response(200, { issues: [{ id: 'MG-1' }], total: 1 })).early };
  assert.equal(takeEarlyList('/api/projects/mygame/issues?other=1'), null, 'another list is not the early one');
  assert.deepEqual(await takeEarlyList(url), { data: { issues: [{ id: 'MG-1' }], total: 1 }, etag: '"v1"', unchanged: false });
  assert.equal(takeEarlyList(url), null, 'taken once');

  globalThis.window = { deskEarlyList: boot({}, '#/mygame', response(404, { error: 'no project mygame' })).early };
  await assert.rejects(takeEarlyList(url), { name: 'ApiError', status: 404, message: 'no project mygame' });
  delete globalThis.window;
});
