// The Office view (#/~office): every agent session as a character in a
// pixel-art office, live. It draws from the page's one list of agent
// sessions (app.agents, read again on every agent change the live stream
// reports) and from the office's layout and seat choices (read again when
// the stream says they changed).
//
// It is cheap: it draws a frame only when something on screen changes
// (every frame while someone walks; at the next typing or screen frame
// otherwise; never while nothing moves), and nothing at all while the tab
// is hidden or another view is open.

import { h, replaceChildren, isTyping, dialogOpen } from '../dom.js';
import { toastError } from '../toast.js';
import { prefs } from '../prefs.js';
import { summaryText } from '../agents/agent-model.js';
import { TILE, kindsByType, deriveLayout } from './model.js';
import { Scene } from './scene.js';
import { Sprites, PERSON, BOT } from './art.js';
import { Renderer, TOP_MARGIN } from './renderer.js';
import { Camera } from './camera.js';
import { Roster } from './roster.js';
import { OfficeCard } from './card.js';
import { OfficeSounds } from './sounds.js';
import { Editor } from './editor.js';
import { prefetch, loadLayout, loadSeats, chooseSeat } from './office-api.js';

// How many frame timings the page keeps for whoever measures it.
const STATS_KEPT = 4000;
// A press that moves further than this (CSS pixels) is a drag, not a click.
const DRAG_SLOP = 6;
// The roster's canvas positions are refreshed at most this often while
// nothing else about it changes.
const ROSTER_GAP_MS = 250;

