// The browser terminal's rules that need no browser: tokens, the
// WebSocket's address and messages, links, the key bar and reconnecting.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isSessionId, sessionToken, launchOff, NO_TOKEN_REASON, terminalURL, parseControl, resizeMessage, exitText, safeLink,
  KEY_BAR, keyBytes, reconnectDelay, recordStateText,
} from '../static/js/terminal/terminal-model.js';

test('desk session ids are told from agent session ids', () => {
  assert.ok(isSessionId('s-ab2c3d4e'));
  assert.ok(!isSessionId('547f7264-e9b6-4b28-a037-7b11995f935f'));
  assert.ok(!isSessionId('s-ab2c3d4'), 'seven characters');
  assert.ok(!isSessionId('s-AB2C3D4E'), 'upper case');
  assert.ok(!isSessionId('s-ab2c3d40'), '0 is not in the alphabet');
  assert.ok(!isSessionId(null));
});

test('the page presents the terminal token of its address, else its own', () => {
  assert.equal(sessionToken('page-tok', '?token=term-tok'), 'term-tok', 'the one that outlives a restart');
  assert.equal(sessionToken('', '?token=term-tok'), 'term-tok');
  assert.equal(sessionToken('page-tok', '?x=1'), 'page-tok');
  assert.equal(sessionToken('', '?x=1'), '');
  assert.equal(sessionToken('', ''), '');
});

test('"+ Agent" says why it is off', () => {
  const on = { terminal: { enabled: true, reason: null } };
  assert.equal(launchOff(on, null, 't'), null);
  assert.equal(launchOff(on, null, ''), NO_TOKEN_REASON);
  assert.match(launchOff(null, { status: 403, message: 'wrong token' }, 't'), /refused this page's token: wrong token/);
  assert.equal(launchOff(null, { status: 503, message: 'x' }, 't'), 'This desk serves no terminals.');
  assert.equal(launchOff({ terminal: { enabled: false, reason: 'desk serve runs with --no-terminal' } }, null, 't'),
    'Terminals are read-only here: desk serve runs with --no-terminal.');
});

test('the WebSocket address carries the token and the size, on the page’s scheme', () => {
  assert.equal(terminalURL({ protocol: 'http:', host: '127.0.0.1:8765' }, 's-ab2c3d4e', 'a b', { cols: 120, rows: 40 }),
    'ws://127.0.0.1:8765/api/sessions/s-ab2c3d4e/terminal?token=a+b&cols=120&rows=40');
  assert.equal(terminalURL({ protocol: 'https:', host: 'box:1' }, 's-x', 't'), 'wss://box:1/api/sessions/s-x/terminal?token=t');
  assert.equal(terminalURL({ protocol: 'http:', host: 'h' }, 's-x', 't', { cols: 0, rows: 5 }), 'ws://h/api/sessions/s-x/terminal?token=t');
});

test('control messages are read, and the resize is written, as the server speaks them', () => {
  assert.deepEqual(parseControl('{"type":"exit","code":0,"reason":"exited"}'), { type: 'exit', code: 0, reason: 'exited' });
  assert.equal(parseControl('not json'), null);
  assert.equal(parseControl('{"cols":3}'), null);
  assert.equal(parseControl('null'), null);
  assert.deepEqual(JSON.parse(resizeMessage(100, 30)), { type: 'resize', cols: 100, rows: 30 });
});

test('how a session ended reads the same from an exit message and from a record', () => {
  assert.equal(exitText({ type: 'exit', code: 0, reason: 'exited' }), 'Exited with code 0');
  assert.equal(exitText({ code: 129, signal: 'hangup', reason: 'stopped' }), 'Exited with code 129 (hangup), stopped');
  assert.equal(exitText({ exit_code: 2, exit_reason: 'exited' }), 'Exited with code 2');
  assert.equal(exitText({ exit_code: null, exit_reason: 'holder lost' }), 'Ended: holder lost');
  assert.equal(recordStateText({ state: 'running' }), 'Running');
  assert.equal(recordStateText({ state: 'exited', exit_code: 130, exit_reason: 'stopped' }), 'Exited with code 130, stopped');
});

test('only http and https links open, however they are written', () => {
  assert.equal(safeLink('https://example.com/a?b=1'), 'https://example.com/a?b=1');
  assert.equal(safeLink('HTTP://127.0.0.1:8765/x'), 'http://127.0.0.1:8765/x');
  for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', ' javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,<b>',
    'vbscript:x', 'ftp://host/x', '//evil.example/x', 'not a url', '']) {
    assert.equal(safeLink(bad), null, bad);
  }
});

test('the key bar sends what a keyboard would, in either cursor mode', () => {
  assert.deepEqual(KEY_BAR.map(([, key]) => key), ['esc', 'tab', 'left', 'up', 'down', 'right', 'ctrl-c']);
  assert.equal(keyBytes('esc'), '\x1b');
  assert.equal(keyBytes('tab'), '\t');
  assert.equal(keyBytes('ctrl-c'), '\x03');
  assert.equal(keyBytes('up'), '\x1b[A');
  assert.equal(keyBytes('left', true), '\x1bOD', 'a full-screen program asked for application cursor keys');
  assert.throws(() => keyBytes('f13'), /no such key/);
});

test('reconnecting is quick at first, then every few seconds', () => {
  const waits = [0, 1, 2, 3, 4, 5, 50].map(reconnectDelay);
  assert.deepEqual(waits, [100, 250, 500, 1000, 2000, 4000, 4000]);
});
