// Draws the office on its canvas at an integer zoom, pixel for pixel: the
// floor as one picture, then walls, furniture and characters in order of
// depth (what stands further down the room covers what stands behind
// it; a chair's back covers its sitter), then bubbles and area names. The
// walls and furniture are listed once per layout, already in order; only
// the characters are sorted into them each frame.

import { TILE, WALL, isFloor, wallMask, footprint, UP } from './model.js';
import { drawFloor, drawWall, drawItem, drawBubble, lookOf, RISE, WALL_PIECE, PERSON, BOT, BUBBLE, FLOOR_COLORS } from './art.js';

// The floor is kept scaled to the zoom while that costs no more than this
// many pixels; a larger office is scaled from its one-to-one picture as it
// is drawn.
const MAX_SCALED_FLOOR = 6_000_000;
// Above the top wall: the rim of wall pieces and the heads of people.
export const TOP_MARGIN = 12;

export class Renderer {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {import('./art.js').Sprites} sprites
   */
  constructor(canvas, sprites) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.sprites = sprites;
    this.statics = [];
    this.floor = null;
    this.floorScaled = null;
    this.floorZoom = 0;
    this.layoutKey = 0;
    this.background = '#1b1e25';
  }

  /** The layout to draw: lists its walls and furniture, paints its floor. */
  setLayout(layout, derived, kinds) {
    this.layout = layout;
    this.derived = derived;
    this.kinds = kinds;
    this.layoutKey++;
    this.statics = listStatics(layout, kinds);
    this.floor = paintFloor(layout);
    this.floorScaled = null;
    this.labels = areaLabels(layout);
  }

  /** Sizes the canvas to its box, in device pixels. */
  resize(cssWidth, cssHeight, dpr) {
    const w = Math.max(1, Math.round(cssWidth * dpr));
    const h = Math.max(1, Math.round(cssHeight * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
  }

  /**
   * Draws one frame.
   * @param {import('./scene.js').Scene|null} scene the characters, or null (the editor)
   * @param {{z: number, x: number, y: number}} cam device pixels per world pixel, and where world (0, 0) is
   * @param {number} now seconds
   * @param {{hover?: string|null, selected?: string|null, showAreas?: boolean, overlay?: Function}} opts
   */
  draw(scene, cam, now, opts = {}) {
    const { ctx, canvas, sprites } = this;
    const z = cam.z;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.globalAlpha = 1;
    ctx.fillStyle = this.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (!this.layout) return;
    const ox = Math.round(cam.x);
    const oy = Math.round(cam.y);
    this.drawFloor(ox, oy, z);
    if (opts.showAreas !== false) {
      this.drawAreaEdges(ox, oy, z);
      this.drawAreaNames(ox, oy, z);
    }

    // The visible world, to skip what is off screen.
    const left = -ox / z - 32;
    const right = (canvas.width - ox) / z + 32;
    const top = -oy / z - 48;
    const bottom = (canvas.height - oy) / z + 48;
    const screens = scene ? scene.screensOn() : new Set();
    const screenFrame = Math.floor(now / 0.3) % 3;
    const chars = scene ? scene.list() : [];
    const statics = this.statics;
    let ci = 0;
    const bubbles = [];
    for (let si = 0; si <= statics.length; si++) {
      const s = statics[si];
      // Every character in front of nothing more than this item goes first.
      while (ci < chars.length && (!s || chars[ci].y < s.z)) {
        const ch = chars[ci++];
        this.drawCharacter(ch, ox, oy, z, now, opts, left, right, top, bottom);
        const b = ch.bubble(now);
        if (b && ch.alpha > 0) bubbles.push({ ch, b });
      }
      if (!s) break;
      if (s.x + s.w < left || s.x > right || s.y + s.h < top || s.y > bottom) continue;
      let img;
      if (s.screen) {
        const on = screens.has(s.uid);
        img = sprites.get(`${s.key}:${on ? screenFrame : 'off'}`, z, () => drawItem('computer', s.rot, s.color, s.fw, s.fh, { on, frame: screenFrame }));
      } else img = sprites.get(s.key, z, s.make);
      ctx.drawImage(img, ox + s.x * z, oy + s.y * z);
    }
    for (const { ch, b } of bubbles) {
      const img = sprites.get(`bubble:${b.kind}`, z, () => drawBubble(b.kind));
      const head = ch.small ? BOT.ay + 2 : PERSON.ay + (ch.seated ? -1 : 2);
      ctx.globalAlpha = b.alpha * ch.alpha;
      ctx.drawImage(img, ox + (Math.round(ch.x) - Math.floor(BUBBLE.w / 2)) * z, oy + (Math.round(ch.y) - head - BUBBLE.h) * z);
    }
    ctx.globalAlpha = 1;
    opts.overlay?.(ctx, { ox, oy, z });
  }

  drawCharacter(ch, ox, oy, z, now, opts, left, right, top, bottom) {
    if (ch.x < left || ch.x > right || ch.y < top || ch.y > bottom) return;
    const d = this.derived;
    // Inside the doorway it is behind the wall.
    const tile = Math.floor(ch.y / TILE) * d.cols + Math.floor(ch.x / TILE);
    if (ch.y >= 0 && this.layout.tiles[tile] === WALL) return;
    const { ctx, sprites } = this;
    const p = ch.pose(now);
    const img = sprites.person(lookOf(ch.look), ch.look, p.dir, p.pose, p.frame, ch.small, z);
    const frame = ch.small ? BOT : PERSON;
    const sx = Math.round(ch.x) - frame.ax + (ch.stack % 3) * 5 - (ch.stack % 3 ? 5 : 0);
    const sy = Math.round(ch.y) - frame.ay - Math.floor(ch.stack / 3) * 2;
    ctx.globalAlpha = ch.alpha * (ch.state === 'unknown' && !ch.walking ? 0.45 : 1);
    if (opts.hover === ch.id || opts.selected === ch.id) {
      ctx.fillStyle = opts.selected === ch.id ? 'rgba(255, 214, 92, 0.9)' : 'rgba(255, 255, 255, 0.75)';
      const fx = Math.round(ch.x) - 5;
      const fy = Math.round(ch.y) - (ch.seated ? 0 : 1);
      ctx.fillRect(ox + fx * z, oy + fy * z, 10 * z, z);
      ctx.fillRect(ox + (fx + 1) * z, oy + (fy + 1) * z, 8 * z, z);
    }
    ctx.drawImage(img, ox + sx * z, oy + sy * z);
    ctx.globalAlpha = 1;
  }

  drawFloor(ox, oy, z) {
    const { ctx, floor } = this;
    const y0 = -TOP_MARGIN;
    if (!this.floorScaled || this.floorZoom !== z) {
      this.floorZoom = z;
      this.floorScaled = null;
      if (floor.width * floor.height * z * z <= MAX_SCALED_FLOOR) {
        const c = document.createElement('canvas');
        c.width = floor.width * z;
        c.height = floor.height * z;
        const cx = c.getContext('2d');
        cx.imageSmoothingEnabled = false;
        cx.drawImage(floor, 0, 0, c.width, c.height);
        this.floorScaled = c;
      }
    }
    if (this.floorScaled) ctx.drawImage(this.floorScaled, ox, oy + y0 * z);
    else ctx.drawImage(floor, 0, 0, floor.width, floor.height, ox, oy + y0 * z, floor.width * z, floor.height * z);
  }

  drawAreaEdges(ox, oy, z) {
    const { ctx, layout } = this;
    const { cols } = layout;
    const areas = layout.areas || [];
    const areaOf = this.derived.areaOf;
    for (let i = 0; i < areaOf.length; i++) {
      const a = areaOf[i];
      if (a < 0) continue;
      const c = i % cols;
      const r = (i - c) / cols;
      ctx.fillStyle = areas[a].color;
      ctx.globalAlpha = 0.55;
      const x = ox + c * TILE * z;
      const y = oy + r * TILE * z;
      const edge = (cc, rr) => cc < 0 || rr < 0 || cc >= cols || rr >= layout.rows || areaOf[rr * cols + cc] !== a;
      if (edge(c, r - 1)) ctx.fillRect(x, y, TILE * z, z);
      if (edge(c, r + 1)) ctx.fillRect(x, y + (TILE - 1) * z, TILE * z, z);
      if (edge(c - 1, r)) ctx.fillRect(x, y, z, TILE * z);
      if (edge(c + 1, r)) ctx.fillRect(x + (TILE - 1) * z, y, z, TILE * z);
    }
    ctx.globalAlpha = 1;
  }

  drawAreaNames(ox, oy, z) {
    const { ctx } = this;
    ctx.font = `600 ${Math.max(9, 5 * z)}px system-ui, sans-serif`;
    ctx.textBaseline = 'top';
    for (const l of this.labels) {
      const x = ox + (l.col * TILE + 2) * z;
      const y = oy + (l.row * TILE + 2) * z;
      ctx.globalAlpha = 0.85;
      ctx.fillStyle = 'rgba(20, 22, 28, 0.55)';
      const w = ctx.measureText(l.name).width;
      ctx.fillRect(x - z, y - z, w + 2 * z, Math.max(9, 5 * z) + 2 * z);
      ctx.fillStyle = l.color;
      ctx.fillText(l.name, x, y);
    }
    ctx.globalAlpha = 1;
  }
}

// The office's floor at one pixel a pixel: floor tiles, with a tint over
// each area's tiles.
function paintFloor(layout) {
  const { cols, rows, tiles } = layout;
  const colors = layout.colors || [];
  const c = document.createElement('canvas');
  c.width = cols * TILE;
  c.height = rows * TILE + TOP_MARGIN;
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#1b1e25';
  ctx.fillRect(0, 0, c.width, c.height);
  const cache = new Map();
  for (let i = 0; i < tiles.length; i++) {
    const t = tiles[i];
    if (!isFloor(t)) continue;
    const key = `${t}:${colors[i] || ''}`;
    let img = cache.get(key);
    if (!img) {
      img = drawFloor(t - 2, colors[i] || FLOOR_COLORS[t - 2]);
      cache.set(key, img);
    }
    ctx.drawImage(img, (i % cols) * TILE, Math.floor(i / cols) * TILE + TOP_MARGIN);
  }
  (layout.areas || []).forEach((a) => {
    ctx.fillStyle = a.color;
    ctx.globalAlpha = 0.16;
    for (const t of a.tiles || []) if (t >= 0 && t < tiles.length) ctx.fillRect((t % cols) * TILE, Math.floor(t / cols) * TILE + TOP_MARGIN, TILE, TILE);
  });
  ctx.globalAlpha = 1;
  return c;
}

// Where each area's name goes: its top-left tile.
function areaLabels(layout) {
  return (layout.areas || [])
    .filter((a) => a.tiles?.length)
    .map((a) => {
      let best = a.tiles[0];
      for (const t of a.tiles) {
        const r = Math.floor(t / layout.cols);
        const br = Math.floor(best / layout.cols);
        if (r < br || (r === br && t % layout.cols < best % layout.cols)) best = t;
      }
      return { name: a.name, color: a.color, col: best % layout.cols, row: Math.floor(best / layout.cols) };
    });
}

/**
 * The walls and furniture of a layout as things to draw, in order of
 * depth: each at its top-left world pixel, with the depth z at which a
 * character passes in front of it.
 */
export function listStatics(layout, kinds) {
  const out = [];
  const { cols, tiles } = layout;
  const colors = layout.colors || [];
  for (let i = 0; i < tiles.length; i++) {
    if (tiles[i] !== WALL) continue;
    const mask = wallMask(layout, i);
    const color = colors[i] || '';
    const c = i % cols;
    const r = (i - c) / cols;
    out.push({
      key: `wall:${mask}:${color}`,
      make: () => drawWall(mask, color),
      x: c * TILE - WALL_PIECE.ax,
      y: r * TILE - WALL_PIECE.ay,
      w: WALL_PIECE.w,
      h: WALL_PIECE.h,
      z: (r + 1) * TILE - 0.5,
      order: i,
    });
  }
  for (const item of layout.furniture || []) {
    const kind = kinds.get(item.type);
    if (!kind) continue;
    const { w, h } = footprint(kind, item.rot || 0);
    const rise = RISE[item.type] ?? 8;
    const base = {
      x: item.col * TILE,
      y: item.row * TILE - rise,
      w: w * TILE,
      h: h * TILE + rise,
      order: tiles.length + out.length,
    };
    const bottom = (item.row + h) * TILE;
    const key = `item:${item.type}:${item.rot || 0}:${item.color || ''}:${w}x${h}`;
    const make = (part) => () => drawItem(item.type, item.rot || 0, item.color, w, h, { part });
    if (kind.screen) {
      out.push({ ...base, key, screen: true, uid: item.uid, rot: item.rot || 0, color: item.color, fw: w, fh: h, z: bottom + 0.2 });
    } else if (item.type === 'chair' && (item.rot || 0) === UP) {
      // The seat goes under its sitter, the back over them.
      out.push({ ...base, key: `${key}:seat`, make: make(''), z: item.row * TILE + 1 });
      out.push({ ...base, key: `${key}:back`, make: make('back'), z: bottom + 0.1 });
    } else if (item.type === 'chair') {
      out.push({ ...base, key, make: make(''), z: item.row * TILE + 1 });
    } else if (kind.on_wall) {
      out.push({ ...base, key, make: make(''), z: bottom - 0.4 });
    } else {
      out.push({ ...base, key, make: make(''), z: bottom });
    }
  }
  out.sort((a, b) => a.z - b.z || a.order - b.order);
  return out;
}

