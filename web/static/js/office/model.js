// What the office knows about a layout, with no drawing in it: tiles and
// footprints, where characters may walk, the seats the chairs make and the
// computer each one faces, the areas and whose they are, the shortest way
// between two tiles, and the spots where agents without a seat stand.
// Pure functions and plain data, so node tests check every rule. The rules
// a saved layout must obey are the server's (package office); these only
// read a layout that obeys them.

export const TILE = 16;
export const VOID = 0;
export const WALL = 1;
export const FLOOR_FIRST = 2;
export const FLOOR_LAST = 9;
export const MAX_SIDE = 64;

/** Directions, as a chair's rot gives them: the way its sitter looks. */
export const DOWN = 0;
export const LEFT = 1;
export const UP = 2;
export const RIGHT = 3;
const STEP = [
  [0, 1],
  [-1, 0],
  [0, -1],
  [1, 0],
];

/** The direction one steps in to go from (c0, r0) to (c1, r1), a neighbour. */
export function dirBetween(c0, r0, c1, r1) {
  if (c1 > c0) return RIGHT;
  if (c1 < c0) return LEFT;
  if (r1 < r0) return UP;
  return DOWN;
}

export const isFloor = (t) => t >= FLOOR_FIRST && t <= FLOOR_LAST;

/** The catalog's furniture kinds by type. */
export function kindsByType(catalog) {
  return new Map((catalog?.furniture || []).map((k) => [k.type, k]));
}

/** An item's footprint in tiles, turned as it stands. */
export function footprint(kind, rot) {
  return rot % 2 === 1 ? { w: kind.h, h: kind.w } : { w: kind.w, h: kind.h };
}

/** The tile indices an item covers (inside the grid). */
export function itemTiles(layout, kind, item) {
  const { w, h } = footprint(kind, item.rot || 0);
  const out = [];
  for (let r = item.row; r < item.row + h; r++) {
    for (let c = item.col; c < item.col + w; c++) {
      if (c >= 0 && r >= 0 && c < layout.cols && r < layout.rows) out.push(r * layout.cols + c);
    }
  }
  return out;
}

/**
 * Everything the office derives from a layout, once per layout:
 * walkable tiles, seats, computers, the door, areas by tile, and the spots
 * agents without a seat stand on.
 */
export function deriveLayout(layout, kinds) {
  const { cols, rows, tiles } = layout;
  const n = cols * rows;
  const blocked = new Uint8Array(n);
  for (let i = 0; i < n; i++) blocked[i] = isFloor(tiles[i]) ? 0 : 1;
  const areaOf = new Int16Array(n).fill(-1);
  (layout.areas || []).forEach((a, ai) => {
    for (const t of a.tiles || []) if (t >= 0 && t < n) areaOf[t] = ai;
  });
  const doors = [];
  const chairs = [];
  const screens = [];
  const onDesk = new Uint8Array(n);
  for (const item of layout.furniture || []) {
    const kind = kinds.get(item.type);
    if (!kind) continue;
    const covered = itemTiles(layout, kind, item);
    if (kind.walk) {
      for (const t of covered) blocked[t] = 0;
      doors.push({ item, tile: covered[0] });
    } else if (kind.blocks) {
      for (const t of covered) blocked[t] = 1;
    }
    if (item.type === 'desk') for (const t of covered) onDesk[t] = 1;
    if (kind.seat) chairs.push(item);
    if (kind.screen) screens.push(item);
  }
  const seats = chairs.map((item) => {
    const tile = item.row * cols + item.col;
    return {
      id: item.uid,
      col: item.col,
      row: item.row,
      tile,
      dir: item.rot || 0,
      area: areaOf[tile],
      computer: facedScreen(item, screens),
    };
  });
  // Seats that face a computer first, then top to bottom, left to right:
  // the order an office fills in.
  seats.sort((a, b) => (a.computer ? 0 : 1) - (b.computer ? 0 : 1) || a.row - b.row || a.col - b.col);
  const door = doors.length ? doors[0].tile : firstWalkable(blocked, cols, rows);
  const entry = door < 0 ? -1 : entryOf(door, blocked, cols, rows);
  const seatTiles = new Set(seats.map((s) => s.tile));
  const spots = door < 0 ? [] : standingSpots(entry, blocked, cols, rows, seatTiles, onDesk);
  return { cols, rows, n, blocked, areaOf, seats, seatById: new Map(seats.map((s) => [s.id, s])), door, entry, spots, screens };
}

