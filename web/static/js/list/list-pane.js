// The left pane: quick add, filters, the selection bar, the rows and the
// footer with Show more.

import { h, replaceChildren } from '../dom.js';
import { parseQuickAdd, describeQuickAdd } from '../quick-add.js';
import { filesOf } from '../files.js';
import { plural } from '../format.js';
import { FiltersBar } from './filters-bar.js';
import { SelectionBar } from './selection-bar.js';
import { ListView, emptyList } from './list-view.js';

export class ListPane {
  /** @param {import('../app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.pendingFiles = [];

    this.quickInput = h('input', {
      type: 'text',
      id: 'quick-add',
      placeholder: 'Quick add: Title !p1 @area +bug #tag',
      'aria-label': 'Quick add an issue: title with !p0-3 for priority, @area, +kind and #tags',
      autocomplete: 'off',
    });
    this.quickHint = h('div', { class: 'quick-add-hint', id: 'quick-add-hint', 'aria-live': 'polite' });
    this.quickInput.setAttribute('aria-describedby', 'quick-add-hint');
    this.quickForm = h('form', { class: 'quick-add', onsubmit: (e) => this.submitQuickAdd(e) },
      this.quickInput,
      h('button', { type: 'submit', class: 'button' }, 'Add'));
    this.quickInput.addEventListener('input', () => this.hint());
    this.quickInput.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        this.quickInput.value = '';
        this.pendingFiles = [];
        this.hint();
        this.quickInput.blur();
        app.focusList();
      }
    });
    // A screenshot pasted into quick add goes with the new issue.
    this.quickInput.addEventListener('paste', (e) => {
      const files = filesOf(e.clipboardData);
      if (files.length) {
        e.preventDefault();
        e.stopPropagation();
        this.pendingFiles.push(...files);
        this.hint();
      }
    });

    this.filtersEl = h('div', { class: 'filters' });
    // The project's code: its repositories and their overlaps (code/code-strip.js).
    this.codeEl = h('section', { class: 'code-strip', 'aria-label': 'Code', hidden: true });
    this.selectionEl = h('div', { class: 'selection-bar', role: 'region', 'aria-label': 'Selection', hidden: true });
    this.loading = h('div', { class: 'list-loading', hidden: true, 'aria-hidden': 'true' });
    this.body = h('div', { class: 'list-body' });
    this.message = h('div', { class: 'list-message' });
    this.footer = h('div', { class: 'list-footer', hidden: true });
    this.frame = h('div', { class: 'list-frame' }, this.loading, this.body);
    el.append(this.quickForm, this.quickHint, this.filtersEl, this.codeEl, this.selectionEl, this.message, this.frame, this.footer);

    this.filters = new FiltersBar(this.filtersEl, app);
    this.selectionBar = new SelectionBar(this.selectionEl, app);
    this.view = new ListView(this.body, app);
  }

  hint(error) {
    const text = this.quickInput.value;
    const files = this.pendingFiles.length ? ` · ${plural(this.pendingFiles.length, 'screenshot')}` : '';
    if (error) {
      this.quickHint.textContent = error;
      this.quickHint.classList.add('error');
      return;
    }
    this.quickHint.classList.remove('error');
    this.quickHint.textContent = text.trim() ? describeQuickAdd(parseQuickAdd(text)) + files : files.slice(3);
  }

  async submitQuickAdd(e) {
    e.preventDefault();
    const parsed = parseQuickAdd(this.quickInput.value);
    if (parsed.error) {
      this.hint(parsed.error);
      return;
    }
    const ok = await this.app.quickAdd(parsed, this.pendingFiles);
    if (ok) {
      this.quickInput.value = '';
      this.pendingFiles = [];
      this.hint();
    }
  }

  focusQuickAdd() {
    this.quickInput.focus();
  }

  setLoading(on) {
    this.loading.hidden = !on;
  }

  /** Shows a message instead of rows (no project, an error). */
  showMessage(node) {
    replaceChildren(this.message, node || []);
    this.frame.hidden = Boolean(node);
  }

  render() {
    const { app } = this;
    // The rows need only the project's slug; its details (areas, build) fill in when they arrive.
    this.quickForm.hidden = !app.slug;
    this.filtersEl.hidden = !app.slug;
    if (!app.slug) return;
    this.filters.render();
    this.selectionBar.render();
    if (app.listError) {
      this.showMessage(emptyList(app.listError, h('button', { type: 'button', class: 'button', onclick: () => app.refresh() }, 'Try again')));
      this.footer.hidden = true;
      return;
    }
    if (app.list.loaded && app.model.issues.length === 0) {
      const filtered = app.filters.q || app.filters.kind || app.filters.priority || app.filters.area;
      this.showMessage(emptyList(filtered ? 'Nothing matches these filters.' : 'Nothing here. Quick add an issue above, or show more statuses.',
        filtered ? h('button', { type: 'button', class: 'button', onclick: () => app.resetFilters() }, 'Clear the filters') : null));
    } else {
      this.showMessage(null);
    }
    this.view.render();
    this.renderFooter();
  }

  renderFooter() {
    const { list, model, view } = this.app;
    const shown = model.issues.length;
    this.footer.hidden = !list.loaded;
    const more = view !== 'backlog' && list.total > shown && !list.partial
      ? h('button', { type: 'button', class: 'button small', onclick: () => this.app.showMore() }, 'Show more')
      : null;
    const searchNote = list.search?.mode === 'substring' ? ' · no whole-word match, showing parts of words' : '';
    replaceChildren(this.footer, h('span', null, `${shown} of ${list.total}${searchNote}`), more);
  }
}
