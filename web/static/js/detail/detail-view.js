// The right pane: the open issue with all its parts, or a short guide when
// none is open. A live change re-renders the issue, except while the owner
// is editing part of it; then the refresh waits until the edit ends.

import { h, icon, replaceChildren } from '../dom.js';
import { renderMarkdown } from '../markdown.js';
import { filesOf } from '../files.js';
import { statusPill } from '../list/rows.js';
import { issueBuildCard } from '../build-controls.js';
import { detailHeader } from './header.js';
import { detailFields } from './fields.js';
import { locationCard } from './location-card.js';
import { planSection } from './plan.js';
import { landingsSection } from './landings.js';
import { relationsSection } from './relations.js';
import { attachmentsSection } from './attachments.js';
import { timelineSection } from './timeline.js';
import { Composer } from './composer.js';
import { workingAgentsBox, showWorkingAgents } from './working-agents.js';

/**
 * @typedef {{app: import('../app.js').DeskApp, beginEdit: () => void, endEdit: () => void}} DetailContext
 */

// Composers of recently opened issues keep their drafts; older ones go.
const KEEP_COMPOSERS = 8;

export class DetailView {
  /** @param {import('../app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.editing = 0;
    this.deferred = false;
    this.current = null;
    /** @type {Map<string, Composer>} */
    this.composers = new Map();
    /** @type {Map<string, Set<string>>} timeline keys already shown, per issue */
    this.seen = new Map();
    /** Issues whose whole timeline the owner asked to see. */
    this.fullTimeline = new Set();
    this.ctx = {
      app,
      beginEdit: () => {
        this.editing++;
      },
      endEdit: () => {
        this.editing = Math.max(0, this.editing - 1);
        if (this.editing === 0 && this.deferred) {
          this.deferred = false;
          app.refreshDetail();
        }
      },
    };

