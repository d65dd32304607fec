// The project handoff: where work stopped and what comes next, by section;
// Edit for the markdown; a version picker with author and time; and the
// changes since the previous version. It follows live saves while open.

import { h, icon, replaceChildren } from './dom.js';
import { getJSON, postJSON, paths, isAbort, Latest } from './api.js';
import { renderMarkdown } from './markdown.js';
import { parseUnifiedDiff, diffStats } from './diff.js';
import { formatDateTime, timeAgo } from './format.js';
import { HANDOFF_SECTIONS, OWNER } from './enums.js';
import { toastError, toast } from './toast.js';

const TEMPLATE = HANDOFF_SECTIONS.map((s) => `## ${s}\n\n`).join('\n');

export class HandoffView {
  /** @param {import('./app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.req = new Latest();
    this.slug = null;
    this.version = 0; // 0: follow the latest
    this.editing = false;
    this.data = null;
  }

  /** Opens the handoff of a project at its latest version. */
  open(slug) {
    if (this.slug !== slug) {
      this.version = 0;
      this.data = null;
    }
    this.slug = slug;
    this.editing = false;
    if (!this.data) replaceChildren(this.el, h('article', { class: 'handoff loading', 'aria-busy': 'true' }, h('h1', null, 'Handoff')));
    return this.load();
  }

  close() {
    this.req.cancel();
    this.slug = null;
    this.editing = false;
  }

  get isOpen() {
    return this.slug !== null;
  }

  /** A live save: reload unless the owner is writing or reading an old version. */
  changed() {
    if (!this.isOpen || this.editing) return;
    this.load();
  }

  async load() {
    const slug = this.slug;
    const req = this.req.begin();
    try {
      const [doc, history] = await Promise.all([
        getJSON(paths.handoff(slug, this.version), { signal: req.signal }),
        getJSON(paths.handoffHistory(slug), { signal: req.signal }),
      ]);
      let diff = null;
      if (doc.version > 1) diff = await getJSON(paths.handoffDiff(slug, doc.version - 1, doc.version), { signal: req.signal });
      if (!req.current() || this.editing) return;
      const previous = this.data;
      this.data = { doc, history: history.versions || [], diff };
      this.render(previous && previous.doc.version !== doc.version);
    } catch (err) {
      if (isAbort(err) || !req.current()) return;
      replaceChildren(this.el, h('div', { class: 'empty-state' }, h('h2', null, 'Could not load the handoff'), h('p', null, err.message)));
    }
  }

  render(fresh) {
    const { doc, history, diff } = this.data;
    const latest = history[0]?.version || doc.version;
    const picker = history.length
      ? h('select', {
        'aria-label': 'Version',
        onchange: (e) => {
          const v = Number(e.target.value);
          this.version = v === latest ? 0 : v;
          this.load();
        },
      }, history.map((v) => h('option', { value: String(v.version), selected: v.version === doc.version },
        `v${v.version} · ${v.author} · ${formatDateTime(v.created_at)}${v.note ? ` · ${v.note}` : ''}`)))
      : null;

    const head = h('header', { class: 'handoff-head' },
      h('h1', null, 'Handoff'),
      picker,
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'button small', onclick: () => this.edit() }, 'Edit'),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close the handoff', title: 'Close (Esc)', onclick: () => this.app.closeDetail() }, icon('close')));

    if (!doc.version) {
      replaceChildren(this.el, h('article', { class: 'handoff' }, head,
        h('div', { class: 'empty-state' }, h('p', null, 'No handoff yet. Agents write one when they stop; you can start it with Edit.'))));
      return;
    }

    const byline = h('p', { class: 'detail-meta' }, `Version ${doc.version} by ${doc.author}, `,
      h('time', { datetime: doc.created_at, title: formatDateTime(doc.created_at) }, timeAgo(doc.created_at)),
      doc.note ? ` — ${doc.note}` : '',
      doc.version !== latest ? h('span', { class: 'badge warn' }, ` an older version; the latest is v${latest}`) : null);

