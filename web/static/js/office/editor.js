// The layout editor: paint floors and walls (with a colour), erase to
// nothing, place, move, turn, recolour and remove furniture, paint named
// areas and tie them to a project or a folder, grow the office by painting
// on the ghost border around it (up to 64×64), undo and redo a stroke at a
// time, import and export the layout as a file, and save it on the
// revision it was opened on: a save over someone else's newer one is
// refused (409) and offers theirs or an explicit overwrite.
//
// It edits a copy; the office shows the saved layout until a save.

import { h, replaceChildren } from '../dom.js';
import { TILE, WALL, VOID, FLOOR_FIRST, MAX_SIDE, isFloor, footprint, itemTiles, cloneLayout, sameLayout } from './model.js';
import { drawItem, FLOOR_COLORS, WALL_COLOR } from './art.js';
import { loadLayout, saveLayout } from './office-api.js';

const TOOLS = [
  ['select', 'Select', 'Select, move (drag), turn (R) or remove (Delete) furniture'],
  ['floor', 'Floor', 'Paint floor; on the border, grow the office'],
  ['wall', 'Wall', 'Paint walls; on the border, grow the office'],
  ['erase', 'Erase', 'Erase tiles and what stands on them (or right-drag with any tool)'],
  ['place', 'Furniture', 'Place furniture (R turns it)'],
  ['area', 'Area', 'Paint an area (right-drag takes tiles out)'],
];
const AREA_COLORS = ['#e0a458', '#5fa8d3', '#8fc57a', '#d36f8f', '#a48fd8', '#e0d058', '#58d0c0', '#d38a58'];
const UNDO_LIMIT = 200;

export class Editor {
  /**
   * @param {object} host the office view: kinds, catalog, projects(), sprites, edited(work), saved(layout), closeEditor()
   */
  constructor(host) {
    this.host = host;
    this.work = null;
    this.base = null;
    this.undo = [];
    this.redo = [];
    this.tool = 'floor';
    this.pattern = 0;
    this.floorColor = '';
    this.wallColor = '';
    this.placeType = 'desk';
    this.placeRot = 0;
    this.selected = null; // an item's uid
    this.area = null; // an area's id
    this.hover = null; // {c, r}
    this.stroke = null;
    this.drag = null;
    this.discardArmed = 0;
    this.panel = h('div', { class: 'office-editor', role: 'toolbar', 'aria-label': 'Layout editor' });
    this.status = h('p', { class: 'office-editor-status', role: 'status', 'aria-live': 'polite' });
    this.fileInput = h('input', { type: 'file', accept: 'application/json,.json', class: 'visually-hidden', tabindex: '-1', 'aria-hidden': 'true' });
    this.fileInput.addEventListener('change', () => this.importFile());
  }

  get open() {
    return this.work !== null;
  }

  get dirty() {
    return this.open && !sameLayout(this.work, this.base);
  }

  /** Starts editing a copy of the layout. */
  start(layout) {
    this.base = layout;
    this.work = cloneLayout(layout);
    this.undo = [];
    this.redo = [];
    this.selected = null;
    this.area = layout.areas?.[0]?.id || null;
    this.setStatus('');
    this.render();
  }

  stop() {
    this.work = null;
    this.base = null;
    this.stroke = null;
    this.drag = null;
  }

  /** Someone saved the office while it is being edited. */
  remoteChanged(revision) {
    if (this.open && revision > this.base.revision) this.setStatus(`The office was saved elsewhere (revision ${revision}); saving this will ask what to keep.`);
  }

  // ---- Panel ---------------------------------------------------------------

