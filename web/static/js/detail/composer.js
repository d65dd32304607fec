// The composer under an open issue: Passed, Still broken, Comment. Pasted
// or dropped screenshots wait here as thumbnails and go with the next
// answer. One composer lives per issue, so a live refresh of the issue
// never loses what the owner is typing.

import { h, icon, replaceChildren } from '../dom.js';
import { formatBytes } from '../format.js';

export class Composer {
  /**
   * @param {string} issueId
   * @param {import('../app.js').DeskApp} app
   */
  constructor(issueId, app) {
    this.issueId = issueId;
    this.app = app;
    /** @type {File[]} */
    this.files = [];
    this.urls = new Map();
    this.busy = false;
    /** The verdict that Ctrl+Enter sends: after f, the owner says what is still broken. */
    this.armed = null;

    this.text = h('textarea', {
      rows: '3',
      class: 'composer-text',
      placeholder: 'Comment, or say what is still broken. Paste or drop screenshots anywhere in the issue.',
      'aria-label': 'Comment',
    });
    this.text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.send(this.armed);
      } else if (e.key === 'Escape') {
        e.stopPropagation();
        this.disarm();
        this.text.blur();
        app.focusList();
      }
    });
    this.thumbs = h('ul', { class: 'composer-files', 'aria-label': 'Files to send' });
    this.hint = h('p', { class: 'composer-hint', 'aria-live': 'polite' });
    this.passed = h('button', { type: 'button', class: 'button ok', title: 'Passed (p)', onclick: () => this.send('passed') }, icon('check'), 'Passed');
    this.failed = h('button', { type: 'button', class: 'button danger', title: 'Still broken (f)', onclick: () => this.send('failed') }, icon('cross'), 'Still broken');
    this.comment = h('button', { type: 'button', class: 'button', title: 'Comment (c, then Ctrl+Enter)', onclick: () => this.send(null) }, icon('comment'), 'Comment');
    this.el = h(
      'section',
      { class: 'composer', 'aria-label': 'Answer' },
      this.text,
      this.thumbs,
      h('div', { class: 'composer-actions' }, this.passed, this.failed, h('span', { class: 'spacer' }), this.hint, this.comment),
    );
  }

  addFiles(files) {
    for (const f of files) {
      this.files.push(f);
      if (f.type.startsWith('image/')) this.urls.set(f, URL.createObjectURL(f));
    }
    this.drawFiles();
  }

  drawFiles() {
    replaceChildren(this.thumbs, this.files.map((f, i) => h('li', { class: 'composer-file' },
      this.urls.has(f) ? h('img', { src: this.urls.get(f), alt: f.name }) : h('span', { class: 'file' }, icon('clip'), f.name),
      h('span', { class: 'muted' }, formatBytes(f.size)),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove ${f.name || 'the screenshot'}`, onclick: () => this.removeFile(i) }, icon('close')))));
  }

  removeFile(i) {
    const [f] = this.files.splice(i, 1);
    if (this.urls.has(f)) URL.revokeObjectURL(this.urls.get(f));
    this.urls.delete(f);
    this.drawFiles();
  }

  /** Focuses the text; with a verdict, Ctrl+Enter will send that verdict. */
  focus(verdict = null) {
    this.armed = verdict;
    this.el.classList.toggle('armed-failed', verdict === 'failed');
    this.hint.textContent = verdict === 'failed' ? 'Say what is still broken, then Ctrl+Enter' : '';
    this.text.focus();
  }

  disarm() {
    this.armed = null;
    this.el.classList.remove('armed-failed');
    this.hint.textContent = '';
  }

  get empty() {
    return !this.text.value.trim() && this.files.length === 0;
  }

  /** Sends the comment with a verdict (passed, failed) or none. */
  async send(verdict) {
    if (this.busy) return false;
    if (!verdict && this.empty) {
      this.focus(null);
      this.hint.textContent = 'Write something or add a screenshot first.';
      return false;
    }
    this.busy = true;
    this.el.classList.add('busy');
    for (const b of [this.passed, this.failed, this.comment]) b.disabled = true;
    try {
      const ok = await this.app.answer(this.issueId, { text: this.text.value.trim(), verdict, files: [...this.files] });
      if (ok) this.reset();
      return ok;
    } finally {
      this.busy = false;
      this.el.classList.remove('busy');
      for (const b of [this.passed, this.failed, this.comment]) b.disabled = false;
    }
  }

  reset() {
    this.text.value = '';
    for (const url of this.urls.values()) URL.revokeObjectURL(url);
    this.urls.clear();
    this.files = [];
    this.drawFiles();
    this.disarm();
  }
}