    const order = doc.section_order?.length ? doc.section_order : HANDOFF_SECTIONS;
    const sections = order.map((name) => {
      const text = doc.sections?.[name] || '';
      const body = h('div', { class: 'md' });
      if (text.trim()) body.innerHTML = renderMarkdown(text, { issueHref: this.app.issueHref });
      else body.append(h('p', { class: 'muted' }, 'Nothing written.'));
      return h('section', { class: 'card-box handoff-section', 'aria-label': name }, h('h2', null, name), body);
    });
    const other = this.otherContent(doc);

    replaceChildren(this.el, h('article', { class: `handoff${fresh ? ' fresh' : ''}`, 'data-version': String(doc.version) },
      head, byline, sections, other, this.diffBox(doc, diff)));
  }

  // Text outside the five sections (a title, an extra heading) is shown too, so nothing written is hidden.
  otherContent(doc) {
    const known = new Set((doc.section_order?.length ? doc.section_order : HANDOFF_SECTIONS).map((s) => s.toLowerCase()));
    const extra = [];
    let keep = false;
    for (const line of (doc.markdown || '').split('\n')) {
      const m = line.match(/^##\s+(.*)$/);
      if (m) keep = !known.has(m[1].trim().toLowerCase());
      else if (/^#\s/.test(line)) keep = false;
      if (keep) extra.push(line);
    }
    if (!extra.join('').trim()) return null;
    const body = h('div', { class: 'md' });
    body.innerHTML = renderMarkdown(extra.join('\n'), { issueHref: this.app.issueHref });
    return h('section', { class: 'card-box handoff-section', 'aria-label': 'Other sections' }, body);
  }

  diffBox(doc, diff) {
    if (!diff) return h('p', { class: 'muted' }, 'This is the first version.');
    const lines = parseUnifiedDiff(diff.diff);
    const stats = diffStats(lines);
    return h('section', { class: 'card-box diff-box', 'aria-label': `Changes since version ${doc.version - 1}` },
      h('h2', null, `Changes since v${doc.version - 1}`, h('span', { class: 'muted' }, `  +${stats.added} −${stats.removed}`)),
      lines.length
        ? h('pre', { class: 'diff' }, lines.filter((l) => l.type !== 'meta').map((l) => h('span', { class: `diff-line diff-${l.type}` }, l.type === 'add' ? '+ ' : l.type === 'del' ? '− ' : l.type === 'hunk' ? '' : '  ', l.text, '\n')))
        : h('p', { class: 'muted' }, 'No changes.'));
  }

  edit() {
    if (!this.data) return;
    this.editing = true;
    const { doc } = this.data;
    const area = h('textarea', { class: 'handoff-editor', rows: '24', 'aria-label': 'Handoff (markdown)' });
    area.value = doc.version ? doc.markdown : TEMPLATE;
    const note = h('input', { type: 'text', placeholder: 'What changed (optional)', 'aria-label': 'Note', maxlength: '300' });
    const error = h('p', { class: 'form-error', role: 'alert' });
    const cancel = () => {
      this.editing = false;
      this.load();
    };
    const save = async () => {
      if (!area.value.trim()) {
        error.textContent = 'The handoff cannot be empty.';
        return;
      }
      try {
        await postJSON(paths.handoff(this.slug), { markdown: area.value, author: OWNER, note: note.value.trim() });
        this.editing = false;
        this.version = 0;
        toast('Handoff saved');
        await this.load();
      } catch (err) {
        error.textContent = err.message;
        toastError(err, 'Could not save the handoff');
      }
    };
    area.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        save();
      } else if (e.key === 'Escape') {
        e.stopPropagation();
        cancel();
      }
    });
    replaceChildren(this.el, h('article', { class: 'handoff editing' },
      h('header', { class: 'handoff-head' }, h('h1', null, 'Edit the handoff'), h('span', { class: 'spacer' })),
      h('p', { class: 'field-hint' }, `Sections: ${HANDOFF_SECTIONS.join(', ')}. Every save is a new version. Ctrl+Enter saves.`),
      area, note, error,
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'button', onclick: cancel }, 'Cancel'),
        h('button', { type: 'button', class: 'button primary', onclick: save }, 'Save version'))));
    area.focus();
  }
}
