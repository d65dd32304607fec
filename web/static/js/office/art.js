// The office's art, drawn by code, pixel by pixel, at one pixel a world
// pixel: people in six looks (more by shifting their colours) with walk,
// type and read frames in four directions, small helper bots for
// sub-agents, floors in eight patterns, walls that join up, the furniture,
// and the bubbles. Nothing is loaded: every sprite is made the first time
// it is asked for, then kept; Sprites keeps a copy scaled to each zoom in
// use, so a frame is only copies of ready-made images.

import { UP, LEFT, RIGHT } from './model.js';

// ---- Colours --------------------------------------------------------------

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hex([r, g, b]) {
  const c = (v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0');
  return `#${c(r)}${c(g)}${c(b)}`;
}

/** Lighter (f > 0) or darker (f < 0) by a fraction. */
export function shade(color, f) {
  const [r, g, b] = rgb(color);
  return f >= 0 ? hex([r + (255 - r) * f, g + (255 - g) * f, b + (255 - b) * f]) : hex([r * (1 + f), g * (1 + f), b * (1 + f)]);
}

/** The colour turned round the colour wheel by deg degrees. */
export function hueShift(color, deg) {
  let [r, g, b] = rgb(color).map((v) => v / 255);
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  let h = 0;
  let s = 0;
  if (max !== min) {
    const d = max - min;
    s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
    h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    h /= 6;
  }
  h = (((h + deg / 360) % 1) + 1) % 1;
  const hue = (p, q, t) => {
    t = ((t % 1) + 1) % 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  if (s === 0) {
    r = g = b = l;
  } else {
    const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
    const p = 2 * l - q;
    r = hue(p, q, h + 1 / 3);
    g = hue(p, q, h);
    b = hue(p, q, h - 1 / 3);
  }
  return hex([r * 255, g * 255, b * 255]);
}

// ---- Looks ----------------------------------------------------------------

// Six people, each with their own hair, skin and clothes.
const BASE_LOOKS = [
  { skin: '#f1c27d', hair: '#3b2a1a', style: 'short', shirt: '#3d7dd8', pants: '#2f3b52', shoes: '#23232b', extra: '#3d7dd8' },
  { skin: '#c68642', hair: '#151515', style: 'long', shirt: '#d8563d', pants: '#3a3a42', shoes: '#5a3a22', extra: '#d8563d' },
  { skin: '#8d5524', hair: '#1b1b1b', style: 'curly', shirt: '#3fa66a', pants: '#2b4a6b', shoes: '#23232b', extra: '#3fa66a' },
  { skin: '#ffdbac', hair: '#d9a441', style: 'bun', shirt: '#8e5bd0', pants: '#4a3b2b', shoes: '#3a2f2f', extra: '#8e5bd0' },
  { skin: '#e0ac69', hair: '#6b3e26', style: 'cap', shirt: '#e9e6df', pants: '#1f4e79', shoes: '#23232b', extra: '#e8b730' },
  { skin: '#a86b3c', hair: '#c0392b', style: 'spiky', shirt: '#f08c2e', pants: '#333d29', shoes: '#151515', extra: '#f08c2e' },
];
const SKINS = ['#f1c27d', '#c68642', '#8d5524', '#ffdbac', '#e0ac69', '#a86b3c', '#5c3a21', '#f5d0b0'];
const HAIRS = ['#2a1c12', '#0e0e0e', '#8a5a2b', '#e3c16f', '#b5b5b5', '#4a2d6b', '#7a2a1f', '#2c4a3a'];

/**
 * The look of the i-th agent: the six people first, then the same six in
 * other colours (a turn of the colour wheel for every six more), so no two
 * of the first dozens look alike.
 */
export function lookOf(i) {
  const base = BASE_LOOKS[i % BASE_LOOKS.length];
  const round = Math.floor(i / BASE_LOOKS.length);
  if (round === 0) return base;
  const turn = (round * 137) % 360;
  return {
    ...base,
    skin: SKINS[(i + round) % SKINS.length],
    hair: HAIRS[(i * 3 + round) % HAIRS.length],
    shirt: hueShift(base.shirt, turn),
    pants: hueShift(base.pants, turn / 2),
    extra: hueShift(base.extra, turn),
  };
}

// ---- Canvases -------------------------------------------------------------

function newCanvas(w, h) {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(w, h);
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c;
}

/** A pen over a small canvas: px(x, y, w, h, colour). */
function pen(w, h) {
  const canvas = newCanvas(w, h);
  const ctx = canvas.getContext('2d');
  const px = (x, y, pw = 1, ph = 1, color) => {
    if (!color) return;
    ctx.fillStyle = color;
    ctx.fillRect(x, y, pw, ph);
  };
  return { canvas, ctx, px };
}

function mirrored(src) {
  const out = newCanvas(src.width, src.height);
  const ctx = out.getContext('2d');
  ctx.translate(src.width, 0);
  ctx.scale(-1, 1);
  ctx.drawImage(src, 0, 0);
  return out;
}

// ---- People ---------------------------------------------------------------

/** A person's sprite size and where their feet are in it. */
export const PERSON = { w: 16, h: 24, ax: 8, ay: 22 };
/** A helper bot's. */
export const BOT = { w: 12, h: 14, ax: 6, ay: 13 };

const SIT = 3; // how much lower a seated body is

/**
 * Draws a person.
 * @param {object} look lookOf(i)
 * @param {number} dir DOWN, UP, LEFT or RIGHT
 * @param {string} pose walk, stand, sit, type, read, standtype, standread
 * @param {number} frame the pose's frame
 */
export function drawPerson(look, dir, pose, frame) {
  if (dir === LEFT) return mirrored(drawPerson(look, RIGHT, pose, frame));
  const { canvas, px } = pen(PERSON.w, PERSON.h);
  const c = {
    skin: look.skin,
    skinD: shade(look.skin, -0.18),
    hair: look.hair,
    hairL: shade(look.hair, 0.22),
    shirt: look.shirt,
    shirtD: shade(look.shirt, -0.25),
    pants: look.pants,
    pantsD: shade(look.pants, -0.3),
    shoes: look.shoes,
    eye: '#1d1d26',
    extra: look.extra,
  };
  const seated = pose === 'sit' || pose === 'type' || pose === 'read';
  const walking = pose === 'walk';
  const bob = walking && frame % 2 === 1 ? -1 : 0;
  const y0 = (seated ? SIT : 0) + bob; // the upper body's offset
  // The shadow on the floor.
  px(4, 21, 8, 1, 'rgba(0,0,0,0.20)');
  px(3, 22, 10, 1, 'rgba(0,0,0,0.16)');
  if (dir === RIGHT) sideBody(px, c, look, pose, frame, y0, seated, walking);
  else frontBody(px, c, look, dir, pose, frame, y0, seated, walking);
  return canvas;
}

function frontBody(px, c, look, dir, pose, frame, y0, seated, walking) {
  const back = dir === UP;
  // Legs and shoes (seated: knees only, under the desk or the chair's back).
  if (seated) {
    px(5, 19, 2, 2, c.pants);
    px(9, 19, 2, 2, c.pants);
  } else {
    const lift = walking ? [0, 1, 0, 0][frame] : 0; // the right leg steps
    const liftL = walking ? [0, 0, 0, 1][frame] : 0;
    px(5, 17, 2, 4 - liftL, c.pants);
    px(9, 17, 2, 4 - lift, c.pants);
    px(7, 17, 2, 1, c.pants);
    px(4, 21 - liftL, 3, 1, c.shoes);
    px(9, 21 - lift, 3, 1, c.shoes);
  }
  // Torso, belt and arms.
  px(4, 10 + y0, 8, 6, c.shirt);
  px(11, 10 + y0, 1, 6, c.shirtD);
  px(4, 16 + y0, 8, 1, c.pantsD);
  if (!back) px(7, 10 + y0, 2, 1, c.skinD); // the collar
  else {
    px(4, 10 + y0, 8, 1, c.shirtD); // the shoulders' line, under the hair
    px(4, 10 + y0, 1, 6, c.shirtD);
  }
  const arms = armsFront(pose, frame, back, walking);
  for (const a of arms) {
    px(a.x, a.y + y0, 1, a.len, c.shirtD);
    if (a.hand) px(a.hand[0], a.hand[1] + y0, a.hand[2] || 1, 1, c.skin);
  }
  // What it holds.
  if (pose === 'read' && !back) {
    const up = frame;
    px(6, 14 + y0 - up, 4, 4, '#f4f1e8');
    px(7, 15 + y0 - up, 2, 1, '#9aa3b5');
    px(7, 17 + y0 - up, 2, 1, '#9aa3b5');
  }
  if (pose === 'read' && back) px(11, 11 + y0 - frame, 3, 4, '#f4f1e8');
  if (pose === 'standtype' || pose === 'standread') {
    if (!back) {
      px(5, 13, 6, 3, '#3a3f4c');
      px(6, 13, 4, 2, pose === 'standtype' ? '#8fd8ff' : '#f4f1e8');
    }
  }
  // The head.
  px(4, 2 + y0, 8, 8, c.skin);
  px(11, 3 + y0, 1, 6, c.skinD);
  if (!back) {
    const look2 = pose === 'read' || pose === 'standread' || pose === 'type' ? 1 : 0; // eyes down at work
    px(6, 6 + y0 + look2, 1, 1, c.eye);
    px(9, 6 + y0 + look2, 1, 1, c.eye);
    px(7, 8 + y0, 2, 1, c.skinD);
  }
  hairFront(px, c, look.style, back, y0);
}

function armsFront(pose, frame, back, walking) {
  if (walking) {
    const swing = [0, 1, 0, -1][frame];
    return [
      { x: 3, y: 11, len: 5, hand: [3, 16 + swing] },
      { x: 12, y: 11, len: 5, hand: [12, 16 - swing] },
    ];
  }
  switch (pose) {
    case 'type':
      // Forearms on the desk, hands at the keys, one up then the other.
      if (back) return [{ x: 3, y: 11, len: 4 - (frame === 0 ? 1 : 0) }, { x: 12, y: 11, len: 4 - (frame === 1 ? 1 : 0) }];
      return [
        { x: 3, y: 11, len: 4, hand: [4, 15 + (frame === 0 ? -1 : 0), 2] },
        { x: 12, y: 11, len: 4, hand: [10, 15 + (frame === 1 ? -1 : 0), 2] },
      ];
    case 'read':
      if (back) return [{ x: 3, y: 11, len: 4 }, { x: 12, y: 11, len: 3 }];
      return [
        { x: 3, y: 11, len: 4, hand: [5, 15 - frame] },
        { x: 12, y: 11, len: 4, hand: [10, 15 - frame] },
      ];
    case 'standtype':
    case 'standread':
      return [
        { x: 3, y: 11, len: 3, hand: [4, 14 + (frame === 0 ? 0 : 1)] },
        { x: 12, y: 11, len: 3, hand: [11, 14 + (frame === 1 ? 0 : 1)] },
      ];
    default:
      return [
        { x: 3, y: 11, len: 5, hand: [3, 16] },
        { x: 12, y: 11, len: 5, hand: [12, 16] },
      ];
  }
}

function hairFront(px, c, style, back, y0) {
  const y = (v) => v + y0;
  switch (style) {
    case 'short':
      px(4, y(1), 8, 2, c.hair);
      px(4, y(3), 1, back ? 5 : 2, c.hair);
      px(11, y(3), 1, back ? 5 : 2, c.hair);
      px(5, y(3), 6, back ? 4 : 1, c.hair);
      px(6, y(1), 3, 1, c.hairL);
      break;
    case 'long':
      px(4, y(1), 8, 3, c.hair);
      px(3, y(2), 1, 9, c.hair);
      px(12, y(2), 1, 9, c.hair);
      px(4, y(4), 1, 5, c.hair);
      px(11, y(4), 1, 5, c.hair);
      if (back) {
        px(5, y(4), 6, 5, c.hair);
        px(6, y(9), 4, 1, c.hair);
      }
      px(6, y(1), 2, 1, c.hairL);
      break;
    case 'curly':
      px(3, y(0), 10, 4, c.hair);
      px(2, y(1), 1, 5, c.hair);
      px(13, y(1), 1, 5, c.hair);
      px(3, y(4), 1, 3, c.hair);
      px(12, y(4), 1, 3, c.hair);
      if (back) px(4, y(4), 8, 5, c.hair);
      px(5, y(0), 1, 1, c.hairL);
      px(9, y(1), 1, 1, c.hairL);
      px(7, y(0), 1, 1, c.hairL);
      break;
    case 'bun':
      px(6, y(-1), 4, 2, c.hair);
      px(4, y(1), 8, 2, c.hair);
      px(4, y(3), 1, 2, c.hair);
      px(11, y(3), 1, 2, c.hair);
      if (back) px(5, y(3), 6, 5, c.hair);
      px(7, y(-1), 1, 1, c.hairL);
      break;
    case 'cap':
      px(4, y(3), 1, 2, c.hair);
      px(11, y(3), 1, 2, c.hair);
      if (back) px(5, y(3), 6, 4, c.hair);
      px(4, y(0), 8, 3, c.extra);
      px(5, y(0), 3, 1, shade(c.extra, 0.3));
      if (!back) px(3, y(3), 10, 1, shade(c.extra, -0.3));
      else px(6, y(3), 4, 1, shade(c.extra, -0.3));
      break;
    case 'spiky':
      px(4, y(1), 8, 2, c.hair);
      for (const x of [4, 6, 8, 10]) px(x, y(0), 1, 1, c.hair);
      px(5, y(-1), 1, 1, c.hair);
      px(9, y(-1), 1, 1, c.hair);
      px(4, y(3), 1, 2, c.hair);
      px(11, y(3), 1, 2, c.hair);
      if (back) px(5, y(3), 6, 4, c.hair);
      px(7, y(1), 2, 1, c.hairL);
      break;
  }
}

function sideBody(px, c, look, pose, frame, y0, seated, walking) {
  // Legs: apart in the walk, bent forward when seated.
  if (seated) {
    px(6, 17 + SIT - 1, 5, 2, c.pants);
    px(10, 18 + SIT - 1, 2, 3, c.pantsD);
    px(10, 21, 3, 1, c.shoes);
  } else if (walking && frame % 2 === 1) {
    const front = frame === 1 ? c.pants : c.pantsD;
    const rear = frame === 1 ? c.pantsD : c.pants;
    px(5, 17, 2, 4, rear);
    px(9, 17, 2, 4, front);
    px(4, 21, 3, 1, c.shoes);
    px(9, 21, 3, 1, c.shoes);
  } else {
    px(6, 17, 2, 4, c.pantsD);
    px(8, 17, 2, 4, c.pants);
    px(6, 21, 5, 1, c.shoes);
  }
  // Torso, then the near arm over it.
  px(5, 10 + y0, 6, 6, c.shirt);
  px(5, 10 + y0, 1, 6, c.shirtD);
  px(5, 16 + y0, 6, 1, c.pantsD);
  let arm;
  if (walking) arm = [{ x: 7, len: 5, hand: [7, 16] }, { x: 8, len: 4, hand: [9, 15] }, { x: 7, len: 5, hand: [7, 16] }, { x: 6, len: 4, hand: [5, 15] }][frame];
  else if (pose === 'type' || pose === 'standtype') arm = { x: 8, len: 3, fore: true, hand: [11 + (frame === 0 ? 0 : 1), 14] };
  else if (pose === 'read' || pose === 'standread') arm = { x: 8, len: 3, fore: true, hand: [11, 13 - frame] };
  else arm = { x: 7, len: 5, hand: [7, 16] };
  px(arm.x, 11 + y0, 2, arm.len, c.shirtD);
  if (arm.fore) px(arm.x + 1, 13 + y0, 3, 1, c.shirtD);
  px(arm.hand[0], arm.hand[1] + y0, 1, 1, c.skin);
  if (pose === 'read' || pose === 'standread') px(12, 10 + y0 - frame, 2, 4, '#f4f1e8');
  if (pose === 'standtype') px(11, 13, 3, 2, '#3a3f4c');
  // Head: face to the right, hair at the back.
  px(5, 2 + y0, 7, 8, c.skin);
  px(12, 6 + y0, 1, 1, c.skin);
  const down = pose === 'read' || pose === 'type' || pose === 'standread' ? 1 : 0;
  px(10, 5 + y0 + down, 1, 1, c.eye);
  px(10, 8 + y0, 1, 1, c.skinD);
  const y = (v) => v + y0;
  switch (look.style) {
    case 'long':
      px(4, y(1), 8, 3, c.hair);
      px(4, y(4), 3, 8, c.hair);
      break;
    case 'curly':
      px(3, y(0), 9, 4, c.hair);
      px(3, y(4), 4, 4, c.hair);
      break;
    case 'bun':
      px(3, y(0), 3, 3, c.hair);
      px(5, y(1), 7, 2, c.hair);
      px(5, y(3), 3, 3, c.hair);
      break;
    case 'cap':
      px(5, y(0), 7, 3, c.extra);
      px(11, y(2), 3, 1, shade(c.extra, -0.3));
      px(5, y(3), 3, 3, c.hair);
      break;
    case 'spiky':
      px(5, y(1), 7, 2, c.hair);
      for (const x of [5, 7, 9]) px(x, y(0), 1, 1, c.hair);
      px(4, y(2), 3, 4, c.hair);
      break;
    default:
      px(5, y(1), 7, 2, c.hair);
      px(5, y(3), 3, 4, c.hair);
  }
  px(6, y(1), 2, 1, c.hairL);
}

/** Draws a sub-agent: a small helper bot in its parent's colours. */
export function drawBot(look, dir, pose, frame) {
  if (dir === LEFT) return mirrored(drawBot(look, RIGHT, pose, frame));
  const { canvas, px } = pen(BOT.w, BOT.h);
  const body = look.shirt;
  const dark = shade(body, -0.35);
  const walking = pose === 'walk';
  const bob = walking && frame % 2 === 1 ? -1 : 0;
  px(2, 12, 8, 1, 'rgba(0,0,0,0.2)');
  // Feet.
  const step = walking ? [0, 1, 0, -1][frame] : 0;
  px(3, 11 - Math.max(0, step), 2, 1 + Math.max(0, step), '#30343c');
  px(7, 11 - Math.max(0, -step), 2, 1 + Math.max(0, -step), '#30343c');
  // Body and head.
  px(2, 5 + bob, 8, 6, body);
  px(2, 10 + bob, 8, 1, dark);
  px(3, 1 + bob, 6, 4, shade(body, 0.15));
  px(5, -1 + bob + 1, 2, 1, dark); // the antenna
  px(5, 0 + bob, 2, 1, look.extra === body ? '#f5d76e' : look.extra);
  const working = pose === 'standtype' || pose === 'standread' || pose === 'type' || pose === 'read';
  if (dir !== UP) {
    const screen = '#20252e';
    const off = dir === RIGHT ? 1 : 0;
    px(3 + off, 2 + bob, 5, 2, screen);
    const glance = pose === 'standread' || pose === 'read' ? frame : 0;
    px(4 + off + glance, 2 + bob, 1, 1, '#7fe3ff');
    px(6 + off + glance, 2 + bob, 1, 1, '#7fe3ff');
  } else {
    px(4, 6 + bob, 4, 2, dark);
  }
  // Arms: tapping at work.
  const lift = working && pose.endsWith('type') ? frame : 0;
  px(1, 6 + bob + lift, 1, 3, dark);
  px(10, 6 + bob + (working ? 1 - lift : 0), 1, 3, dark);
  return canvas;
}

// ---- Floors and walls -------------------------------------------------------

/** The colour a floor pattern has when its tile names none. */
export const FLOOR_COLORS = ['#b08d62', '#c9ccd1', '#7f8fa6', '#9a958c', '#a8743f', '#d6d2c4', '#a3a7ab', '#d8d0c0'];
export const WALL_COLOR = '#5b6378';

// A fixed scatter, the same on every tile, so patterns repeat seamlessly.
function noise(x, y, seed = 0) {
  let h = (x * 374761393 + y * 668265263 + seed * 2147483647) | 0;
  h = (h ^ (h >>> 13)) * 1274126177;
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** One 16×16 floor tile of pattern p (0 to 7) in a colour. */
export function drawFloor(p, color) {
  const { canvas, px } = pen(16, 16);
  const base = color || FLOOR_COLORS[p] || FLOOR_COLORS[0];
  const dark = shade(base, -0.14);
  const darker = shade(base, -0.26);
  const light = shade(base, 0.12);
  px(0, 0, 16, 16, base);
  switch (p) {
    case 0: // planks, four pixels wide, their joints staggered
      for (let b = 0; b < 4; b++) {
        px(0, b * 4 + 3, 16, 1, dark);
        const joint = (b * 7 + 3) % 16;
        px(joint, b * 4, 1, 3, darker);
        px(0, b * 4, 16, 1, b % 2 ? light : base);
      }
      break;
    case 1: // square tiles
      px(0, 0, 16, 1, dark);
      px(0, 8, 16, 1, dark);
      px(0, 0, 1, 16, dark);
      px(8, 0, 1, 16, dark);
      px(1, 1, 3, 1, light);
      px(9, 9, 3, 1, light);
      break;
    case 2: // carpet
      for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) {
        const n = noise(x, y);
        if (n < 0.12) px(x, y, 1, 1, dark);
        else if (n > 0.9) px(x, y, 1, 1, light);
      }
      break;
    case 3: // stone slabs
      px(0, 0, 16, 1, darker);
      px(0, 0, 1, 7, darker);
      px(0, 7, 16, 1, darker);
      px(10, 0, 1, 7, darker);
      px(5, 7, 1, 9, darker);
      px(2, 2, 2, 1, light);
      px(12, 10, 2, 1, light);
      break;
    case 4: // parquet blocks
      for (let by = 0; by < 2; by++) for (let bx = 0; bx < 2; bx++) {
        const ox = bx * 8;
        const oy = by * 8;
        if ((bx + by) % 2) {
          px(ox, oy + 2, 8, 1, dark);
          px(ox, oy + 5, 8, 1, dark);
        } else {
          px(ox + 2, oy, 1, 8, dark);
          px(ox + 5, oy, 1, 8, dark);
        }
        px(ox, oy, 8, 1, darker);
        px(ox, oy, 1, 8, darker);
      }
      break;
    case 5: // checker
      px(0, 0, 8, 8, light);
      px(8, 8, 8, 8, light);
      px(8, 0, 8, 8, dark);
      px(0, 8, 8, 8, dark);
      break;
    case 6: // concrete
      for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) if (noise(x, y, 3) < 0.06) px(x, y, 1, 1, dark);
      px(0, 15, 16, 1, dark);
      break;
    default: // terrazzo
      for (let i = 0; i < 14; i++) {
        const x = Math.floor(noise(i, 1, 7) * 15);
        const y = Math.floor(noise(i, 2, 7) * 15);
        px(x, y, 1 + (i % 2), 1, ['#c0644f', '#5f7d95', '#7b9e6b', '#ffffff', '#3d3d3d'][i % 5]);
      }
  }
  return canvas;
}

/** A wall piece's size and where its tile's top-left is in it. */
export const WALL_PIECE = { w: 16, h: 24, ax: 0, ay: 8 };

/**
 * One wall piece: its top (and the rim above the tile), and its face where
 * no wall goes on to the south. mask: wallMask's bits (N 1, E 2, S 4, W 8).
 */
export function drawWall(mask, color) {
  const { canvas, px } = pen(WALL_PIECE.w, WALL_PIECE.h);
  const face = color || WALL_COLOR;
  const top = shade(face, 0.35);
  const rim = shade(face, -0.35);
  const mortar = shade(face, -0.18);
  const south = mask & 4;
  // The top: the eight pixels above the tile, and the tile itself when the
  // wall runs on southwards.
  px(0, 0, 16, south ? 24 : 8, top);
  if (!south) {
    // The face, bricks and a skirting at the foot.
    px(0, 8, 16, 16, face);
    for (let row = 0; row < 3; row++) {
      const y = 9 + row * 4;
      px(0, y + 3, 16, 1, mortar);
      const off = row % 2 ? 4 : 0;
      for (let x = off; x < 16; x += 8) px(x, y, 1, 3, mortar);
    }
    px(0, 8, 16, 1, shade(face, 0.12));
    px(0, 21, 16, 3, rim);
  }
  // Edges where the wall ends.
  if (!(mask & 1)) px(0, 0, 16, 1, rim);
  if (!(mask & 8)) px(0, 0, 1, south ? 24 : 8, rim);
  if (!(mask & 2)) px(15, 0, 1, south ? 24 : 8, rim);
  if (!south) px(0, 7, 16, 1, rim);
  return canvas;
}

// ---- Furniture ------------------------------------------------------------

/** How far above its footprint a kind of furniture is drawn, in pixels. */
export const RISE = { desk: 8, chair: 8, computer: 8, shelf: 16, plant: 8, cooler: 12, sofa: 8, door: 8, whiteboard: 8 };

const WOOD = '#b07a4a';

/**
 * Draws an item: a canvas of its footprint's width (in pixels), and its
 * footprint's height plus its RISE. part: 'back' for a chair's back drawn
 * in front of its sitter, else the whole item. on: a computer at work,
 * with frame its screen's frame.
 */
export function drawItem(type, rot, color, fw, fh, { part = '', on = false, frame = 0 } = {}) {
  const rise = RISE[type] ?? 8;
  const { canvas, px } = pen(fw * 16, fh * 16 + rise);
  const W = fw * 16;
  const H = fh * 16 + rise;
  switch (type) {
    case 'desk': {
      const wood = color || WOOD;
      const top = shade(wood, 0.15);
      const edge = shade(wood, -0.2);
      const panel = shade(wood, -0.35);
      // The top reaches up over the lap of whoever sits behind it.
      px(0, 1, W, H - 1 - 8, top);
      px(0, 1, W, 1, shade(wood, 0.3));
      px(0, H - 8, W, 2, edge);
      px(1, H - 6, W - 2, 4, panel);
      px(1, H - 6, 2, 6, edge);
      px(W - 3, H - 6, 2, 6, edge);
      for (let x = 6; x < W - 4; x += 9) px(x, 5, 4, 1, shade(wood, 0.05));
      break;
    }
    case 'chair': {
      const fabric = color || '#4a5a78';
      const dark = shade(fabric, -0.3);
      const leg = '#2f333b';
      if (rot === 0) {
        px(3, 1, 10, 9, dark);
        px(4, 2, 8, 7, fabric);
        px(3, 11, 10, 5, fabric);
        px(3, 15, 10, 1, dark);
        px(4, 16, 1, 5, leg);
        px(11, 16, 1, 5, leg);
      } else if (rot === 2) {
        if (part === 'back') {
          px(3, 14, 10, 8, dark);
          px(4, 15, 8, 6, fabric);
        } else {
          px(3, 9, 10, 6, fabric);
          px(4, 20, 1, 3, leg);
          px(11, 20, 1, 3, leg);
        }
      } else {
        // Facing left (rot 1): the back on the right. Rot 3 is its mirror.
        const back = rot === 1 ? 11 : 2;
        px(3, 11, 10, 5, fabric);
        px(back, 3, 3, 13, dark);
        px(back + 1, 4, 1, 11, fabric);
        px(4, 16, 1, 5, leg);
        px(11, 16, 1, 5, leg);
      }
      break;
    }
    case 'computer': {
      const shell = color || '#2a2f3a';
      const screenOn = ['#7fd3ff', '#8fe0ff', '#74c8f5'][frame % 3];
      if (rot === 0) {
        px(2, 2, 12, 10, shell);
        px(3, 3, 10, 8, on ? screenOn : '#1a2230');
        if (on) {
          for (let i = 0; i < 3; i++) px(4, 4 + i * 2, 3 + ((i + frame) % 3) * 2, 1, '#e6f7ff');
        } else px(4, 4, 2, 1, '#2c3850');
        px(7, 12, 2, 2, shell);
        px(5, 14, 6, 1, shade(shell, 0.2));
        px(3, 16, 10, 2, '#cfd3da');
        px(4, 16, 8, 1, '#b3b9c3');
      } else if (rot === 2) {
        // From behind: the screen's light spills round the edges.
        if (on) {
          px(3, 1, 10, 1, 'rgba(143,224,255,0.45)');
          px(1, 3, 1, 8, 'rgba(143,224,255,0.7)');
          px(14, 3, 1, 8, 'rgba(143,224,255,0.7)');
        }
        px(2, 3, 12, 9, shade(shell, 0.12));
        px(2, 2, 12, 1, on ? '#bff0ff' : shade(shell, 0.25));
        px(7, 7, 2, 2, on ? '#5fe38a' : shade(shell, 0.3));
        px(7, 12, 2, 2, shell);
        px(5, 14, 6, 1, shade(shell, 0.2));
      } else {
        const x = rot === 1 ? 9 : 5;
        px(x, 3, 2, 10, shell);
        px(rot === 1 ? x - 1 : x + 2, 4, 1, 8, on ? screenOn : '#1a2230');
        px(6, 13, 4, 1, shade(shell, 0.2));
      }
      break;
    }
    case 'shelf': {
      const wood = color || '#6e4a33';
      px(0, 0, W, H - 2, shade(wood, -0.25));
      px(1, 1, W - 2, H - 4, wood);
      const books = ['#c0504d', '#4f81bd', '#9bbb59', '#f2c14e', '#8064a2', '#4bacc6', '#e07b39', '#e8e8e8'];
      for (let s = 0; s < 3; s++) {
        const y = 2 + s * 9;
        px(1, y + 7, W - 2, 1, shade(wood, -0.4));
        let x = 2;
        let i = s * 3;
        while (x < W - 3) {
          const w = 2 + ((i * 5) % 3);
          const h = 5 + ((i * 7) % 3);
          px(x, y + 7 - h, w, h, books[i % books.length]);
          x += w + (i % 4 === 3 ? 2 : 0);
          i++;
        }
      }
      px(0, H - 2, W, 2, 'rgba(0,0,0,0.2)');
      break;
    }
    case 'plant': {
      const pot = color || '#c0643f';
      px(4, 15, 8, 6, pot);
      px(4, 15, 8, 1, shade(pot, 0.25));
      px(5, 21, 6, 2, shade(pot, -0.25));
      const leaf = '#4c9a4f';
      const leafL = '#6fbf62';
      const leafD = '#2f6e3a';
      px(5, 3, 6, 11, leaf);
      px(3, 6, 10, 7, leaf);
      px(2, 9, 3, 3, leafD);
      px(11, 8, 3, 4, leafD);
      px(6, 1, 3, 3, leafL);
      px(4, 7, 2, 2, leafL);
      px(9, 5, 2, 2, leafL);
      px(7, 12, 2, 3, leafD);
      break;
    }
    case 'cooler': {
      const body = color || '#e6e9ee';
      px(5, 0, 6, 9, '#9fd2f0');
      px(6, 1, 2, 6, '#d4eefc');
      px(4, 9, 8, 1, '#7aa9c7');
      px(3, 10, 10, 16, body);
      px(3, 10, 1, 16, shade(body, -0.15));
      px(12, 10, 1, 16, shade(body, -0.25));
      px(6, 13, 4, 3, '#8a93a3');
      px(7, 16, 2, 1, '#4a78c0');
      px(3, 26, 10, 2, 'rgba(0,0,0,0.22)');
      break;
    }
    case 'sofa': {
      const cloth = color || '#b8574a';
      const dark = shade(cloth, -0.3);
      const light = shade(cloth, 0.15);
      if (rot % 2 === 0) {
        const backY = rot === 0 ? 2 : 14;
        const seatY = rot === 0 ? 10 : 4;
        px(1, seatY, W - 2, 10, cloth);
        px(W / 2, seatY + 1, 1, 8, dark);
        px(1, backY, W - 2, 8, dark);
        px(2, backY + 1, W - 4, 6, light);
        px(0, 6, 3, 14, dark);
        px(W - 3, 6, 3, 14, dark);
        px(2, H - 2, W - 4, 2, 'rgba(0,0,0,0.2)');
      } else {
        const backX = rot === 1 ? 11 : 0;
        px(2, 4, 12, H - 6, cloth);
        px(backX, 2, 5, H - 4, dark);
        px(backX + 1, 3, 3, H - 6, light);
        px(2, 2, 12, 3, dark);
        px(2, H - 4, 12, 3, dark);
      }
      break;
    }
    case 'door': {
      const wood = color || '#8a5a3c';
      px(2, 6, 12, 18, shade(wood, -0.35));
      px(3, 7, 10, 17, wood);
      px(4, 8, 8, 6, shade(wood, 0.12));
      px(4, 16, 8, 6, shade(wood, 0.12));
      px(11, 15, 1, 2, '#e3c16f');
      px(2, 23, 12, 1, 'rgba(0,0,0,0.3)');
      break;
    }
    case 'whiteboard': {
      const frame2 = color || '#9aa3ad';
      px(2, 9, W - 4, 12, frame2);
      px(3, 10, W - 6, 10, '#f8f9fb');
      px(6, 12, 9, 1, '#4f81bd');
      px(6, 14, 13, 1, '#c0504d');
      px(6, 16, 6, 1, '#4f81bd');
      px(W - 12, 12, 5, 5, '#9bbb59');
      px(W - 11, 13, 3, 3, '#f8f9fb');
      px(4, 21, W - 8, 1, shade(frame2, -0.3));
      break;
    }
  }
  if (type === 'chair' && rot === 3) return mirrored(canvas);
  return canvas;
}

// ---- Bubbles ----------------------------------------------------------------

export const BUBBLE = { w: 13, h: 12 };

/** A bubble over a character: permission, waiting or done. */
export function drawBubble(kind) {
  const { canvas, px } = pen(BUBBLE.w, BUBBLE.h);
  const line = '#2b2f3a';
  const fill = '#ffffff';
  px(1, 0, 11, 1, line);
  px(1, 8, 11, 1, line);
  px(0, 1, 1, 7, line);
  px(12, 1, 1, 7, line);
  px(1, 1, 11, 7, fill);
  px(5, 9, 3, 1, fill);
  px(4, 9, 1, 1, line);
  px(8, 9, 1, 1, line);
  px(5, 10, 1, 1, line);
  px(7, 10, 1, 1, line);
  px(6, 10, 1, 1, fill);
  px(6, 11, 1, 1, line);
  if (kind === 'permission') {
    const amber = '#e8a317';
    px(2, 4, 2, 2, amber);
    px(5, 4, 2, 2, amber);
    px(8, 4, 2, 2, amber);
  } else if (kind === 'waiting') {
    const blue = '#3b7dd8';
    px(5, 2, 3, 1, blue);
    px(8, 3, 1, 1, blue);
    px(7, 4, 1, 1, blue);
    px(6, 5, 1, 1, blue);
    px(6, 7, 1, 1, blue);
    px(4, 3, 1, 1, blue);
  } else {
    const green = '#2e9e4f';
    px(3, 4, 1, 1, green);
    px(4, 5, 1, 1, green);
    px(5, 6, 1, 1, green);
    px(6, 5, 1, 1, green);
    px(7, 4, 1, 1, green);
    px(8, 3, 1, 1, green);
    px(9, 2, 1, 1, green);
    px(4, 4, 1, 1, green);
    px(5, 5, 1, 1, green);
  }
  return canvas;
}

// ---- The cache --------------------------------------------------------------

/**
 * Sprites made once and kept, and their copies scaled to a zoom. Only the
 * zooms in use recently are kept (a zoom costs a copy of every sprite it
 * drew).
 */
export class Sprites {
  constructor() {
    this.base = new Map();
    this.zooms = new Map();
    this.lastZoom = 0;
  }

  /**
   * The sprite under key at zoom z, made by make() at one pixel a pixel
   * the first time.
   * @returns {CanvasImageSource}
   */
  get(key, z, make) {
    let byKey = this.zooms.get(z);
    if (z !== this.lastZoom) {
      // The zoom in use is kept last, so the least recent goes first.
      this.lastZoom = z;
      if (byKey) this.zooms.delete(z);
      else byKey = new Map();
      this.zooms.set(z, byKey);
      while (this.zooms.size > 3) this.zooms.delete(this.zooms.keys().next().value);
    }
    let img = byKey.get(key);
    if (img) return img;
    let base = this.base.get(key);
    if (!base) {
      base = make();
      this.base.set(key, base);
    }
    if (z === 1) img = base;
    else {
      img = newCanvas(base.width * z, base.height * z);
      const ctx = img.getContext('2d');
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(base, 0, 0, base.width * z, base.height * z);
    }
    byKey.set(key, img);
    return img;
  }

  /** Forgets every sprite (the theme or the art changed). */
  clear() {
    this.base.clear();
    this.zooms.clear();
    this.lastZoom = 0;
  }

  person(look, lookIndex, dir, pose, frame, small, z) {
    const key = `${small ? 'b' : 'p'}${lookIndex}:${dir}:${pose}:${frame}`;
    return this.get(key, z, () => (small ? drawBot(look, dir, pose, frame) : drawPerson(look, dir, pose, frame)));
  }
}

