// The office's rules without pixels: seats from chairs, areas, shortest
// ways, and the life of a character as its session's state changes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveLayout, findPath, chooseSeat, areasFor, wallMask, sessionLabel, kindsByType, cloneLayout, sameLayout } from '../static/js/office/model.js';
import { Scene, WALK_SPEED } from '../static/js/office/scene.js';

// The kinds GET /api/office/catalog answers (package office's Kinds).
const catalog = {
  furniture: [
    { type: 'desk', w: 2, h: 1, rotates: true, blocks: true },
    { type: 'chair', w: 1, h: 1, rotates: true, seat: true, blocks: true },
    { type: 'computer', w: 1, h: 1, rotates: true, surface: true, screen: true },
    { type: 'plant', w: 1, h: 1, blocks: true },
    { type: 'door', w: 1, h: 1, on_wall: true, walk: true },
  ],
};
const kinds = kindsByType(catalog);

// A 10×7 room: a door in the top wall at col 5, two desks with a chair
// behind each (facing down) and a computer on each, an area over the left
// desk for project "mygame", a plant in the way.
//
//   W W W W W D W W W W
//   W . . . . . . . . W
//   W . c . . . . c . W
//   W . d d . . . d d W
//   W . . . . p . . . W
//   W . . . . . . . . W
//   W W W W W W W W W W
function room() {
  const cols = 10;
  const rows = 7;
  const tiles = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) tiles.push(r === 0 || r === rows - 1 || c === 0 || c === cols - 1 ? 1 : 2);
  const at = (c, r) => r * cols + c;
  return {
    version: 1,
    cols,
    rows,
    tiles,
    colors: tiles.map(() => ''),
    furniture: [
      { uid: 'door', type: 'door', col: 5, row: 0, rot: 0, color: '' },
      { uid: 'd1', type: 'desk', col: 2, row: 3, rot: 0, color: '' },
      { uid: 'pc1', type: 'computer', col: 2, row: 3, rot: 2, color: '' },
      { uid: 'c1', type: 'chair', col: 2, row: 2, rot: 0, color: '' },
      { uid: 'd2', type: 'desk', col: 7, row: 3, rot: 0, color: '' },
      { uid: 'c2', type: 'chair', col: 7, row: 2, rot: 0, color: '' },
      { uid: 'p', type: 'plant', col: 5, row: 4, rot: 0, color: '' },
    ],
    areas: [{ id: 'left', name: 'Left', color: '#ff0000', project: 'mygame', folder: '', tiles: [at(1, 2), at(2, 2), at(3, 2)] }],
    revision: 3,
  };
}

const session = (id, state, extra = {}) => ({ id, client: 'claude', state, started_at: `2026-08-01T10:00:0${id.length % 10}.000Z`, project: '', cwd: '/tmp', ...extra });

test('seats come from chairs, each facing its computer, in the order an office fills', () => {
  const d = deriveLayout(room(), kinds);
  assert.deepEqual(d.seats.map((s) => [s.id, s.computer, s.area]), [['c1', 'pc1', 0], ['c2', null, -1]]);
  assert.equal(d.door, 5);
  assert.equal(d.entry, 15, 'the way in is the tile below the door');
  assert.ok(!d.spots.includes(d.entry) && !d.spots.includes(d.seats[0].tile), 'no one stands in the way in or on a seat');
});

test('the shortest way goes around furniture and walls, and may end on a chair', () => {
  const l = room();
  const d = deriveLayout(l, kinds);
  const at = (c, r) => r * l.cols + c;
  const path = findPath(d, at(5, 0), at(2, 2));
  assert.equal(path[path.length - 1], at(2, 2));
  assert.equal(path.length, 5, 'door → (5,1) (4,1) (3,1) (2,1) → chair: four steps and the seat');
  for (const t of path.slice(0, -1)) assert.equal(d.blocked[t], 0, `step on blocked tile ${t}`);
  // Around the plant at (5,4): from (4,4) to (6,4) takes the long way.
  assert.equal(findPath(d, at(4, 4), at(6, 4)).length, 4);
  // Nothing reaches a tile walled in.
  for (const t of [at(1, 5), at(3, 5), at(2, 4)]) l.tiles[t] = 1;
  assert.equal(findPath(deriveLayout(l, kinds), at(1, 1), at(2, 5)), null);
});

