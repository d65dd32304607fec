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

const source = readFileSync(new URL('../static/js/boot.js', import.meta.url), 'utf8');

/** Runs boot.js with a stored state and an address; returns what it did. */
function boot(stored, hash) {
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
      return Promise.resolve({});
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
