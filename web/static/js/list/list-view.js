// The rows of the list pane: one windowed scroller for triage and backlog,
// one per column on the board. The data and the flags (cursor, selection,
// open, fresh) come from the app; this module only draws and reports clicks.

import { h, afterPaint } from '../dom.js';
import { ListWindow } from '../list-window.js';
import { triageItems, backlogItems, GROUP_HEIGHT } from '../list-model.js';
import { statusLabel } from '../enums.js';
import { renderRow, renderCard, renderGroupHeader, statusPill } from './rows.js';

// Serialising an issue is the cheapest exact test of "did this row change";
// each issue object is serialised once.
const issueText = new WeakMap();
function textOf(issue) {
  let s = issueText.get(issue);
  if (s === undefined) {
    s = JSON.stringify(issue);
    issueText.set(issue, s);
  }
  return s;
}

export class ListView {
  /**
   * @param {HTMLElement} body the element the rows live in
   * @param {import('../app.js').DeskApp} app
   */
  constructor(body, app) {
    this.body = body;
    this.app = app;
    this.mode = null;
    /** @type {ListWindow[]} */
    this.windows = [];
    this.windowOf = new Map();
    this.firstPaint = false;
    body.addEventListener('click', (e) => this.click(e));
    body.addEventListener('pointerdown', (e) => this.press(e));
  }

  flags(issue) {
    const app = this.app;
    const pos = app.positionOf(issue.id);
    return {
      cursor: app.cursor === issue.id,
      selected: app.selection.has(issue.id),
      open: app.route.issue === issue.id,
      fresh: app.isFresh(issue.id),
      pos: pos + 1,
      size: app.order.length,
      agents: app.agentMarks(issue.id),
    };
  }

  stamp(item) {
    if (item.kind === 'group') return `${item.collapsed}|${item.group.issues.length}|${JSON.stringify(item.group.sizes)}`;
    const f = this.flags(item.issue);
    const agents = f.agents.length ? f.agents.map((m) => `${m.state}:${m.text}:${m.title}`).join(',') : '';
    return `${f.cursor}${f.selected}${f.open}${f.fresh}${f.pos}/${f.size}|${agents}|${textOf(item.issue)}`;
  }

  renderItem(item) {
    if (item.kind === 'group') return renderGroupHeader(item);
    const flags = this.flags(item.issue);
    return item.kind === 'card' ? renderCard(item.issue, flags) : renderRow(item.issue, flags);
  }

  windowOptions() {
    return {
      render: (item) => this.renderItem(item),
      stamp: (item) => this.stamp(item),
      sticky: (item) => item.kind === 'group',
      renderSticky: (item) => renderGroupHeader(item),
      stickyHeight: GROUP_HEIGHT,
      onPaint: () => this.painted(),
    };
  }

  // Marks when the frame that shows the first rows begins and when it has
  // been painted (for the benchmark), and tells the app, which then asks
  // for the rest of the page.
  painted() {
    if (this.firstPaint || !this.app.model.issues.length) return;
    this.firstPaint = true;
    requestAnimationFrame(() => performance.mark('desk:list-frame'));
    afterPaint(() => {
      performance.mark('desk:first-rows');
      this.app.rowsPainted();
    });
  }

  clear() {
    for (const w of this.windows) w.destroy();
    this.windows = [];
    this.windowOf.clear();
    this.mode = null;
    this.body.replaceChildren();
  }

  /** Draws the current view: rebuilds the frame when the view changed, else only updates the rows. */
  render() {
    const { view, model } = this.app;
    if (view === 'board') {
      this.renderBoard(model.columns);
      return;
    }
    if (this.mode !== 'list') {
      this.clear();
      this.mode = 'list';
      this.scroller = h('div', {
        class: 'list-scroller',
        id: 'list-scroller',
        role: 'listbox',
        tabindex: '0',
        'aria-label': 'Issues',
        'aria-multiselectable': 'true',
      });
      this.body.append(this.scroller);
      this.windows = [new ListWindow(this.scroller, this.windowOptions())];
    }
    const items = view === 'backlog' ? backlogItems(model.groups, this.app.collapsed) : triageItems(model.issues);
    const win = this.windows[0];
    win.setItems(items);
    this.windowOf.clear();
    for (const item of items) if (item.kind === 'row') this.windowOf.set(item.key, win);
    this.updateActive();
  }

