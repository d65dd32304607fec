import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shellWord, setupCommands } from '../static/js/first-run.js';

test('a word is quoted for the shell only when it needs it', () => {
  assert.equal(shellWord('/home/me/.desk'), '/home/me/.desk');
  assert.equal(shellWord('/home/me/my desk'), `'/home/me/my desk'`);
  assert.equal(shellWord(`/tmp/it's`), `'/tmp/it'\\''s'`);
  assert.equal(shellWord('~/desk'), `'~/desk'`);
  assert.equal(shellWord('$HOME'), `'$HOME'`);
});

test('the set-up commands name the data folder and the project', () => {
  assert.deepEqual(setupCommands('/srv/my desk', 'star-forge').map((c) => c.command), [
    `desk --data '/srv/my desk' link --project star-forge`,
    `desk --data '/srv/my desk' install`,
  ]);
  assert.deepEqual(setupCommands('', 'mygame').map((c) => c.command), ['desk link --project mygame', 'desk install']);
});
