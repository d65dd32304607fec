// The life of the office: one character per agent session, following its
// session's state. A working agent walks to its seat, sits and types or
// reads; one that needs its owner sits still under a bubble; a done one
// shows a check, then after a while stands up, wanders and comes back; an
// unknown one sits still, dimmed; an ended one leaves through the door.
// Sub-agents are small helpers standing beside their parent.
//
// No drawing and no DOM here: the view asks update() to move time on and
// tells the renderer what is where. update() says whether anything moves
// continuously (then the view draws every frame) or when the next step
// of a still picture is due (then it sleeps until then), so that an office
// where nothing moves draws nothing at all.

import { TILE, DOWN, dirBetween, deriveLayout, findPath, chooseSeat, areasFor, workPose, bubbleOf } from './model.js';

// Walking speed, in world pixels a second, and the time of a walk frame.
export const WALK_SPEED = 48;
const WALK_FRAME = 0.15;
// Typing and reading frames, on a grid shared by every character, so that
// a room of typists wakes the page at most every TYPE_FRAME / 2.
const TYPE_FRAME = 0.3;
const READ_FRAME = 0.6;
// The done check shows this long, then fades over DONE_FADE.
const DONE_SHOW = 2;
const DONE_FADE = 1;
// After a turn ends the agent stays seated this long (plus up to the
// jitter), then wanders a few times, pausing between moves, and sits again
// to rest before the next walk.
const SEATED_AFTER_DONE = 3;
const SEATED_JITTER = 2;
const WANDER_MOVES = [3, 6];
const WANDER_PAUSE = [2, 6];
const REST = [60, 120];
// A character with no way to where it goes fades out or in, this fast.
const FADE = 0.6;

/** The world pixel of a tile's standing point (a character's feet). */
export function tilePoint(derived, tile) {
  const c = tile % derived.cols;
  const r = (tile - c) / derived.cols;
  return { x: c * TILE + TILE / 2, y: r * TILE + 12 };
}

export class Character {
  constructor(id, look, order, small) {
    this.id = id;
    this.look = look;
    this.order = order;
    this.small = small;
    this.session = null;
    this.state = 'unknown';
    this.x = 0;
    this.y = 0;
    this.tile = -1;
    this.dir = DOWN;
    this.path = null;
    this.walkClock = 0;
    this.seat = null; // a derived seat, or null
    this.spot = -1; // the tile it stands on when it has no seat
    this.stack = 0; // characters on the same spot beyond the first, to draw them apart
    this.leaving = false;
    this.gone = false;
    this.alpha = 1;
    this.fading = 0; // -1 fading out, +1 in
    this.phase = 0;
    this.bubbleSince = 0;
    this.wanderAt = Infinity;
    this.wanderLeft = 0;
    this.wandering = false;
    this.wanderTile = -1;
    this.entering = false;
  }

  /** The tile it belongs on now: its seat, its spot, or the door. */
  target(derived) {
    if (this.leaving) return derived.door;
    if (this.wandering && this.wanderTile >= 0) return this.wanderTile;
    if (this.seat) return this.seat.tile;
    return this.spot;
  }

  get walking() {
    return Boolean(this.path && this.path.length);
  }

  get seated() {
    return !this.walking && this.seat !== null && this.tile === this.seat.tile && !this.leaving && !this.wandering;
  }

  /** What it looks like now: a pose and its frame, facing dir. */
  pose(now) {
    if (this.walking) return { pose: 'walk', frame: Math.floor(this.walkClock / WALK_FRAME) % 4, dir: this.dir };
    const working = this.state === 'working' && !this.leaving && !this.wandering;
    const kind = working ? workPose(this.session) : '';
    const frame = kind === 'read' ? Math.floor(now / READ_FRAME + this.phase) % 2 : Math.floor(now / TYPE_FRAME + this.phase) % 2;
    if (this.seated) return { pose: kind || 'sit', frame: kind ? frame : 0, dir: this.seat.dir };
    if (working && this.tile === this.spot) return { pose: kind === 'read' ? 'standread' : 'standtype', frame, dir: this.dir };
    return { pose: 'stand', frame: 0, dir: this.dir };
  }

  /** The bubble over it and how opaque, or null. */
  bubble(now) {
    const kind = this.leaving ? '' : bubbleOf(this.state);
    if (!kind) return null;
    if (kind !== 'done') return { kind, alpha: 1 };
    const age = now - this.bubbleSince;
    if (age >= DONE_SHOW + DONE_FADE) return null;
    return { kind, alpha: age <= DONE_SHOW ? 1 : 1 - (age - DONE_SHOW) / DONE_FADE };
  }

  /** Puts it on a tile at once. */
  place(derived, tile) {
    this.path = null;
    this.tile = tile;
    const p = tilePoint(derived, tile);
    this.x = p.x;
    this.y = p.y;
  }