test('an agent takes its area’s seat, else an unzoned one, else any', () => {
  const l = room();
  const d = deriveLayout(l, kinds);
  assert.equal(chooseSeat(d.seats, new Set(), areasFor(l, { project: 'mygame' })).id, 'c1');
  assert.equal(chooseSeat(d.seats, new Set(), areasFor(l, { project: 'other' })).id, 'c2');
  assert.equal(chooseSeat(d.seats, new Set(['c2']), areasFor(l, { project: 'other' })).id, 'c1');
  assert.equal(chooseSeat(d.seats, new Set(['c1', 'c2']), []), null);
  l.areas[0] = { ...l.areas[0], project: '', folder: '/home/me/game' };
  assert.deepEqual(areasFor(l, { cwd: '/home/me/game/web' }), [0]);
  assert.deepEqual(areasFor(l, { cwd: '/home/me/gamex' }), []);
});

test('walls join up: each piece knows its wall neighbours', () => {
  const l = room();
  assert.equal(wallMask(l, 0), 2 | 4, 'the top-left corner goes east and south');
  assert.equal(wallMask(l, 3), 2 | 8, 'the top wall goes east and west');
  assert.equal(wallMask(l, l.cols * 3), 1 | 4, 'the left wall goes north and south');
});

test('labels name the client, the project and what it does', () => {
  assert.equal(sessionLabel({ client: 'claude', project: 'mygame', state: 'working', activity: { label: 'Editing store.go' } }), 'claude · mygame · Editing store.go');
  assert.equal(sessionLabel({ client: 'codex', cwd: '/src/web', state: 'needs_permission', permission: { label: 'Bash: make' } }), 'codex · web · needs permission: Bash: make');
  assert.equal(sessionLabel({ name: 'fixer', client: 'claude', state: 'waiting_input' }), 'fixer · claude · waiting for input');
});

test('a layout copy is a deep copy', () => {
  const l = room();
  const c = cloneLayout(l);
  c.tiles[11] = 5;
  c.furniture[1].col = 3;
  c.areas[0].tiles.push(40);
  assert.equal(l.tiles[11], 2);
  assert.equal(l.furniture[1].col, 2);
  assert.equal(l.areas[0].tiles.length, 3);
  assert.ok(sameLayout(l, { ...cloneLayout(l), revision: 9 }));
  assert.ok(!sameLayout(l, c));
});

// Runs the scene for secs seconds in steps of a frame.
function run(scene, clock, secs) {
  for (let t = 0; t < secs; t += 1 / 60) {
    clock.now += 1 / 60;
    scene.update(1 / 60, clock.now);
  }
}

test('a character follows its session: in through the door, to its seat, typing or reading, out again', () => {
  const clock = { now: 100 };
  const scene = new Scene(room(), kinds, () => 0.5);
  scene.sync([], clock.now);
  const ch = () => scene.characters.get('a');
  scene.sync([session('a', 'working', { project: 'mygame', activity: { kind: 'editing', label: 'Editing x' } })], clock.now);
  assert.equal(ch().tile, 5, 'it comes in at the door');
  assert.ok(ch().walking);
  assert.equal(ch().seat.id, 'c1', 'its project’s area seat');
  run(scene, clock, (6 * 16) / WALK_SPEED + 0.2);
  assert.ok(ch().seated, 'it sat down');
  assert.equal(ch().pose(clock.now).pose, 'type');
  assert.deepEqual([...scene.screensOn()], ['pc1'], 'its computer is on');
  // Reading.
  scene.sync([session('a', 'working', { project: 'mygame', activity: { kind: 'reading', label: 'Reading y' } })], clock.now);
  assert.equal(ch().pose(clock.now).pose, 'read');
  // Needs permission: still, with the bubble, the computer stays as it was left.
  scene.sync([session('a', 'needs_permission', { project: 'mygame' })], clock.now);
  assert.equal(ch().pose(clock.now).pose, 'sit');
  assert.equal(ch().bubble(clock.now).kind, 'permission');
  assert.equal(scene.screensOn().size, 0);
  // Nothing moves: the office sleeps.
  let u = scene.update(0, clock.now);
  assert.equal(u.moving, false);
  assert.equal(u.next, Infinity);
  // Done: the check shows, fades, then the agent stands up and wanders.
  scene.sync([session('a', 'done', { project: 'mygame' })], clock.now);
  assert.equal(ch().bubble(clock.now).kind, 'done');
  u = scene.update(0, clock.now);
  assert.ok(!u.moving && u.next > clock.now && u.next < clock.now + 2.1, 'it wakes when the check starts to fade');
  run(scene, clock, 2.5);
  assert.ok(ch().bubble(clock.now).alpha < 1);
  run(scene, clock, 2);
  assert.equal(ch().bubble(clock.now), null);
  run(scene, clock, 1);
  assert.ok(ch().walking || ch().wandering, 'it gets up to wander');
  // Work again: back to the seat.
  scene.sync([session('a', 'working', { project: 'mygame', activity: { kind: 'editing' } })], clock.now);
  run(scene, clock, 6);
  assert.ok(ch().seated);
  // Ended: out through the door, then gone.
  scene.sync([session('a', 'ended', { project: 'mygame' })], clock.now);
  assert.ok(ch().leaving && ch().walking);
  run(scene, clock, 6);
  assert.equal(ch(), undefined, 'it left');
});

