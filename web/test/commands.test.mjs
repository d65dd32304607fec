import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCommand, locationCommands, locationFacts } from '../static/js/commands.js';

test('the seed goes onto the first /goto that names none', () => {
  assert.equal(seedCommand('/goto 1 2 3', 42), '/goto 1 2 3 seed 42');
  assert.equal(seedCommand('/time 17:30; /goto 1 2 3 ; /goto 4 5 6', 7), '/time 17:30; /goto 1 2 3 seed 7 ; /goto 4 5 6');
  assert.equal(seedCommand('/goto 1 2 3 seed 9', 42), '/goto 1 2 3 seed 9');
  assert.equal(seedCommand('/gotox 1', 42), '/gotox 1');
  assert.equal(seedCommand('/goto 1 2 3', null), '/goto 1 2 3');
  assert.equal(seedCommand('/goto 1 2 3', 0), '/goto 1 2 3 seed 0');
});

test('location commands fall back to the single command and carry labels', () => {
  assert.deepEqual(locationCommands({ command: '/goto 1', seed: 5 }), [{ command: '/goto 1 seed 5', label: '' }]);
  assert.deepEqual(
    locationCommands({ command: '/goto 1', commands: [{ command: '/goto 1', label: 'harbor' }, { command: '/goto 2' }] }),
    [{ command: '/goto 1', label: 'harbor' }, { command: '/goto 2', label: '' }],
  );
  assert.deepEqual(locationCommands(null), []);
});

test('location facts list what the location says besides commands', () => {
  const facts = locationFacts({ place: 'Harbor', x: 1240, y: 12, z: -380, yaw: 90, seed: 3, time: '17:30', extra: { biome: 'coast' } });
  assert.deepEqual(facts, [['Place', 'Harbor'], ['Position', '1240, 12, -380'], ['Yaw', '90'], ['Seed', '3'], ['Time', '17:30'], ['biome', 'coast']]);
});