    // Files dropped anywhere on the open issue go with the next answer;
    // the attachments box handles its own drops.
    el.addEventListener('dragover', (e) => {
      if (this.current && e.dataTransfer?.types?.includes('Files')) e.preventDefault();
    });
    el.addEventListener('drop', (e) => {
      if (!this.current) return;
      const files = filesOf(e.dataTransfer);
      if (!files.length) return;
      e.preventDefault();
      this.composer()?.addFiles(files);
    });
  }

  /** True while an inline editor is open: live refreshes wait. */
  isEditing() {
    return this.editing > 0;
  }

  /** Asks for a refresh once the current edit ends. */
  deferRefresh() {
    this.deferred = true;
  }

  composer() {
    return this.current ? this.composerFor(this.current.id) : null;
  }

  composerFor(id) {
    let c = this.composers.get(id);
    if (!c) {
      c = new Composer(id, this.app);
      this.composers.set(id, c);
      for (const [key, old] of this.composers) {
        if (this.composers.size <= KEEP_COMPOSERS) break;
        if (key !== id && old.empty) this.composers.delete(key);
      }
    } else {
      // Most recently used last.
      this.composers.delete(id);
      this.composers.set(id, c);
    }
    return c;
  }

  reset() {
    this.current = null;
    this.editing = 0;
    this.deferred = false;
  }

  /** The start of the pane when no issue is open. */
  showEmpty() {
    this.reset();
    const { app } = this;
    const p = app.project;
    const waiting = p ? (p.counts?.to_check || 0) : 0;
    replaceChildren(
      this.el,
      h('div', { class: 'empty-state detail-empty' },
        h('h2', null, p ? p.name : 'desk'),
        p ? h('p', null, waiting ? `${waiting} ${waiting === 1 ? 'check waits' : 'checks wait'} for you.` : 'Nothing waits for you right now.') : null,
        h('p', null, 'Open an issue from the list (', h('kbd', null, 'j'), ' ', h('kbd', null, 'k'), ' and ', h('kbd', null, 'Enter'), '), or read the ',
          p ? h('a', { href: `#/${p.slug}/~handoff` }, 'handoff') : 'handoff', ' (', h('kbd', null, 'h'), ').'),
        h('p', null, 'Press ', h('kbd', null, '?'), ' for every key.')),
    );
  }

  /** Shows what the list already knows about an issue while its detail loads. */
  showPending(summary) {
    this.reset();
    const header = h('header', { class: 'detail-header' },
      h('div', { class: 'detail-actions' }, h('span', { class: 'detail-id' }, summary.id)),
      h('h1', { class: 'detail-title' }, summary.title));
    const status = h('div', { class: 'status-row' });
    status.innerHTML = statusPill(summary.status);
    replaceChildren(this.el, h('article', { class: 'detail loading', 'aria-busy': 'true', 'data-issue': summary.id }, header, status));
  }

  showError(id, message) {
    this.reset();
    replaceChildren(this.el, h('div', { class: 'empty-state' }, h('h2', null, `Could not open ${id}`), h('p', null, message),
      h('button', { type: 'button', class: 'button', onclick: () => this.app.closeDetail() }, 'Back to the list')));
  }

  /** Renders an issue; the same issue again keeps the scroll position and the composer. */
  show(detail) {
    const same = this.current?.id === detail.id;
    // Another issue starts at the top. The scroll is set before the new
    // content goes in, while the layout is still clean: setting it after
    // would force a full layout of the new issue in the middle of drawing it.
    if (!same && this.el.scrollTop !== 0) this.el.scrollTop = 0;
    this.current = detail;
    this.editing = 0;
    this.deferred = false;
    const ctx = this.ctx;
    const seen = this.seen.get(detail.id) || null;
    const timeline = timelineSection(detail, ctx, seen, {
      later: !same,
      all: this.fullTimeline.has(detail.id),
      showAll: () => {
        this.fullTimeline.add(detail.id);
        this.show(this.current);
      },
    });
    this.seen.set(detail.id, new Set(timeline.keys));

    this.agentsBox = workingAgentsBox();
    showWorkingAgents(this.agentsBox, this.app.agentsOnIssue(detail.id, detail.agents));
    const sections = [
      detailHeader(detail, ctx),
      this.agentsBox,
      this.description(detail),
      issueBuildCard(detail),
      locationCard(detail, ctx),
      planSection(detail, ctx),
      landingsSection(detail),
      relationsSection(detail, ctx),
      detailFields(detail, ctx),
      attachmentsSection(detail, ctx),
      timeline.el,
    ].filter(Boolean);
    const composer = this.composerFor(detail.id).el;
    const article = this.el.querySelector(':scope > article.detail');
    if (same && article && composer.parentElement === article) {
      // The composer never leaves the page, so typing in it survives a live refresh.
      for (const child of [...article.children]) if (child !== composer) child.remove();
      composer.before(...sections);
    } else {
      replaceChildren(this.el, h('article', { class: 'detail' }, sections, composer));
    }
    const root = this.el.querySelector(':scope > article.detail');
    root.dataset.issue = detail.id;
    root.setAttribute('aria-label', `${detail.id} ${detail.title}`);
    root.removeAttribute('aria-busy');
  }

  /** Redraws who works on the open issue, after the page's agent sessions changed. */
  updateAgents() {
    if (!this.current || !this.agentsBox?.isConnected) return;
    showWorkingAgents(this.agentsBox, this.app.agentsOnIssue(this.current.id, this.current.agents));
  }

  description(detail) {
    const box = h('section', { class: 'description', 'aria-label': 'Description' });
    const show = () => {
      const body = h('div', { class: 'md' });
      if (detail.body) body.innerHTML = renderMarkdown(detail.body, { issueHref: this.app.issueHref });
      else body.append(h('p', { class: 'muted' }, 'No description.'));
      replaceChildren(box, h('div', { class: 'card-head' }, h('h3', null, 'Description'), h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'button small ghost', title: 'Edit the description (e)', onclick: () => this.editDescription() }, 'Edit')), body);
    };
    box.deskShow = show;
    show();
    this.descriptionBox = box;
    return box;
  }

  /** Opens the description editor (the e key). */
  editDescription() {
    const detail = this.current;
    const box = this.descriptionBox;
    if (!detail || !box || box.querySelector('textarea')) return;
    this.ctx.beginEdit();
    const area = h('textarea', { class: 'body-editor', rows: '10', 'aria-label': 'Description (markdown)' });
    area.value = detail.body || '';
    const error = h('p', { class: 'form-error', role: 'alert' });
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      box.deskShow();
      this.ctx.endEdit();
    };
    const save = async () => {
      if (area.value === (detail.body || '')) {
        close();
        return;
      }
      const ok = await this.app.updateIssue(detail.id, { body: area.value }, (err) => {
        error.textContent = err.message;
      });
      if (ok) {
        closed = true;
        this.ctx.endEdit();
      }
    };
    area.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        save();
      } else if (e.key === 'Escape') {
        e.stopPropagation();
        close();
      }
    });
    replaceChildren(box,
      h('div', { class: 'card-head' }, h('h3', null, 'Description'), h('span', { class: 'muted' }, 'Markdown; Ctrl+Enter saves')),
      area,
      error,
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'button small', onclick: close }, 'Cancel'),
        h('button', { type: 'button', class: 'button small primary', onclick: save }, icon('check'), 'Save')));
    area.focus();
  }
}