test('the first load seats everyone at once; more agents than seats stand; sub-agents stand beside their parent', () => {
  const clock = { now: 0 };
  const scene = new Scene(room(), kinds, () => 0.5);
  const sessions = [session('a', 'working'), session('bb', 'unknown'), session('ccc', 'working'), session('sub', 'working', { parent: 'a' }), session('old', 'ended')];
  scene.sync(sessions, clock.now);
  assert.equal(scene.characters.size, 4, 'no character for a session that ended before');
  const a = scene.characters.get('a');
  assert.ok(a.seated, 'placed, not walked in');
  assert.equal(scene.characters.get('bb').seat.id, 'c1');
  const ccc = scene.characters.get('ccc');
  assert.equal(ccc.seat, null, 'no seat left');
  assert.ok(ccc.spot >= 0 && ccc.tile === ccc.spot);
  assert.equal(ccc.pose(clock.now).pose, 'standtype', 'it works standing');
  const sub = scene.characters.get('sub');
  assert.ok(sub.small);
  const d = scene.derived;
  const dist = Math.abs((sub.tile % d.cols) - a.seat.col) + Math.abs(Math.floor(sub.tile / d.cols) - a.seat.row);
  assert.ok(dist <= 2, `the sub-agent stands ${dist} tiles from its parent`);
  assert.notEqual(scene.characters.get('a').look, scene.characters.get('bb').look);
  // Hundreds: everyone gets a place, on a spot or stacked.
  const many = Array.from({ length: 300 }, (_, i) => session(`s${i}`, 'working'));
  scene.sync([...sessions, ...many], clock.now);
  assert.equal(scene.characters.size, 304);
  for (const ch of scene.characters.values()) assert.ok(ch.seat || ch.spot >= 0, `${ch.id} has no place`);
  // No two of the first twelve look alike.
  const looks = [...scene.characters.values()].sort((x, y) => x.order - y.order).slice(0, 12).map((c) => c.look);
  assert.equal(new Set(looks).size, 12);
});

test('the owner’s seat choice wins, and a removed chair frees its agent', () => {
  const scene = new Scene(room(), kinds, () => 0.5);
  scene.sync([session('a', 'working'), session('bb', 'working')], 0);
  assert.equal(scene.characters.get('a').seat.id, 'c2');
  scene.setPins([{ session: 'a', seat: 'c1' }]);
  assert.equal(scene.characters.get('a').seat.id, 'c1');
  assert.equal(scene.characters.get('bb').seat.id, 'c2', 'the one it displaced takes the free seat');
  assert.ok(scene.characters.get('a').walking, 'it walks to its new seat');
  const l = room();
  l.furniture = l.furniture.filter((f) => f.uid !== 'c1');
  scene.setLayout(l);
  assert.equal(scene.characters.get('bb').seat.id, 'c2');
  assert.equal(scene.characters.get('a').seat, null);
});