export class OfficeView {
  /**
   * @param {HTMLElement} pane #office-pane
   * @param {import('../app.js').DeskApp} app
   */
  constructor(pane, app) {
    this.pane = pane;
    this.app = app;
    this.shown = false;
    this.scene = null;
    this.layout = null;
    this.kinds = new Map();
    this.catalog = null;
    this.sprites = new Sprites();
    this.camera = new Camera();
    this.sounds = new OfficeSounds();
    this.editor = new Editor(this);
    this.raf = 0;
    this.timer = 0;
    this.lastFrame = 0;
    this.rosterAt = 0;
    this.rosterDue = true;
    this.hover = null;
    this.focusId = null;
    this.press = null;
    this.pointers = new Map();
    this.pinch = null;
    /** Frame timings, read by the browser benchmark: frames drawn, and each frame's work and spacing in ms. */
    this.stats = { frames: 0, work: [], gaps: [], firstPaint: 0 };
    this.build();
    loadStyle();
    this.loading = this.load();
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.wake();
      else this.sleep();
    });
  }

  build() {
    this.summary = h('p', { class: 'office-summary', id: 'office-summary', 'aria-live': 'off' }, 'Loading the office…');
    this.zoomText = h('span', { class: 'office-zoom', 'aria-live': 'polite' }, '');
    this.soundBox = h('input', { type: 'checkbox', name: 'office-sound', checked: this.sounds.on, onchange: (e) => this.sounds.set(e.target.checked) });
    this.editButton = h('button', { type: 'button', class: 'button', id: 'office-edit', onclick: () => this.openEditor() }, 'Edit layout');
    const head = h(
      'header',
      { class: 'office-head' },
      h('div', { class: 'office-title' }, h('h1', {}, 'Office'), this.summary),
      h(
        'div',
        { class: 'office-controls' },
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Zoom out', title: 'Zoom out (-)', onclick: () => this.zoomBy(-1) }, '−'),
        this.zoomText,
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Zoom in', title: 'Zoom in (+)', onclick: () => this.zoomBy(1) }, '+'),
        h('button', { type: 'button', class: 'button', title: 'Fit the office (0)', onclick: () => this.fit() }, 'Fit'),
        h('label', { class: 'toggle' }, this.soundBox, 'Sounds'),
        this.editButton,
      ),
    );
    this.canvas = h('canvas', { id: 'office-canvas', 'aria-hidden': 'true' });
    this.canvas.officeStats = this.stats;
    this.empty = h('p', { class: 'office-empty', hidden: true }, 'No agent is at work. Agents started in a linked folder, with desk install’s hooks, walk in here.');
    this.stage = h('div', {
      class: 'office-stage',
      id: 'office-stage',
      tabindex: '0',
      role: 'application',
      'aria-label': 'The office. Arrows pan, + and − zoom, 0 fits, [ and ] pick an agent, Enter opens its card.',
      'aria-describedby': 'office-roster',
    }, this.canvas, this.empty);
    this.card = new OfficeCard(this.stage, {
      issueHref: (key, s) => this.issueHref(key, s),
      closed: () => {
        this.selected = null;
        this.redraw();
        this.stage.focus({ preventScroll: true });
      },
    });
    this.rosterList = h('ul', { id: 'office-roster', role: 'list', 'aria-live': 'polite', 'aria-label': 'Agents in the office', class: 'visually-hidden' });
    this.roster = new Roster(this.rosterList);
    this.editorBox = h('div', { class: 'office-editor-box', hidden: true }, this.editor.panel);
    this.root = h('div', { class: 'office-view' }, head, this.editorBox, this.stage, this.rosterList);
    replaceChildren(this.pane, this.root);

    new ResizeObserver(() => this.resize()).observe(this.stage);
    const c = this.stage;
    c.addEventListener('pointerdown', (e) => this.pointerDown(e));
    c.addEventListener('pointermove', (e) => this.pointerMove(e));
    c.addEventListener('pointerup', (e) => this.pointerUp(e));
    c.addEventListener('pointercancel', (e) => this.pointerUp(e, true));
    c.addEventListener('pointerleave', (e) => {
      if (e.pointerType === 'mouse' && !this.press) this.setHover(null);
      if (this.editor.open && !this.press) this.editor.leave();
    });
    c.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    c.addEventListener('contextmenu', (e) => {
      if (this.editor.open) e.preventDefault();
    });
    this.root.addEventListener('keydown', (e) => this.keyDown(e));
    this.root.addEventListener('keyup', (e) => {
      if (e.key === ' ') this.spaceDown = false;
    });
  }

  async load() {
    try {
      const [catalog, layout, seats] = await prefetch();
      this.catalog = catalog;
      this.kinds = kindsByType(catalog);
      this.layout = layout;
      this.scene = new Scene(layout, this.kinds);
      this.scene.setPins(seats.choices);
      this.seatsRevision = seats.revision;
      this.useLayout(layout);
      this.update();
      performance.mark('office:layout');
    } catch (err) {
      this.summary.textContent = `The office could not be loaded: ${err.message}`;
      toastError(err, 'Could not load the office');
    }
  }

  // The layout the renderer and the camera work with: the saved one, or
  // the editor's copy.
  useLayout(layout) {
    const derived = this.editor.open ? deriveLayout(layout, this.kinds) : this.scene.derived;
    this.renderer ||= new Renderer(this.canvas, this.sprites);
    this.renderer.setLayout(layout, derived, this.kinds);
    this.resize();
  }

  worldRect(layout) {
    const border = this.editor.open ? TILE : 0;
    return { x: -border, y: -TOP_MARGIN - border, w: layout.cols * TILE + 2 * border, h: layout.rows * TILE + TOP_MARGIN + 2 * border };
  }

  resize() {
    if (!this.renderer || !this.shown) return;
    const dpr = window.devicePixelRatio || 1;
    const w = this.stage.clientWidth;
    const hh = this.stage.clientHeight;
    if (!w || !hh) return;
    this.dpr = dpr;
    this.renderer.resize(w, hh, dpr);
    this.camera.setView(this.canvas.width, this.canvas.height, this.worldRect(this.editor.open ? this.editor.work : this.layout));
    this.zoomText.textContent = `${this.camera.z}×`;
    this.rosterDue = true;
    this.redraw();
  }

  // ---- Showing -----------------------------------------------------------------

  show() {
    if (!this.shown) performance.mark('office:shown');
    this.shown = true;
    this.app.agents?.setQuick?.(true);
    this.resize();
    this.update();
    this.wake();
  }

  hide() {
    this.shown = false;
    this.app.agents?.setQuick?.(false);
    this.card.close();
    this.sleep();
  }

  get active() {
    return this.shown && document.visibilityState === 'visible' && Boolean(this.renderer);
  }

  wake() {
    this.lastFrame = 0;
    this.redraw();
  }

  sleep() {
    cancelAnimationFrame(this.raf);
    clearTimeout(this.timer);
    this.raf = 0;
    this.timer = 0;
  }

  /** Asks for one frame. */
  redraw() {
    if (!this.raf && this.active) this.raf = requestAnimationFrame((t) => this.frame(t));
  }

  frame() {
    this.raf = 0;
    clearTimeout(this.timer);
    this.timer = 0;
    if (!this.active) return;
    const t0 = performance.now();
    const now = t0 / 1000;
    const dt = this.lastFrame ? Math.min(0.1, now - this.lastFrame) : 0;
    const editing = this.editor.open;
    const u = !editing && this.scene ? this.scene.update(dt, now) : { moving: false, next: Infinity, posed: [] };
    this.renderer.draw(editing ? null : this.scene, this.camera, now, {
      hover: this.hover,
      selected: this.selected || this.focusId,
      overlay: editing ? (ctx, t) => this.editor.overlay(ctx, t) : this.dragTarget ? (ctx, t) => this.dragOverlay(ctx, t) : null,
    });
    this.publishCamera();
    if (!editing && this.scene) {
      if (u.posed.length) {
        this.rosterDue = true;
        if (this.card.openId && !this.scene.characters.has(this.card.openId)) this.card.close();
      }
      // At the end of a movement, the roster says where everyone stopped.
      if (this.rosterDue || !u.moving || t0 - this.rosterAt > ROSTER_GAP_MS) this.updateRoster(now);
      if (!this.painted && this.synced) {
        // The first frame with every agent in it: noted once it is on screen
        // (a task posted from a frame's callback runs after its paint).
        this.painted = true;
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          this.stats.firstPaint = performance.now();
          performance.mark('office:first-paint');
        };
        ch.port2.postMessage(null);
      }
    }
    const work = performance.now() - t0;
    const s = this.stats;
    s.frames++;
    s.work.push(work);
    if (this.lastFrame) s.gaps.push((now - this.lastFrame) * 1000);
    if (s.work.length > STATS_KEPT) s.work.splice(0, s.work.length - STATS_KEPT);
    if (s.gaps.length > STATS_KEPT) s.gaps.splice(0, s.gaps.length - STATS_KEPT);
    // Sleep until the next change, or draw on while something moves.
    if (u.moving) {
      this.lastFrame = now;
      this.redraw();
      return;
    }
    this.lastFrame = 0;
    if (u.next !== Infinity) {
      const wait = Math.max(0, (u.next - performance.now() / 1000) * 1000);
      this.timer = setTimeout(() => {
        this.timer = 0;
        this.redraw();
      }, wait);
    }
  }

  // Where the office is on the canvas (CSS pixels of world (0, 0), and the
  // zoom), on the canvas element: what a test needs to point at a tile.
  publishCamera() {
    const dpr = this.dpr || 1;
    const d = this.canvas.dataset;
    const zoom = String(this.camera.z / dpr);
    const x = String(this.camera.x / dpr);
    const y = String(this.camera.y / dpr);
    if (d.zoom !== zoom) d.zoom = zoom;
    if (d.x !== x) d.x = x;
    if (d.y !== y) d.y = y;
  }

  updateRoster(now) {
    this.rosterDue = false;
    this.rosterAt = performance.now();
    const { camera } = this;
    const dpr = this.dpr || 1;
    this.roster.update(this.scene, now, (ch) => ({ x: (camera.x + ch.x * camera.z) / dpr, y: (camera.y + ch.y * camera.z) / dpr }));
  }

  // ---- Sessions ------------------------------------------------------------------

  /** The page's agent sessions changed: the characters follow. */
  update() {
    const agents = this.app.agents;
    if (!this.scene || !agents?.loaded) return;
    const now = performance.now() / 1000;
    const changes = this.scene.sync(agents.sessions, now);
    this.synced = true;
    // A state, or only what an agent does: the roster says it at once.
    this.rosterDue = true;
    if (this.shown) this.updateRoster(now);
    this.sound(changes);
    const live = [...this.scene.characters.values()].filter((c) => !c.leaving);
    const summary = live.length ? summaryText(live.map((c) => c.session)) : 'No agents in the office';
    if (this.summary.textContent !== summary) this.summary.textContent = summary;
    if (this.empty.hidden !== live.length > 0) this.empty.hidden = live.length > 0;
    const open = this.card.openId;
    if (open) this.card.update(this.scene.characters.get(open)?.session || null);
    if (this.hover) {
      const ch = this.scene.characters.get(this.hover);
      if (ch) this.showLabelFor(ch);
      else this.setHover(null);
    }
    this.redraw();
  }

  sound(changes) {
    if (!this.shown || document.visibilityState !== 'visible') return;
    // The Agents view's alert already chimes for a permission when it is on.
    if (changes.some((c) => c.from !== null && c.to === 'needs_permission') && !prefs.agentSound()) this.sounds.permission();
    else if (changes.some((c) => c.from === 'working' && c.to === 'done')) this.sounds.done();
  }

  /** Office rows from the live stream: a new layout or new seat choices. */
  changed(rows) {
    for (const row of rows) {
      if (row.action === 'layout' && row.id > (this.layout?.revision ?? 0)) this.reloadLayout(row.id);
      if (row.action === 'seats' && row.id > (this.seatsRevision ?? 0)) this.reloadSeats();
    }
  }

  async reloadLayout(revision) {
    if (this.editor.open) this.editor.remoteChanged(revision);
    try {
      const layout = await loadLayout();
      if (layout.revision <= (this.layout?.revision ?? -1)) return;
      this.setLayout(layout);
    } catch (err) {
      toastError(err, 'Could not load the changed office');
    }
  }

  async reloadSeats() {
    try {
      const seats = await loadSeats();
      if (seats.revision <= (this.seatsRevision ?? -1)) return;
      this.seatsRevision = seats.revision;
      this.scene?.setPins(seats.choices);
      this.rosterDue = true;
      this.redraw();
    } catch (err) {
      toastError(err, 'Could not load the seat choices');
    }
  }

  /** The saved layout changed (here or elsewhere). */
  setLayout(layout) {
    this.layout = layout;
    if (!this.scene) return;
    this.scene.setLayout(layout);
    if (!this.editor.open) this.useLayout(layout);
    this.rosterDue = true;
    this.redraw();
  }

  issueHref(key, session) {
    const upper = String(key).toUpperCase();
    const p = this.app.projects.find((x) => x.prefix && upper.startsWith(`${x.prefix.toUpperCase()}-`));
    const slug = p?.slug || session.project;
    return slug ? `#/${encodeURIComponent(slug)}/${encodeURIComponent(upper)}` : null;
  }

  // ---- The editor (the host side of editor.js) -------------------------------------

  projects() {
    return this.app.projects || [];
  }

  openEditor() {
    if (!this.layout || this.editor.open) return;
    this.card.close();
    this.setHover(null);
    this.editor.start(this.layout);
    this.editorBox.hidden = false;
    this.editButton.hidden = true;
    this.useLayout(this.editor.work);
    this.camera.moved = false;
    this.resize();
  }

  closeEditor() {
    this.editor.stop();
    this.editorBox.hidden = true;
    this.editButton.hidden = false;
    this.useLayout(this.layout);
    this.camera.moved = false;
    this.resize();
    this.stage.focus({ preventScroll: true });
  }

  /** The editor's copy changed. */
  edited(work) {
    this.renderer.setLayout(work, deriveLayout(work, this.kinds), this.kinds);
    this.camera.world = this.worldRect(work);
    this.redraw();
  }

  /** The editor saved a layout. */
  saved(layout) {
    this.setLayout(layout);
    this.renderer.setLayout(this.editor.work, deriveLayout(this.editor.work, this.kinds), this.kinds);
    this.redraw();
  }

  /** The editor grew the office to the left or the top: the view stays put. */
  grew(dc, dr) {
    this.camera.x -= dc * TILE * this.camera.z;
    this.camera.y -= dr * TILE * this.camera.z;
  }

  // ---- Pointer, wheel, keys --------------------------------------------------------

  point(e) {
    const r = this.canvas.getBoundingClientRect();
    const dpr = this.dpr || 1;
    return { x: (e.clientX - r.left) * dpr, y: (e.clientY - r.top) * dpr, cssX: e.clientX - r.left, cssY: e.clientY - r.top };
  }

  tileAt(p) {
    const w = this.camera.toWorld(p.x, p.y);
    return { c: Math.floor(w.x / TILE), r: Math.floor(w.y / TILE) };
  }

  /** The character under a device point: the front-most. */
  characterAt(p) {
    if (!this.scene || this.editor.open) return null;
    const w = this.camera.toWorld(p.x, p.y);
    const list = this.scene.list();
    for (let i = list.length - 1; i >= 0; i--) {
      const ch = list[i];
      const f = ch.small ? BOT : PERSON;
      const left = ch.x - f.ax;
      const top = ch.y - f.ay;
      if (w.x >= left + 2 && w.x < left + f.w - 2 && w.y >= top && w.y < top + f.ay + 2 && ch.alpha > 0) return ch;
    }
    return null;
  }

  pointerDown(e) {
    this.sounds.unlock();
    // A press in the card or the label is theirs.
    if (e.target !== this.canvas && e.target !== this.stage) return;
    this.stage.focus({ preventScroll: true });
    const p = this.point(e);
    this.pointers.set(e.pointerId, p);
    this.stage.setPointerCapture?.(e.pointerId);
    if (this.pointers.size === 2) {
      // Two fingers: pan and pinch, whatever the first one started.
      this.endPress(true);
      const [a, b] = [...this.pointers.values()];
      this.pinch = { dist: Math.hypot(a.x - b.x, a.y - b.y), mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
      return;
    }
    if (this.pointers.size > 2) return;
    if (this.editor.open && e.button !== 1 && !this.spaceDown) {
      const t = this.tileAt(p);
      this.press = { kind: 'edit' };
      this.editor.down(t.c, t.r, e.button);
      e.preventDefault();
      return;
    }
    const ch = e.button === 0 ? this.characterAt(p) : null;
    this.press = { kind: ch ? 'character' : 'pan', ch, start: p, last: p, moved: false };
    e.preventDefault();
  }

  pointerMove(e) {
    const p = this.point(e);
    if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, p);
    if (this.pinch && this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      this.camera.panBy(mid.x - this.pinch.mid.x, mid.y - this.pinch.mid.y);
      this.pinch.mid = mid;
      const ratio = dist / this.pinch.dist;
      if (ratio > 1.25 || ratio < 0.8) {
        if (this.camera.zoomTo(this.camera.z + (ratio > 1 ? 1 : -1), mid.x, mid.y)) this.zoomed();
        this.pinch.dist = dist;
      }
      this.rosterDue = true;
      this.redraw();
      return;
    }
    const press = this.press;
    if (press?.kind === 'edit') {
      const t = this.tileAt(p);
      this.editor.move(t.c, t.r);
      return;
    }
    if (press && (press.kind === 'pan' || press.kind === 'character')) {
      const far = Math.hypot(p.cssX - press.start.cssX, p.cssY - press.start.cssY) > DRAG_SLOP;
      if (far) press.moved = true;
      if (press.kind === 'pan' && press.moved) {
        this.camera.panBy(p.x - press.last.x, p.y - press.last.y);
        press.last = p;
        this.rosterDue = true;
        this.card.close();
        this.redraw();
      }
      if (press.kind === 'character' && press.moved && !press.ch.small) {
        const t = this.tileAt(p);
        this.dragTarget = { c: t.c, r: t.r, seat: this.seatAt(t) };
        this.setHover(null);
        this.redraw();
      }
      return;
    }
    if (this.editor.open) {
      const t = this.tileAt(p);
      this.editor.move(t.c, t.r);
      return;
    }
    if (e.pointerType === 'mouse') {
      const ch = e.target === this.canvas ? this.characterAt(p) : null;
      this.setHover(ch ? ch.id : null);
    }
  }

  pointerUp(e, cancelled = false) {
    this.pointers.delete(e.pointerId);
    if (this.pinch) {
      if (this.pointers.size < 2) this.pinch = null;
      return;
    }
    if (!this.pointers.size || cancelled) this.endPress(cancelled);
  }

  endPress(cancelled) {
    const press = this.press;
    this.press = null;
    if (!press) return;
    if (press.kind === 'edit') {
      this.editor.up();
      return;
    }
    if (press.kind === 'character' && !cancelled) {
      if (!press.moved) this.openCard(press.ch);
      else if (this.dragTarget?.seat) this.moveToSeat(press.ch, this.dragTarget.seat);
    }
    if (this.dragTarget) {
      this.dragTarget = null;
      this.redraw();
    }
  }

  seatAt(t) {
    if (!this.scene || t.c < 0 || t.r < 0 || t.c >= this.layout.cols || t.r >= this.layout.rows) return null;
    return this.scene.derived.seats.find((s) => s.col === t.c && s.row === t.r) || null;
  }

  dragOverlay(ctx, { ox, oy, z }) {
    const d = this.dragTarget;
    if (!d) return;
    const T = TILE * z;
    ctx.strokeStyle = d.seat ? '#5fd38a' : 'rgba(255,255,255,0.5)';
    ctx.lineWidth = z;
    ctx.strokeRect(ox + d.c * T, oy + d.r * T, T, T);
  }

  async moveToSeat(ch, seat) {
    try {
      const seats = await chooseSeat(ch.id, seat.id);
      this.seatsRevision = seats.revision;
      this.scene.setPins(seats.choices);
      this.rosterDue = true;
      this.redraw();
    } catch (err) {
      toastError(err, 'Could not move the agent');
    }
  }

  setHover(id) {
    if (this.hover === id) return;
    this.hover = id;
    this.stage.classList.toggle('over-agent', Boolean(id));
    const ch = id && this.scene?.characters.get(id);
    if (ch) this.showLabelFor(ch);
    else this.card.hideLabel();
    this.redraw();
  }

  // Where a character's head is, in CSS pixels of the stage.
  headOf(ch) {
    const dpr = this.dpr || 1;
    const f = ch.small ? BOT : PERSON;
    const s = this.camera.toScreen(ch.x, ch.y - f.ay);
    return { x: s.x / dpr, y: s.y / dpr, feet: (this.camera.y + ch.y * this.camera.z) / dpr };
  }

  showLabelFor(ch) {
    if (!ch.session) return;
    const p = this.headOf(ch);
    this.card.showLabel(ch.session, p.x, p.y);
  }

  openCard(ch) {
    if (!ch?.session) return;
    this.selected = ch.id;
    this.card.hideLabel();
    const p = this.headOf(ch);
    this.card.open(ch.session, p.x, p.feet);
    this.redraw();
  }

  wheel(e) {
    e.preventDefault();
    const p = this.point(e);
    if (e.shiftKey) this.camera.panBy(-e.deltaY, 0);
    else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.camera.panBy(-e.deltaX, -e.deltaY);
    else {
      this.wheelSum = (this.wheelSum || 0) + e.deltaY * (e.deltaMode === 1 ? 40 : 1);
      if (Math.abs(this.wheelSum) < 60) return;
      const step = this.wheelSum < 0 ? 1 : -1;
      this.wheelSum = 0;
      if (this.camera.zoomTo(this.camera.z + step, p.x, p.y)) this.zoomed();
    }
    this.card.close();
    this.rosterDue = true;
    this.redraw();
  }

  zoomBy(step) {
    if (this.camera.zoomTo(this.camera.z + step)) this.zoomed();
    this.redraw();
  }

  fit() {
    this.camera.reset();
    this.zoomed();
    this.redraw();
  }

  zoomed() {
    this.zoomText.textContent = `${this.camera.z}×`;
    this.card.close();
    this.setHover(null);
    this.rosterDue = true;
  }

  keyDown(e) {
    if (e.defaultPrevented) return;
    if (this.editor.open && !isTyping(e.target) && this.editor.key(e)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (e.key === ' ' && this.editor.open && !isTyping(e.target)) this.spaceDown = true;
    if (e.target !== this.stage || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target) || dialogOpen()) return;
    const pan = 24 * (this.dpr || 1);
    const keys = {
      ArrowLeft: () => this.camera.panBy(pan, 0),
      ArrowRight: () => this.camera.panBy(-pan, 0),
      ArrowUp: () => this.camera.panBy(0, pan),
      ArrowDown: () => this.camera.panBy(0, -pan),
      '+': () => this.zoomBy(1),
      '=': () => this.zoomBy(1),
      '-': () => this.zoomBy(-1),
      0: () => this.fit(),
      ']': () => this.cycleFocus(1),
      '[': () => this.cycleFocus(-1),
      Enter: () => {
        const ch = this.focusId && this.scene?.characters.get(this.focusId);
        if (ch) this.openCard(ch);
      },
      Escape: () => {
        if (this.focusId) {
          this.focusId = null;
          this.redraw();
        }
      },
    };
    const action = keys[e.key];
    if (!action) return;
    e.preventDefault();
    e.stopPropagation();
    action();
    this.rosterDue = true;
    this.redraw();
  }

  cycleFocus(step) {
    if (!this.scene) return;
    const list = [...this.scene.characters.values()].filter((c) => !c.leaving).sort((a, b) => a.order - b.order);
    if (!list.length) return;
    const i = list.findIndex((c) => c.id === this.focusId);
    const next = list[(i + step + list.length) % list.length];
    this.focusId = next.id;
    this.showLabelFor(next);
  }

  /** Esc in the view: the card, then the editor's selection. */
  escape() {
    if (this.card.openId) this.card.close();
  }
}

function loadStyle() {
  const href = new URL('../../css/office.css', import.meta.url).pathname;
  if (document.querySelector(`link[href="${href}"]`)) return;
  document.head.append(h('link', { rel: 'stylesheet', href }));
}