  /**
   * Walks it to a tile by the shortest way.
   * @returns {boolean} false when there is no way there
   */
  walkTo(derived, tile) {
    if (tile < 0) return false;
    if (this.walking && this.path[this.path.length - 1] === tile) return true;
    // Mid-step, it finishes the step it is on before it turns.
    const from = this.walking ? this.path[0] : this.tile;
    if (from < 0) return false;
    if (from === tile) {
      if (this.walking) this.path = [tile];
      return true;
    }
    const path = findPath(derived, from, tile);
    if (path === null) return false;
    this.path = this.walking ? [from, ...path] : path;
    return true;
  }

  /** Moves it to a tile: walking there, or, walled in, fading out and in there. */
  goTo(derived, tile) {
    if (this.walkTo(derived, tile)) return;
    this.place(derived, tile);
    this.alpha = 0;
    this.fading = 1;
  }
}

/**
 * The office's characters over one layout.
 */
export class Scene {
  /**
   * @param {object} layout the layout as the server gives it
   * @param {Map<string, object>} kinds the catalog's kinds by type
   * @param {() => number} [rand] random numbers in [0, 1), for wandering
   */
  constructor(layout, kinds, rand = Math.random) {
    this.kinds = kinds;
    this.rand = rand;
    /** @type {Map<string, Character>} */
    this.characters = new Map();
    this.pins = new Map(); // session → seat id the owner chose
    this.order = 0;
    this.loaded = false;
    this.setLayout(layout);
  }

  setLayout(layout) {
    this.layout = layout;
    this.derived = deriveLayout(layout, this.kinds);
    for (const ch of this.characters.values()) {
      if (ch.seat && !this.derived.seatById.has(ch.seat.id)) ch.seat = null;
      else if (ch.seat) ch.seat = this.derived.seatById.get(ch.seat.id);
      ch.spot = -1;
      ch.wandering = false;
      if (ch.tile >= this.derived.n || (ch.tile >= 0 && this.derived.blocked[ch.tile] && ch.tile !== ch.seat?.tile)) ch.tile = -1;
      ch.path = null;
    }
    this.assign(false);
  }

  /** The seats the owner chose, from GET /api/office/seats. */
  setPins(choices) {
    this.pins = new Map((choices || []).map((c) => [c.session, c.seat]));
    this.assign(true);
  }

  /**
   * Follows the sessions of GET /api/agents. The first call places
   * every character where it belongs; later ones walk new agents in from
   * the door and ended ones out.
   * @returns {{id: string, from: string|null, to: string}[]} the state changes seen
   */
  sync(sessions, now) {
    const initial = !this.loaded;
    this.loaded = true;
    const seen = new Set();
    const changes = [];
    const ordered = [...sessions].sort((a, b) => (a.started_at || '').localeCompare(b.started_at || '') || (a.id < b.id ? -1 : 1));
    for (const s of ordered) {
      if (!s || typeof s.id !== 'string') continue;
      let ch = this.characters.get(s.id);
      if (!ch) {
        if (s.state === 'ended') continue;
        ch = new Character(s.id, this.freeLook(), this.order++, Boolean(s.parent));
        ch.phase = (this.order % 2) * 0.5;
        ch.entering = !initial;
        this.characters.set(s.id, ch);
      }
      seen.add(s.id);
      const from = ch.session ? ch.state : null;
      ch.session = s;
      if (from !== s.state) {
        ch.state = s.state;
        changes.push({ id: s.id, from, to: s.state });
        this.stateChanged(ch, from, now);
      }
    }
    for (const ch of this.characters.values()) {
      if (!seen.has(ch.id) && !ch.leaving) {
        changes.push({ id: ch.id, from: ch.state, to: 'ended' });
        ch.state = 'ended';
        this.stateChanged(ch, null, now);
      }
    }
    this.assign(!initial);
    return changes;
  }

  stateChanged(ch, from, now) {
    ch.wandering = false;
    ch.wanderTile = -1;
    ch.wanderAt = Infinity;
    if (ch.state === 'ended') {
      ch.leaving = true;
      if (ch.seat) ch.seat = null;
      return;
    }
    ch.leaving = false;
    if (ch.state === 'done') {
      ch.bubbleSince = from === null ? now - DONE_SHOW - DONE_FADE : now;
      ch.wanderAt = now + SEATED_AFTER_DONE + this.rand() * SEATED_JITTER;
      ch.wanderLeft = between(this.rand(), WANDER_MOVES);
    }
  }

  // The lowest look no character uses, so no two agents in the office
  // look alike until there are more agents than looks.
  freeLook() {
    const used = new Set([...this.characters.values()].map((c) => c.look));
    let i = 0;
    while (used.has(i)) i++;
    return i;
  }