// The computer a chair's sitter looks at: the nearest screen ahead of it,
// up to two tiles deep and one to either side.
function facedScreen(chair, screens) {
  const [dc, dr] = STEP[chair.rot || 0];
  let best = null;
  let bestScore = Infinity;
  for (const s of screens) {
    const ahead = (s.col - chair.col) * dc + (s.row - chair.row) * dr;
    const side = Math.abs((s.col - chair.col) * dr) + Math.abs((s.row - chair.row) * dc);
    if (ahead < 1 || ahead > 2 || side > 1) continue;
    const score = ahead * 2 + side;
    if (score < bestScore) {
      best = s.uid;
      bestScore = score;
    }
  }
  return best;
}

function firstWalkable(blocked, cols, rows) {
  for (let i = 0; i < cols * rows; i++) if (!blocked[i]) return i;
  return -1;
}

// The floor tile one steps onto from the door: its walkable neighbour, the
// one below first (a door in a top wall opens down into the room).
function entryOf(door, blocked, cols, rows) {
  const c = door % cols;
  const r = Math.floor(door / cols);
  for (const d of [DOWN, RIGHT, LEFT, UP]) {
    const nc = c + STEP[d][0];
    const nr = r + STEP[d][1];
    if (nc >= 0 && nr >= 0 && nc < cols && nr < rows && !blocked[nr * cols + nc]) return nr * cols + nc;
  }
  return door;
}

// Where agents without a seat stand: the walkable tiles nearest the door
// (its way in kept clear), in that order, skipping seats and the tiles
// right beside desks, where seated agents would be hidden.
function standingSpots(entry, blocked, cols, rows, seatTiles, onDesk) {
  const order = bfsOrder(entry, blocked, cols, rows);
  const beside = (t) => {
    const c = t % cols;
    const r = Math.floor(t / cols);
    return STEP.some(([dc, dr]) => {
      const nc = c + dc;
      const nr = r + dr;
      return nc >= 0 && nr >= 0 && nc < cols && nr < rows && onDesk[nr * cols + nc];
    });
  };
  const first = order.filter((t) => t !== entry && !seatTiles.has(t) && !beside(t));
  const rest = order.filter((t) => t !== entry && !seatTiles.has(t) && beside(t));
  return [...first, ...rest];
}

function bfsOrder(start, blocked, cols, rows) {
  const seen = new Uint8Array(cols * rows);
  const out = [];
  const queue = [start];
  seen[start] = 1;
  for (let q = 0; q < queue.length; q++) {
    const t = queue[q];
    out.push(t);
    const c = t % cols;
    const r = (t - c) / cols;
    for (const [dc, dr] of STEP) {
      const nc = c + dc;
      const nr = r + dr;
      if (nc < 0 || nr < 0 || nc >= cols || nr >= rows) continue;
      const nt = nr * cols + nc;
      if (seen[nt] || blocked[nt]) continue;
      seen[nt] = 1;
      queue.push(nt);
    }
  }
  return out;
}

/**
 * The shortest way from tile `from` to tile `to` over the 4-connected
 * grid, around what blocks: the tiles after `from`, ending with `to`; []
 * when already there; null when there is no way. The two ends may be
 * blocked themselves (a character gets up from its chair and sits on
 * another).
 */
export function findPath(derived, from, to) {
  if (from === to) return [];
  const { cols, rows, blocked } = derived;
  const prev = new Int32Array(cols * rows).fill(-1);
  prev[from] = from;
  const queue = new Int32Array(cols * rows);
  let head = 0;
  let tail = 0;
  queue[tail++] = from;
  while (head < tail) {
    const t = queue[head++];
    const c = t % cols;
    const r = (t - c) / cols;
    for (let d = 0; d < 4; d++) {
      const nc = c + STEP[d][0];
      const nr = r + STEP[d][1];
      if (nc < 0 || nr < 0 || nc >= cols || nr >= rows) continue;
      const nt = nr * cols + nc;
      if (prev[nt] !== -1 || (blocked[nt] && nt !== to)) continue;
      prev[nt] = t;
      if (nt === to) {
        const path = [];
        for (let x = to; x !== from; x = prev[x]) path.push(x);
        return path.reverse();
      }
      queue[tail++] = nt;
    }
  }
  return null;
}