  render() {
    const tools = TOOLS.map(([id, label, title]) =>
      h('button', { type: 'button', class: `button office-tool${this.tool === id ? ' active' : ''}`, 'aria-pressed': String(this.tool === id), title, dataset: { tool: id }, onclick: () => this.setTool(id) }, label),
    );
    const actions = [
      h('button', { type: 'button', class: 'button', dataset: { act: 'undo' }, disabled: !this.undo.length, title: 'Undo (Ctrl+Z)', onclick: () => this.doUndo() }, 'Undo'),
      h('button', { type: 'button', class: 'button', dataset: { act: 'redo' }, disabled: !this.redo.length, title: 'Redo (Ctrl+Shift+Z)', onclick: () => this.doRedo() }, 'Redo'),
      h('button', { type: 'button', class: 'button', dataset: { act: 'import' }, title: 'Replace the office with a layout file', onclick: () => this.fileInput.click() }, 'Import'),
      h('button', { type: 'button', class: 'button', dataset: { act: 'export' }, title: 'Download this layout as a file', onclick: () => this.exportFile() }, 'Export'),
      h('button', { type: 'button', class: 'button primary', dataset: { act: 'save' }, disabled: !this.dirty, title: 'Save (Ctrl+S)', onclick: () => this.save() }, 'Save'),
      h('button', { type: 'button', class: 'button', dataset: { act: 'close' }, onclick: () => this.requestClose() }, this.discardArmed ? 'Discard changes' : 'Close'),
    ];
    replaceChildren(
      this.panel,
      h('div', { class: 'office-editor-row' }, h('div', { class: 'office-editor-tools' }, tools), h('div', { class: 'office-editor-actions' }, actions, this.fileInput)),
      h('div', { class: 'office-editor-row' }, h('div', { class: 'office-editor-options' }, this.options()), this.status),
    );
  }

  options() {
    const color = (value, fallback, onchange, label) =>
      h('label', { class: 'office-field' }, label, h('input', { type: 'color', value: value || fallback, onchange: (e) => onchange(e.target.value) }));
    switch (this.tool) {
      case 'floor': {
        const floors = this.host.catalog.floors || [];
        return [
          h('label', { class: 'office-field' }, 'Pattern', h('select', { 'aria-label': 'Floor pattern', onchange: (e) => { this.pattern = Number(e.target.value); } },
            floors.map((f, i) => h('option', { value: String(i), selected: i === this.pattern }, f.name)))),
          color(this.floorColor, FLOOR_COLORS[this.pattern], (v) => { this.floorColor = v; }, 'Colour'),
          h('button', { type: 'button', class: 'button', onclick: () => { this.floorColor = ''; this.render(); } }, 'Pattern’s own colour'),
        ];
      }
      case 'wall':
        return [color(this.wallColor, WALL_COLOR, (v) => { this.wallColor = v; }, 'Colour'), h('button', { type: 'button', class: 'button', onclick: () => { this.wallColor = ''; this.render(); } }, 'Default colour')];
      case 'place':
        return [
          h('label', { class: 'office-field' }, 'Item', h('select', { 'aria-label': 'Furniture', onchange: (e) => { this.placeType = e.target.value; this.placeRot = 0; this.host.redraw(); } },
            this.host.catalog.furniture.map((k) => h('option', { value: k.type, selected: k.type === this.placeType }, k.name)))),
          h('button', { type: 'button', class: 'button', onclick: () => this.rotatePlacing() }, 'Turn (R)'),
        ];
      case 'select': {
        const it = this.item(this.selected);
        if (!it) return [h('span', { class: 'office-hint' }, 'Click an item to select it.')];
        const kind = this.host.kinds.get(it.type);
        return [
          h('span', { class: 'office-hint' }, `${kind?.name || it.type} ${it.uid}`),
          color(it.color, '#888888', (v) => this.change(() => { it.color = v; }), 'Colour'),
          h('button', { type: 'button', class: 'button', onclick: () => this.change(() => { it.color = ''; }) }, 'Own colours'),
          kind?.rotates ? h('button', { type: 'button', class: 'button', onclick: () => this.rotateSelected() }, 'Turn (R)') : null,
          h('button', { type: 'button', class: 'button', onclick: () => this.removeSelected() }, 'Remove'),
        ];
      }
      case 'area': {
        const areas = this.work.areas;
        const a = areas.find((x) => x.id === this.area);
        const projects = this.host.projects();
        return [
          h('label', { class: 'office-field' }, 'Area', h('select', { 'aria-label': 'Area', onchange: (e) => { this.area = e.target.value; this.render(); this.host.redraw(); } },
            areas.map((x) => h('option', { value: x.id, selected: x.id === this.area }, x.name)))),
          h('button', { type: 'button', class: 'button', onclick: () => this.addArea() }, 'New area'),
          a ? [
            h('label', { class: 'office-field' }, 'Name', h('input', { type: 'text', value: a.name, maxlength: '40', 'aria-label': 'Area name', onchange: (e) => this.change(() => { a.name = e.target.value.trim() || a.name; }) })),
            h('label', { class: 'office-field' }, 'Project', h('select', { 'aria-label': 'Area project', onchange: (e) => this.change(() => { a.project = e.target.value; }) },
              h('option', { value: '' }, 'None'), projects.map((p) => h('option', { value: p.slug, selected: p.slug === a.project }, p.name || p.slug)),
              a.project && !projects.some((p) => p.slug === a.project) ? h('option', { value: a.project, selected: true }, a.project) : null)),
            h('label', { class: 'office-field' }, 'Folder', h('input', { type: 'text', value: a.folder, placeholder: '/path/to/repo', 'aria-label': 'Area folder', onchange: (e) => this.change(() => { a.folder = e.target.value.trim(); }) })),
            color(a.color, '#888888', (v) => this.change(() => { a.color = v; }), 'Colour'),
            h('button', { type: 'button', class: 'button', onclick: () => this.removeArea() }, 'Delete area'),
          ] : h('span', { class: 'office-hint' }, 'Make an area, then paint it on the floor.'),
        ];
      }
      default:
        return [h('span', { class: 'office-hint' }, 'Drag over tiles to erase them and what stands on them.')];
    }
  }

