// What a change made elsewhere (another tab, the CLI, an agent over MCP, the
// game) does to the page: which rows, which open issue, which handoff to
// reload, and how fast. The live client delivers the changes; this decides.

import { getJSON, paths } from './api.js';

// Changes that arrive together are handled together.
const BATCH_MS = 8;
// While changes pour in (twenty agents writing), the list reloads at most
// this often, with one more after the last change.
const LIST_RELOAD_MS = 300;
// Reads of single issues per batch; more changes than that wait for the list.
const MAX_ROW_READS = 8;

export class LiveUpdates {
  /**
   * @param {import('./app.js').DeskApp} app
   * @param {HTMLElement} footer the footer's live state
   */
  constructor(app, footer) {
    this.app = app;
    this.footer = footer;
    this.pending = [];
    this.timer = 0;
    this.lastListReload = 0;
    this.listTimer = 0;
    this.projectTimer = 0;
    this.projectsTimer = 0;
    /** @type {Map<string, number>} the newest read started per issue */
    this.reads = new Map();
  }

  /** Takes a batch of feed rows from the live client. */
  receive(changes) {
    this.pending.push(...changes);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      const batch = this.pending;
      this.pending = [];
      this.apply(batch);
    }, BATCH_MS);
  }

  apply(changes) {
    const app = this.app;
    const mine = changes.filter((c) => c.project === app.slug);
    if (changes.some((c) => c.type === 'agent')) app.agentsView?.changed(changes.filter((c) => c.type === 'agent'));
    if (changes.some((c) => c.project !== app.slug)) this.reloadProjectsSoon();
    if (!mine.length) return;
    const issues = new Set(mine.map((c) => c.issue).filter(Boolean));
    if (issues.size) {
      this.patchRows(issues);
      this.reloadList();
    }
    if (mine.some((c) => c.type === 'handoff')) app.handoffView?.changed();
    const d = app.detail;
    if (d) {
      // A game that picked up a command shows as a change of its issue.
      if (issues.has(d.id)) import('./detail/location-card.js').then((m) => m.checkPendingSends(d.id));
      const related = [d.parent, ...(d.children || []).map((c) => c.id), ...(d.merged_sources || []).map((m) => m.id)];
      if (!issues.has(d.id) && related.some((id) => id && issues.has(id))) app.refreshDetail();
    }
    this.reloadProjectSoon();
  }

  // The fast path: each changed issue on screen is read alone (a few
  // milliseconds) and patched into its row, and the open issue is redrawn
  // from the same read. The list reload that follows settles the order, the
  // counts and issues that entered or left the view.
  patchRows(ids) {
    const app = this.app;
    const wanted = [...ids].filter((id) => app.byId?.has(id) || app.detail?.id === id).slice(0, MAX_ROW_READS);
    for (const id of wanted) {
      // Two quick changes of one issue start two reads; only the later one counts.
      const seq = (this.reads.get(id) || 0) + 1;
      this.reads.set(id, seq);
      getJSON(paths.issue(id)).then((detail) => {
        if (this.reads.get(id) !== seq) return;
        this.reads.delete(id);
        const row = app.byId?.get(detail.id);
        if (row && detail.updated_at >= row.updated_at) {
          app.markFresh(detail.id);
          app.patchRow(detail);
        }
        if (app.detail?.id === detail.id && app.route.issue === detail.id) {
          if (app.detailView.isEditing()) app.detailView.deferRefresh();
          else app.showDetail(detail);
        }
      }, () => {
        // Deleted or merged away: the list reload shows it.
      });
    }
  }

  reloadList() {
    const wait = this.lastListReload + LIST_RELOAD_MS - Date.now();
    if (wait <= 0) {
      this.lastListReload = Date.now();
      this.app.loadList({ live: true });
      return;
    }
    if (this.listTimer) return;
    this.listTimer = setTimeout(() => {
      this.listTimer = 0;
      this.lastListReload = Date.now();
      this.app.loadList({ live: true });
    }, wait);
  }

  // Counts, build and areas follow the list closely but need not be instant.
  reloadProjectSoon() {
    clearTimeout(this.projectTimer);
    this.projectTimer = setTimeout(() => {
      this.app.loadProject();
      this.app.loadProjects();
    }, 250);
  }

  reloadProjectsSoon() {
    clearTimeout(this.projectsTimer);
    this.projectsTimer = setTimeout(() => this.app.loadProjects(), 1000);
  }

  /** Shows in the footer whether the page is live or polling. */
  showMode(mode) {
    const el = this.footer;
    el.className = `live-state ${mode}`;
    el.textContent = mode === 'live' ? '● live' : mode === 'polling' ? '○ polling' : '○ connecting';
    el.title = mode === 'live' ? 'Changes from anywhere show as they happen' : 'The live stream is down; checking for changes every few seconds';
  }
}