  renderBoard(columns) {
    const signature = columns.map((c) => c.status).join(',');
    if (this.mode !== 'board' || this.boardSignature !== signature) {
      this.clear();
      this.mode = 'board';
      this.boardSignature = signature;
      this.board = h('div', { class: 'board', role: 'group', 'aria-label': 'Board' });
      this.columnEls = new Map();
      for (const column of columns) {
        const count = h('span', { class: 'n' });
        const scroller = h('div', { class: 'board-scroller', role: 'listbox', tabindex: '-1', 'aria-label': statusLabel(column.status), 'aria-multiselectable': 'true' });
        const header = h('div', { class: 'board-column-header' });
        header.innerHTML = statusPill(column.status);
        header.append(count);
        this.board.append(h('section', { class: 'board-column', 'aria-label': statusLabel(column.status) }, header, scroller));
        const win = new ListWindow(scroller, this.windowOptions());
        this.windows.push(win);
        this.columnEls.set(column.status, { win, count });
      }
      this.body.append(this.board);
      this.scroller = this.board;
    }
    this.windowOf.clear();
    for (const column of columns) {
      const { win, count } = this.columnEls.get(column.status);
      count.textContent = String(column.issues.length);
      win.setItems(column.items);
      for (const item of column.items) this.windowOf.set(item.key, win);
    }
  }

  /** Repaints rows whose flags changed (cursor, selection, freshness). */
  refresh() {
    for (const w of this.windows) w.paint();
    this.updateActive();
  }

  updateActive() {
    if (!this.scroller || this.mode !== 'list') return;
    const key = this.app.cursor;
    if (key && this.windows[0]?.nodeFor(key)) this.scroller.setAttribute('aria-activedescendant', `row-${key}`);
    else this.scroller.removeAttribute('aria-activedescendant');
  }

  /** Scrolls the row of an issue into view, wherever the window is. */
  reveal(key) {
    const win = this.windowOf.get(key);
    if (!win) return;
    win.reveal(key);
    this.updateActive();
  }

  focus() {
    (this.mode === 'list' ? this.scroller : this.board?.querySelector('.board-scroller'))?.focus({ preventScroll: true });
  }

  /** The number of row elements in the DOM: bounded by the window, whatever the list size. */
  renderedRows() {
    return this.body.querySelectorAll('[data-id]').length;
  }

  // A mouse press that will open a row's issue asks for the issue at once:
  // the click comes when the button is released, and the issue is on its
  // way by then. The same choices as click: a plain press on the row
  // itself. (A touch may start a scroll instead, so it asks for nothing.)
  press(e) {
    if (e.pointerType !== 'mouse' || e.button !== 0 || e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest('.group-header') || e.target.classList.contains('row-check')) return;
    const row = e.target.closest('[data-id]');
    if (row) this.app.prefetchIssue(row.dataset.id);
  }

  click(e) {
    const header = e.target.closest('.group-header');
    if (header) {
      this.app.toggleGroup(header.dataset.group);
      return;
    }
    const row = e.target.closest('[data-id]');
    if (!row) return;
    const id = row.dataset.id;
    if (e.target.classList.contains('row-check')) {
      if (e.shiftKey) this.app.selectRange(id);
      else this.app.toggleSelect(id);
      return;
    }
    if (e.shiftKey) {
      e.preventDefault();
      this.app.selectRange(id);
    } else if (e.ctrlKey || e.metaKey) {
      this.app.toggleSelect(id);
    } else {
      this.app.openIssue(id);
    }
  }
}

export function emptyList(message, action) {
  return h('div', { class: 'list-empty' }, h('p', null, message), action || null);
}