  setTool(id) {
    this.tool = id;
    this.discardArmed = 0;
    this.render();
    this.host.redraw();
  }

  setStatus(text, bad = false) {
    this.status.textContent = text;
    this.status.classList.toggle('bad', bad);
  }

  // ---- Strokes and undo ------------------------------------------------------

  /** Starts a stroke: everything until end() undoes as one. */
  begin() {
    this.stroke = cloneLayout(this.work);
  }

  end() {
    const before = this.stroke;
    this.stroke = null;
    this.drag = null;
    if (before && !sameLayout(before, this.work)) {
      this.undo.push(before);
      if (this.undo.length > UNDO_LIMIT) this.undo.shift();
      this.redo = [];
      this.discardArmed = 0;
      this.render();
    }
  }

  /** One change that is its own stroke (a field, a key). */
  change(fn) {
    this.begin();
    fn();
    this.end();
    this.changed();
  }

  changed() {
    this.host.edited(this.work);
  }

  doUndo() {
    if (!this.undo.length) return;
    this.redo.push(this.work);
    this.work = this.undo.pop();
    this.afterHistory();
  }

  doRedo() {
    if (!this.redo.length) return;
    this.undo.push(this.work);
    this.work = this.redo.pop();
    this.afterHistory();
  }

  afterHistory() {
    if (!this.item(this.selected)) this.selected = null;
    if (!this.work.areas.some((a) => a.id === this.area)) this.area = this.work.areas[0]?.id || null;
    this.render();
    this.changed();
  }

  // ---- Pointer -------------------------------------------------------------------

  /** A press on tile (c, r) (possibly on the ghost border); button 2 erases. */
  down(c, r, button) {
    this.begin();
    this.erasing = button === 2;
    if (this.tool === 'select' && !this.erasing) {
      const it = this.itemAt(c, r);
      this.selected = it ? it.uid : null;
      if (it) this.drag = { uid: it.uid, dc: c - it.col, dr: r - it.row };
      this.render();
      this.host.redraw();
      return;
    }
    this.apply(c, r);
  }

  move(c, r) {
    const was = this.hover;
    this.hover = { c, r };
    if (this.stroke) {
      if (this.drag) this.dragTo(c, r);
      else if (!was || was.c !== c || was.r !== r) this.apply(c, r);
    }
    this.host.redraw();
  }

  up() {
    if (this.stroke) this.end();
  }

  leave() {
    this.hover = null;
    this.host.redraw();
  }