  /**
   * Gives every character a seat or a spot: the owner's choices first,
   * then the seats they have, then the free seat of their area (or any),
   * and the rest stand; sub-agents stand beside their parent. A character
   * whose place changed walks there (walk false: appears there).
   */
  assign(walk) {
    const d = this.derived;
    const chars = [...this.characters.values()].filter((c) => !c.leaving).sort((a, b) => a.order - b.order);
    const main = chars.filter((c) => !c.small);
    const taken = new Set();
    const placed = new Set();
    for (const ch of main) {
      const pin = this.pins.get(ch.id);
      const seat = pin && d.seatById.get(pin);
      if (seat && !taken.has(seat.id)) {
        ch.seat = seat;
        taken.add(seat.id);
        placed.add(ch);
      }
    }
    for (const ch of main) {
      if (placed.has(ch)) continue;
      if (ch.seat && !taken.has(ch.seat.id)) {
        taken.add(ch.seat.id);
        placed.add(ch);
      } else {
        ch.seat = null;
      }
    }
    for (const ch of main) {
      if (placed.has(ch)) continue;
      ch.seat = chooseSeat(d.seats, taken, areasFor(this.layout, ch.session || {}));
      if (ch.seat) taken.add(ch.seat.id);
    }
    // Standing places: the crowd by the door, and beside a parent.
    const used = new Map();
    const claim = (tile) => {
      const n = used.get(tile) || 0;
      used.set(tile, n + 1);
      return n;
    };
    const spots = d.spots;
    let next = 0;
    const seatTiles = new Set(d.seats.map((s) => s.tile));
    for (const ch of chars) {
      if (ch.seat) {
        ch.spot = -1;
        ch.stack = 0;
        continue;
      }
      let tile = -1;
      const parent = ch.small && this.characters.get(ch.session?.parent);
      if (parent && !parent.leaving) tile = this.besideOf(parent.seat ? parent.seat.tile : parent.spot, used, seatTiles);
      if (tile < 0 && spots.length) {
        while (next < spots.length && used.has(spots[next])) next++;
        tile = next < spots.length ? spots[next] : spots[ch.order % spots.length];
      }
      ch.spot = tile;
      ch.stack = tile >= 0 ? claim(tile) : 0;
    }
    for (const ch of this.characters.values()) this.settle(ch, walk);
  }