/** The areas of a session: those of its project, or whose folder holds its folder. */
export function areasFor(layout, session) {
  const out = [];
  (layout.areas || []).forEach((a, i) => {
    if (a.project && session.project === a.project) out.push(i);
    else if (a.folder && insideFolder(session.cwd, a.folder)) out.push(i);
  });
  return out;
}

function insideFolder(dir, root) {
  if (!dir || !root) return false;
  const d = dir.replace(/[\\/]+$/, '');
  const r = root.replace(/[\\/]+$/, '');
  return d === r || d.startsWith(`${r}/`) || d.startsWith(`${r}\\`);
}

/**
 * Chooses a seat for a session among the free ones: in its areas when one
 * is free there, else an unzoned seat, else any. Seats come in the office's
 * order (deriveLayout), so the same office fills the same way in every tab.
 * @param {object[]} seats derived.seats
 * @param {Set<string>} taken seat ids in use
 * @param {number[]} areas the session's areas (areasFor)
 * @returns {object|null} the seat, or null when every seat is taken
 */
export function chooseSeat(seats, taken, areas) {
  const free = seats.filter((s) => !taken.has(s.id));
  if (areas.length) {
    const mine = free.find((s) => areas.includes(s.area));
    if (mine) return mine;
  }
  return free.find((s) => s.area < 0) || free[0] || null;
}

/**
 * The wall piece for a wall tile: a bit for each side where the wall goes
 * on (north 1, east 2, south 4, west 8), so that walls join up by
 * themselves. A door counts as wall.
 */
export function wallMask(layout, i) {
  const { cols, rows, tiles } = layout;
  const c = i % cols;
  const r = Math.floor(i / cols);
  const wall = (cc, rr) => cc >= 0 && rr >= 0 && cc < cols && rr < rows && tiles[rr * cols + cc] === WALL;
  return (wall(c, r - 1) ? 1 : 0) | (wall(c + 1, r) ? 2 : 0) | (wall(c, r + 1) ? 4 : 0) | (wall(c - 1, r) ? 8 : 0);
}

/** What a character does sitting at work: type, or read. */
export function workPose(session) {
  switch (session?.activity?.kind) {
    case 'reading':
    case 'searching':
    case 'thinking':
    case 'browsing':
      return 'read';
    default:
      return 'type';
  }
}

const STATE_WORDS = {
  needs_permission: 'needs permission',
  waiting_input: 'waiting for input',
  done: 'done',
  unknown: 'state unknown',
  ended: 'leaving',
};

/** "claude · mygame · Editing store.go": the hover label of a session. */
export function sessionLabel(session) {
  let doing;
  if (session.state === 'working') doing = session.activity?.label || 'Thinking';
  else if (session.state === 'needs_permission' && session.permission?.label) doing = `needs permission: ${session.permission.label}`;
  else doing = STATE_WORDS[session.state] || STATE_WORDS.unknown;
  const where = session.project || lastFolder(session.cwd);
  return [session.name, session.client || 'agent', where, doing].filter(Boolean).join(' · ');
}

function lastFolder(cwd) {
  const parts = String(cwd || '').split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] || '';
}

/** The bubble a session's state shows over its character, if any. */
export function bubbleOf(state) {
  if (state === 'needs_permission') return 'permission';
  if (state === 'waiting_input') return 'waiting';
  if (state === 'done') return 'done';
  return '';
}

/** A deep copy of a layout, for the editor's undo and a working copy. */
export function cloneLayout(layout) {
  return {
    version: layout.version,
    cols: layout.cols,
    rows: layout.rows,
    tiles: layout.tiles.slice(),
    colors: (layout.colors || new Array(layout.tiles.length).fill('')).slice(),
    furniture: layout.furniture.map((f) => ({ ...f })),
    areas: (layout.areas || []).map((a) => ({ ...a, tiles: a.tiles.slice() })),
    revision: layout.revision,
  };
}

/** Whether two layouts are the same office (revision aside). */
export function sameLayout(a, b) {
  return JSON.stringify({ ...a, revision: 0 }) === JSON.stringify({ ...b, revision: 0 });
}