  apply(c, r) {
    const w = this.work;
    const tool = this.erasing ? (this.tool === 'area' ? 'unarea' : 'erase') : this.tool;
    if (tool === 'place') {
      this.place(c, r);
      return;
    }
    if (c < 0 || r < 0 || c >= w.cols || r >= w.rows) {
      if (tool !== 'floor' && tool !== 'wall') return;
      ({ c, r } = this.grow(c, r));
      if (c < 0) return;
    }
    const i = r * w.cols + c;
    switch (tool) {
      case 'floor':
        w.tiles[i] = FLOOR_FIRST + this.pattern;
        w.colors[i] = this.floorColor;
        break;
      case 'wall':
        w.tiles[i] = WALL;
        w.colors[i] = this.wallColor;
        for (const a of w.areas) a.tiles = a.tiles.filter((t) => t !== i);
        break;
      case 'erase':
        w.tiles[i] = VOID;
        w.colors[i] = '';
        for (const a of w.areas) a.tiles = a.tiles.filter((t) => t !== i);
        w.furniture = w.furniture.filter((it) => !this.covers(it, i));
        break;
      case 'area': {
        const a = w.areas.find((x) => x.id === this.area);
        if (!a || !isFloor(w.tiles[i])) return;
        for (const other of w.areas) if (other !== a) other.tiles = other.tiles.filter((t) => t !== i);
        if (!a.tiles.includes(i)) a.tiles.push(i);
        break;
      }
      case 'unarea':
        for (const a of w.areas) a.tiles = a.tiles.filter((t) => t !== i);
        break;
      default:
        return;
    }
    this.prune(i);
    this.changed();
  }

  // Items that no longer stand where they are (a wall painted under a
  // desk) go.
  prune(i) {
    const w = this.work;
    const around = w.furniture.filter((it) => this.covers(it, i));
    if (!around.length) return;
    const gone = new Set(around.filter((it) => !this.fits(it, it)).map((it) => it.uid));
    // What stood on a desk that went goes with it.
    for (const it of w.furniture) if (this.host.kinds.get(it.type)?.surface && !gone.has(it.uid) && !this.fits(it, it, gone)) gone.add(it.uid);
    if (gone.size) w.furniture = w.furniture.filter((it) => !gone.has(it.uid));
  }

  /** Grows the office to take in (c, r) on its border; the tile's new place, or c -1. */
  grow(c, r) {
    const w = this.work;
    const dc = c < 0 ? 1 : 0;
    const dr = r < 0 ? 1 : 0;
    const cols = w.cols + (c < 0 || c >= w.cols ? 1 : 0);
    const rows = w.rows + (r < 0 || r >= w.rows ? 1 : 0);
    if (c < -1 || r < -1 || c > w.cols || r > w.rows) return { c: -1, r: -1 };
    if (cols > MAX_SIDE || rows > MAX_SIDE) {
      this.setStatus(`The office is as large as it gets (${MAX_SIDE}×${MAX_SIDE}).`, true);
      return { c: -1, r: -1 };
    }
    const tiles = new Array(cols * rows).fill(VOID);
    const colors = new Array(cols * rows).fill('');
    const map = (i) => (Math.floor(i / w.cols) + dr) * cols + (i % w.cols) + dc;
    for (let i = 0; i < w.tiles.length; i++) {
      tiles[map(i)] = w.tiles[i];
      colors[map(i)] = w.colors[i];
    }
    for (const it of w.furniture) {
      it.col += dc;
      it.row += dr;
    }
    for (const a of w.areas) a.tiles = a.tiles.map(map);
    w.tiles = tiles;
    w.colors = colors;
    w.cols = cols;
    w.rows = rows;
    this.host.grew(dc, dr);
    return { c: c + dc, r: r + dr };
  }

  // ---- Furniture -----------------------------------------------------------------

  item(uid) {
    return uid ? this.work.furniture.find((it) => it.uid === uid) || null : null;
  }

  covers(it, i) {
    const kind = this.host.kinds.get(it.type);
    return kind ? itemTiles(this.work, kind, it).includes(i) : false;
  }

  /** The item on a tile a click means: what stands on a desk, then the rest, then what hangs on a wall. */
  itemAt(c, r) {
    const w = this.work;
    if (c < 0 || r < 0 || c >= w.cols || r >= w.rows) return null;
    const i = r * w.cols + c;
    const here = w.furniture.filter((it) => this.covers(it, i));
    const rank = (it) => {
      const k = this.host.kinds.get(it.type) || {};
      return k.surface ? 0 : k.on_wall ? 2 : 1;
    };
    here.sort((a, b) => rank(a) - rank(b));
    return here[0] || null;
  }