  // The free walkable tile nearest a parent's place, for its sub-agent.
  besideOf(tile, used, seatTiles) {
    const d = this.derived;
    if (tile < 0) return -1;
    const seen = new Uint8Array(d.n);
    const queue = [tile];
    seen[tile] = 1;
    for (let q = 0; q < queue.length && q < 400; q++) {
      const t = queue[q];
      if (t !== tile && !d.blocked[t] && !seatTiles.has(t) && !used.has(t) && t !== d.entry) return t;
      const c = t % d.cols;
      const r = (t - c) / d.cols;
      for (const [dc, dr] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ]) {
        const nc = c + dc;
        const nr = r + dr;
        if (nc < 0 || nr < 0 || nc >= d.cols || nr >= d.rows) continue;
        const nt = nr * d.cols + nc;
        if (seen[nt] || (d.blocked[nt] && t !== tile)) continue;
        seen[nt] = 1;
        queue.push(nt);
      }
    }
    return -1;
  }

  // Sends a character toward where it belongs.
  settle(ch, walk) {
    const d = this.derived;
    const goal = ch.target(d);
    if (goal < 0) return;
    if (ch.tile < 0) {
      // New: in through the door, or (on the first load, or with no door) in place.
      if (ch.entering && walk && d.door >= 0 && goal !== d.door) {
        ch.place(d, d.door);
        ch.dir = DOWN;
        ch.goTo(d, goal);
      } else {
        ch.place(d, goal);
        if (ch.seat) ch.dir = ch.seat.dir;
      }
      ch.entering = false;
      return;
    }
    if (ch.tile === goal && !ch.walking) return;
    if (ch.leaving) {
      // Out of the door, or, with no way to it, out of sight where it is.
      if (!ch.walkTo(d, goal) && !ch.fading) ch.fading = -1;
    } else if (walk) ch.goTo(d, goal);
    else ch.place(d, goal);
  }

  /**
   * Moves time on by dt seconds, to now.
   * @returns {{moving: boolean, next: number, posed: Character[]}} moving: something
   *   moves every frame; next: when the picture next changes otherwise
   *   (Infinity: never by itself); posed: characters that arrived, left or
   *   stood up, whose roster entries change
   */
  update(dt, now) {
    const d = this.derived;
    let moving = false;
    let next = Infinity;
    const posed = [];
    for (const ch of this.characters.values()) {
      const wasSeated = ch.seated;
      const wasWalking = ch.walking;
      if (ch.fading) {
        ch.alpha += (ch.fading * dt) / FADE;
        if (ch.alpha >= 1) {
          ch.alpha = 1;
          ch.fading = 0;
        } else if (ch.alpha <= 0) {
          ch.alpha = 0;
          ch.fading = 0;
          if (ch.leaving) ch.gone = true;
        }
        moving = true;
      }
      if (ch.walking) {
        this.step(ch, dt);
        moving = true;
      }
      if (ch.state === 'done' && !ch.walking && !ch.leaving) {
        if (now >= ch.wanderAt) this.wander(ch, now);
        if (ch.walking) moving = true;
        else next = Math.min(next, ch.wanderAt);
      }
      if (ch.leaving && !ch.walking && !ch.fading && !ch.gone) {
        if (ch.tile === d.door || ch.tile < 0 || d.door < 0) ch.gone = true;
        else {
          if (!ch.walkTo(d, d.door)) ch.fading = -1;
          moving = true;
        }
      }
      const b = ch.bubble(now);
      if (b && b.kind === 'done') {
        const fadeAt = ch.bubbleSince + DONE_SHOW;
        if (now < fadeAt) next = Math.min(next, fadeAt);
        else moving = true;
      }
      if (!ch.walking && !ch.leaving) {
        const p = ch.pose(now);
        if (p.pose === 'type' || p.pose === 'standtype') next = Math.min(next, gridNext(now, TYPE_FRAME, ch.phase));
        if (p.pose === 'read' || p.pose === 'standread') next = Math.min(next, gridNext(now, READ_FRAME, ch.phase));
      }
      if (wasSeated !== ch.seated || wasWalking !== ch.walking || ch.gone) posed.push(ch);
    }
    for (const ch of posed) if (ch.gone) this.characters.delete(ch.id);
    if (this.screensOn().size) next = Math.min(next, gridNext(now, TYPE_FRAME, 0));
    return { moving, next, posed };
  }

  step(ch, dt) {
    const d = this.derived;
    let budget = WALK_SPEED * dt;
    ch.walkClock += dt;
    while (budget > 0 && ch.path && ch.path.length) {
      const tile = ch.path[0];
      const p = tilePoint(d, tile);
      const dx = p.x - ch.x;
      const dy = p.y - ch.y;
      const dist = Math.abs(dx) + Math.abs(dy);
      if (dist > 0) ch.dir = dirBetween(0, 0, Math.sign(dx), Math.sign(dy));
      if (dist <= budget) {
        ch.x = p.x;
        ch.y = p.y;
        ch.tile = tile;
        ch.path.shift();
        budget -= dist;
      } else {
        ch.x += Math.sign(dx) * Math.min(Math.abs(dx), budget);
        ch.y += Math.sign(dy) * Math.min(Math.abs(dy), budget - Math.min(Math.abs(dx), budget));
        budget = 0;
      }
    }
    if (!ch.path || !ch.path.length) {
      ch.path = null;
      ch.walkClock = 0;
      if (ch.seat && ch.tile === ch.seat.tile) ch.dir = ch.seat.dir;
      else if (!ch.leaving) ch.dir = DOWN;
    }
  }

  // A done agent's walk about the room: a few moves to random spots, a
  // pause after each, then back to its seat for a rest.
  wander(ch, now) {
    const d = this.derived;
    if (ch.wanderLeft > 0 && d.spots.length) {
      ch.wanderLeft--;
      ch.wandering = true;
      ch.wanderTile = d.spots[Math.floor(this.rand() * d.spots.length)];
      if (!ch.walkTo(d, ch.wanderTile)) ch.wanderTile = -1;
      ch.wanderAt = now + between(this.rand(), WANDER_PAUSE) + (ch.walking ? ch.path.length * (TILE / WALK_SPEED) : 0);
      return;
    }
    ch.wandering = false;
    ch.wanderTile = -1;
    ch.goTo(d, ch.target(d));
    ch.wanderLeft = between(this.rand(), WANDER_MOVES);
    ch.wanderAt = now + between(this.rand(), REST);
  }

  /** The computers whose seated agent is at work: they light up. */
  screensOn() {
    const on = new Set();
    for (const ch of this.characters.values()) {
      if (ch.state === 'working' && ch.seated && ch.seat.computer) on.add(ch.seat.computer);
    }
    return on;
  }

  /** Characters in drawing order for a hit test: the front-most last. */
  list() {
    return [...this.characters.values()].sort((a, b) => a.y - b.y || a.order - b.order);
  }
}

function between(r, [lo, hi]) {
  return lo + r * (hi - lo);
}

// The next time after now on a grid of step seconds shifted by phase steps.
function gridNext(now, step, phase) {
  return (Math.floor(now / step + phase) + 1 - phase) * step + 1e-4;
}

