// What a change made elsewhere (another tab, the CLI, an agent over MCP, the
// game) does to the page: which rows, which open issue, which handoff to
// reload, and how fast. The live client delivers the changes; this decides.

import { getJSON, paths } from './api.js';

// Changes that arrive together are handled together.
const BATCH_MS = 8;
// While changes pour in (twenty agents writing), the list reloads at most
// this often, with one more after the last change.
const LIST_RELOAD_MS = 300;
// Rows re-read at once per batch (one request); more changes than that wait
// for the list.
const MAX_ROW_READS = 50;

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
    /** @type {Map<string, number>} the newest row read that asked for each issue */
    this.rowReads = new Map();
    this.rowReadSeq = 0;
    /** The newest read of the open issue, so that an older answer never replaces a newer one. */
    this.detailReadSeq = 0;
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

  apply(batch) {
    const app = this.app;
    // Agent rows say a session changed or touched an issue: they refresh
    // what shows agents and nothing else (the issue itself did not change).
    const agentRows = batch.filter((c) => c.type === 'agent');
    if (agentRows.length) {
      app.agents?.changed(agentRows);
      app.agentsView?.changed(agentRows);
    }
    // Pair rows say a pair's transcript grew: the Pair view follows them.
    const pairRows = batch.filter((c) => c.type === 'pair');
    if (pairRows.length) app.pairView?.changed(pairRows);
    // Office rows: a new layout or new seat choices, for the office alone.
    const officeRows = batch.filter((c) => c.type === 'office');
    if (officeRows.length) app.officeView?.changed(officeRows);
    // Code rows: a landing or an open change sent; the Code view and the
    // project page's code follow them.
    const codeRows = batch.filter((c) => c.type === 'code');
    if (codeRows.length) {
      app.codeView?.changed(codeRows);
      if (codeRows.some((c) => c.project === app.slug)) app.codeStrip?.changed();
    }
    // Session rows: a session desk launched started, changed or ended.
    const sessionRows = batch.filter((c) => c.type === 'session');
    if (sessionRows.length) app.agentsView?.sessionsChanged(sessionRows);
    const own = new Set(['agent', 'pair', 'office', 'code', 'session']);
    const changes = agentRows.length || pairRows.length || officeRows.length || codeRows.length || sessionRows.length
      ? batch.filter((c) => !own.has(c.type)) : batch;
    const mine = changes.filter((c) => c.project === app.slug);
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

  // The fast path: the changed issues on screen are read again as list
  // rows, all in one request, and patched into their rows; the open issue,
  // if it changed, is read again in full and redrawn. The list reload that
  // follows settles the order, the counts and issues that entered or left
  // the view.
  patchRows(ids) {
    const app = this.app;
    const rows = [...ids].filter((id) => app.byId?.has(id)).slice(0, MAX_ROW_READS);
    if (rows.length) this.readRows(app.slug, rows);
    const open = app.detail?.id;
    if (open && ids.has(open) && app.route.issue === open) this.readDetail(open);
  }

  async readRows(slug, ids) {
    const app = this.app;
    // Two quick changes of one issue start two reads; only the later one counts for it.
    const seq = ++this.rowReadSeq;
    for (const id of ids) this.rowReads.set(id, seq);
    let list;
    try {
      list = await getJSON(paths.issueRows(slug, ids));
    } catch {
      // The list reload that follows shows what happened.
      return;
    } finally {
      for (const id of ids) if (this.rowReads.get(id) === seq) this.rowReads.delete(id);
    }
    if (slug !== app.slug) return;
    const changed = (list.issues || []).filter((row) => {
      const shown = app.byId?.get(row.id);
      return ids.includes(row.id) && !this.rowReads.has(row.id) && shown && row.updated_at >= shown.updated_at;
    });
    for (const row of changed) app.markFresh(row.id);
    app.patchRows(changed);
  }

  async readDetail(id) {
    const app = this.app;
    const seq = ++this.detailReadSeq;
    let detail;
    try {
      detail = await getJSON(paths.issue(id));
    } catch {
      // Deleted or merged away: the list reload shows it.
      return;
    }
    if (seq !== this.detailReadSeq || app.detail?.id !== detail.id || app.route.issue !== detail.id) return;
    if (app.detailView.isEditing()) app.detailView.deferRefresh();
    else app.showDetail(detail);
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