  /**
   * Whether item (as placed in `at`: col, row, rot) stands where it may,
   * as the server's rules have it; `self` and the items in `skip` are not
   * in its way.
   */
  fits(self, at, skip = new Set()) {
    const w = this.work;
    const kinds = this.host.kinds;
    const kind = kinds.get(self.type);
    if (!kind) return false;
    const { w: fw, h: fh } = footprint(kind, at.rot || 0);
    if (at.col < 0 || at.row < 0 || at.col + fw > w.cols || at.row + fh > w.rows) return false;
    const mine = itemTiles(w, kind, at);
    const layer = (k) => (k.surface ? 's' : k.on_wall ? 'w' : 'g');
    const desks = new Set();
    for (const it of w.furniture) if (it.type === 'desk' && !skip.has(it.uid) && it.uid !== self.uid) for (const t of itemTiles(w, kinds.get('desk'), it)) desks.add(t);
    if (self.type === 'desk') for (const t of mine) desks.add(t);
    for (const t of mine) {
      const tile = w.tiles[t];
      if (kind.on_wall ? tile !== WALL : !isFloor(tile)) return false;
      if (kind.surface && !desks.has(t)) return false;
    }
    for (const it of w.furniture) {
      if (it.uid === self.uid || skip.has(it.uid)) continue;
      const k = kinds.get(it.type);
      if (!k || layer(k) !== layer(kind)) continue;
      const theirs = itemTiles(w, k, it);
      if (theirs.some((t) => mine.includes(t))) return false;
    }
    return true;
  }

  // What stands on a desk moves and turns with it.
  carried(desk) {
    if (desk.type !== 'desk') return [];
    const tiles = itemTiles(this.work, this.host.kinds.get('desk'), desk);
    return this.work.furniture.filter((it) => this.host.kinds.get(it.type)?.surface && itemTiles(this.work, this.host.kinds.get(it.type), it).every((t) => tiles.includes(t)));
  }

  place(c, r) {
    const kind = this.host.kinds.get(this.placeType);
    if (!kind) return;
    const w = this.work;
    const item = { uid: this.newUid(this.placeType), type: this.placeType, col: c, row: r, rot: kind.rotates ? this.placeRot : 0, color: '' };
    if (!this.fits(item, item)) {
      this.setStatus(`A ${kind.name.toLowerCase()} does not fit there.`, true);
      return;
    }
    w.furniture.push(item);
    this.setStatus('');
    this.changed();
  }

  newUid(type) {
    const used = new Set(this.work.furniture.map((it) => it.uid));
    let n = this.work.furniture.length + 1;
    while (used.has(`${type}-${n}`)) n++;
    return `${type}-${n}`;
  }

  dragTo(c, r) {
    const it = this.item(this.drag.uid);
    if (!it) return;
    const col = c - this.drag.dc;
    const row = r - this.drag.dr;
    if (col === it.col && row === it.row) return;
    const load = this.carried(it);
    const skip = new Set(load.map((x) => x.uid));
    if (!this.fits(it, { col, row, rot: it.rot }, skip)) return;
    const dc = col - it.col;
    const dr = row - it.row;
    it.col = col;
    it.row = row;
    for (const x of load) {
      x.col += dc;
      x.row += dr;
    }
    this.changed();
  }

  rotateSelected() {
    const it = this.item(this.selected);
    const kind = it && this.host.kinds.get(it.type);
    if (!kind?.rotates) return;
    const rot = ((it.rot || 0) + 1) % 4;
    const oldH = footprint(kind, it.rot || 0).h;
    const load = this.carried(it);
    const skip = new Set(load.map((x) => x.uid));
    if (!this.fits(it, { col: it.col, row: it.row, rot }, skip)) {
      this.setStatus('It does not fit turned.', true);
      return;
    }
    this.change(() => {
      it.rot = rot;
      // A quarter turn clockwise: (dx, dy) on the desk goes to (h-1-dy, dx).
      for (const x of load) {
        const dx = x.col - it.col;
        const dy = x.row - it.row;
        x.col = it.col + (oldH - 1 - dy);
        x.row = it.row + dx;
        if (this.host.kinds.get(x.type)?.rotates) x.rot = ((x.rot || 0) + 1) % 4;
      }
    });
    this.render();
  }

