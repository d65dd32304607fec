import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentKeyMap, codeKeyMap, keyMap } from '../static/js/keyboard.js';
import { KEYS } from '../static/js/dialogs/help.js';
import { suggestPrefix, suggestSlug } from '../static/js/dialogs/new-project.js';

// The spec's keyboard line: every one of these keys does something.
const SPEC_KEYS = ['j', 'k', 'Enter', 'Escape', 'p', 'f', 'c', 's', 'y', 'e', 'x', 'm', 'b', 'h', 'a', 'n', 'q', '/', '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', 'r', 't', '?'];

test('every key of the keyboard line calls the app', () => {
  const called = [];
  const app = new Proxy({}, { get: (_, name) => () => called.push(name) });
  const map = keyMap(app);
  for (const key of SPEC_KEYS) {
    assert.ok(map[key], `no action for ${key}`);
    called.length = 0;
    map[key]();
    assert.equal(called.length, 1, `${key} calls one action`);
  }
  map['3']();
  assert.deepEqual(called.slice(-1), ['showOnlyStatus']);
});

test('the help names every key it explains', () => {
  const shown = KEYS.flatMap(([, rows]) => rows.flatMap((row) => row.filter(Array.isArray).flat()));
  for (const key of ['j', 'k', 'Enter', 'Esc', 'p', 'f', 'c', 's', 'y', 'e', 'x', 'm', 'b', 'h', 'a', 'n', 'q', '/', '1', '9', '0', 'r', 't', '?']) {
    assert.ok(shown.includes(key), `help lacks ${key}`);
  }
});

test('a new project gets a slug and prefix suggested from its name', () => {
  assert.equal(suggestSlug('Star Forge: Remastered!'), 'star-forge-remastered');
  assert.equal(suggestPrefix('Star Forge'), 'ST');
  assert.equal(suggestPrefix('2048 Deluxe'), 'DE');
  assert.equal(suggestPrefix('!!'), '');
});

test('the Agents view keeps the keys that do not act on the hidden list or issue', () => {
  const calls = [];
  const app = new Proxy({ agentsView: { move: (d) => calls.push(`move ${d}`), escape: () => calls.push('escape') } }, {
    get: (target, name) => (name in target ? target[name] : () => calls.push(String(name))),
  });
  const map = agentKeyMap(app);
  for (const key of ['p', 'f', 'c', 's', 'y', 'e', 'x', 'm', 'o', 'Enter', 'b', '0', '1']) assert.equal(map[key], undefined, key);
  map.j();
  map.ArrowUp();
  map.Escape();
  map.a();
  assert.deepEqual(calls, ['move 1', 'move -1', 'escape', 'toggleAgents']);
});

test('the Code view keeps the shared keys and none that act on the hidden list or issue', () => {
  const app = new Proxy({}, { get: (_, name) => () => name });
  const map = codeKeyMap(app);
  assert.deepEqual(Object.keys(map).sort(), ['/', '?', 'a', 'h', 'n', 'q', 'r', 't']);
  for (const key of ['j', 'k', 'Enter', 'p', 'x', 'm']) assert.equal(map[key], undefined, `${key} acts in the Code view`);
});