  rotatePlacing() {
    if (this.host.kinds.get(this.placeType)?.rotates) this.placeRot = (this.placeRot + 1) % 4;
    this.host.redraw();
  }

  removeSelected() {
    const it = this.item(this.selected);
    if (!it) return;
    const gone = new Set([it.uid, ...this.carried(it).map((x) => x.uid)]);
    this.change(() => {
      this.work.furniture = this.work.furniture.filter((x) => !gone.has(x.uid));
    });
    this.selected = null;
    this.render();
  }

  // ---- Areas -----------------------------------------------------------------------

  addArea() {
    const areas = this.work.areas;
    if (areas.length >= (this.host.catalog.max_areas || 32)) {
      this.setStatus('That is as many areas as an office holds.', true);
      return;
    }
    let n = areas.length + 1;
    while (areas.some((a) => a.id === `area-${n}`)) n++;
    const a = { id: `area-${n}`, name: `Area ${n}`, color: AREA_COLORS[(n - 1) % AREA_COLORS.length], project: '', folder: '', tiles: [] };
    this.change(() => areas.push(a));
    this.area = a.id;
    this.render();
  }

  removeArea() {
    const id = this.area;
    this.change(() => {
      this.work.areas = this.work.areas.filter((a) => a.id !== id);
    });
    this.area = this.work.areas[0]?.id || null;
    this.render();
  }

  // ---- Keys ------------------------------------------------------------------------

  /** The editor's keys; true when it took the key. */
  key(e) {
    const mod = e.ctrlKey || e.metaKey;
    const k = e.key.toLowerCase();
    if (mod && k === 'z') {
      if (e.shiftKey) this.doRedo();
      else this.doUndo();
      return true;
    }
    if (mod && k === 'y') {
      this.doRedo();
      return true;
    }
    if (mod && k === 's') {
      this.save();
      return true;
    }
    if (mod || e.altKey) return false;
    if (k === 'r') {
      if (this.tool === 'place') this.rotatePlacing();
      else this.rotateSelected();
      return true;
    }
    if ((e.key === 'Delete' || e.key === 'Backspace') && this.selected) {
      this.removeSelected();
      return true;
    }
    if (e.key === 'Escape' && this.selected) {
      this.selected = null;
      this.render();
      this.host.redraw();
      return true;
    }
    return false;
  }

  // ---- Saving ----------------------------------------------------------------------

  async save(over = null) {
    const body = { ...this.work, revision: over ?? this.base.revision };
    this.setStatus('Saving…');
    try {
      const saved = await saveLayout(body);
      this.base = saved;
      this.work = cloneLayout(saved);
      this.setStatus(`Saved (revision ${saved.revision}).`);
      this.render();
      this.host.saved(saved);
    } catch (err) {
      if (err.status === 409) this.conflict(err.message);
      else this.setStatus(err.message, true);
    }
  }

  conflict(message) {
    this.setStatus(message, true);
    this.status.append(
      ' ',
      h('button', { type: 'button', class: 'button', dataset: { act: 'theirs' }, onclick: () => this.takeTheirs() }, 'Load theirs'),
      ' ',
      h('button', { type: 'button', class: 'button', dataset: { act: 'overwrite' }, onclick: () => this.overwrite() }, 'Save mine over it'),
    );
  }

  async takeTheirs() {
    try {
      const latest = await loadLayout();
      this.undo.push(this.work);
      this.base = latest;
      this.work = cloneLayout(latest);
      this.setStatus(`Loaded revision ${latest.revision}; undo brings your edit back.`);
      this.afterHistory();
    } catch (err) {
      this.setStatus(err.message, true);
    }
  }

  async overwrite() {
    try {
      const latest = await loadLayout();
      await this.save(latest.revision);
    } catch (err) {
      this.setStatus(err.message, true);
    }
  }

  requestClose() {
    if (this.dirty && !this.discardArmed) {
      this.discardArmed = setTimeout(() => {
        this.discardArmed = 0;
        if (this.open) this.render();
      }, 4000);
      this.setStatus('There are unsaved changes: press Discard changes to close without saving.');
      this.render();
      return;
    }
    clearTimeout(this.discardArmed);
    this.discardArmed = 0;
    this.host.closeEditor();
  }

  exportFile() {
    const blob = new Blob([`${JSON.stringify(this.work, null, 1)}\n`], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: 'desk-office.json', class: 'visually-hidden' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    this.setStatus('Exported desk-office.json.');
  }

  async importFile() {
    const file = this.fileInput.files?.[0];
    this.fileInput.value = '';
    if (!file) return;
    let layout;
    try {
      layout = JSON.parse(await file.text());
    } catch (err) {
      this.setStatus(`${file.name} is not JSON: ${err.message}`, true);
      return;
    }
    if (!layout || typeof layout !== 'object' || Array.isArray(layout)) {
      this.setStatus(`${file.name} is not a layout: it holds no JSON object.`, true);
      return;
    }
    // The file replaces the office now; the server checks it and says what is wrong.
    try {
      const saved = await saveLayout({ ...layout, revision: this.base.revision });
      this.undo.push(this.work);
      this.base = saved;
      this.work = cloneLayout(saved);
      this.setStatus(`Imported ${file.name} (revision ${saved.revision}).`);
      this.afterHistory();
      this.host.saved(saved);
    } catch (err) {
      if (err.status === 409) this.conflict(err.message);
      else this.setStatus(`${file.name}: ${err.message}`, true);
    }
  }

  // ---- Drawing -----------------------------------------------------------------------

  /** The editor's marks over the office: the border to grow into, the tile under the pointer, the selection, what is being placed. */
  overlay(ctx, { ox, oy, z }) {
    const w = this.work;
    if (!w) return;
    const T = TILE * z;
    ctx.save();
    ctx.setLineDash([2 * z, 2 * z]);
    ctx.strokeStyle = 'rgba(255,255,255,0.35)';
    ctx.lineWidth = Math.max(1, Math.floor(z / 2));
    ctx.strokeRect(ox - T + 0.5, oy - T + 0.5, (w.cols + 2) * T, (w.rows + 2) * T);
    ctx.setLineDash([]);
    const a = this.tool === 'area' && w.areas.find((x) => x.id === this.area);
    if (a) {
      ctx.fillStyle = a.color;
      ctx.globalAlpha = 0.35;
      for (const t of a.tiles) ctx.fillRect(ox + (t % w.cols) * T, oy + Math.floor(t / w.cols) * T, T, T);
      ctx.globalAlpha = 1;
    }
    const sel = this.item(this.selected);
    if (sel) {
      const k = this.host.kinds.get(sel.type);
      const { w: fw, h: fh } = footprint(k, sel.rot || 0);
      ctx.strokeStyle = '#ffd65c';
      ctx.lineWidth = z;
      ctx.strokeRect(ox + sel.col * T, oy + sel.row * T, fw * T, fh * T);
    }
    const hv = this.hover;
    if (hv) {
      if (this.tool === 'place') {
        const kind = this.host.kinds.get(this.placeType);
        const rot = kind?.rotates ? this.placeRot : 0;
        const item = { uid: '', type: this.placeType, col: hv.c, row: hv.r, rot };
        if (kind) {
          const { w: fw, h: fh } = footprint(kind, rot);
          const ok = this.fits(item, item);
          const img = this.host.sprites.get(`ghost:${this.placeType}:${rot}`, z, () => drawItem(this.placeType, rot, '', fw, fh));
          ctx.globalAlpha = 0.6;
          ctx.drawImage(img, ox + hv.c * T, oy + hv.r * T - img.height + fh * T);
          ctx.globalAlpha = 1;
          ctx.strokeStyle = ok ? '#5fd38a' : '#ff6b6b';
          ctx.lineWidth = z;
          ctx.strokeRect(ox + hv.c * T, oy + hv.r * T, fw * T, fh * T);
        }
      } else {
        const inside = hv.c >= 0 && hv.r >= 0 && hv.c < w.cols && hv.r < w.rows;
        ctx.strokeStyle = inside ? 'rgba(255,255,255,0.9)' : 'rgba(95,211,138,0.9)';
        ctx.lineWidth = z;
        ctx.strokeRect(ox + hv.c * T, oy + hv.r * T, T, T);
      }
    }
    ctx.restore();
  }
}
