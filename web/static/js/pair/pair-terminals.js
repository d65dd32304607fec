// The members' terminals beside a pair's conversation, when desk runs the
// agents as managed sessions (desk pair up): each one's screen as text,
// read from GET /api/sessions/{id}/screen about once a second while the
// view is open and the page is visible. Read only: the owner types in a
// terminal of its own (desk attach, or the Sessions view).

import { h, replaceChildren } from '../dom.js';
import { getJSON, isAbort, pageToken } from '../api.js';

const REFRESH_MS = 1000;

/** The members that run in a managed session and have not left. */
export function seated(members) {
  return (members || []).filter((m) => m.session && !m.left);
}

export class PairTerminals {
  constructor() {
    this.el = h('section', { class: 'pair-terminals', 'aria-label': 'Terminals' });
    this.members = [];
    this.timer = 0;
    this.running = false;
    this.controller = null;
    this.screens = new Map(); // session → <pre>
  }

  /** Shows the terminals of these members and keeps them fresh; none hides the section. */
  show(members) {
    const list = seated(members);
    const key = list.map((m) => `${m.role}:${m.session}`).join(',');
    if (key !== this.key) {
      this.key = key;
      this.members = list;
      this.screens = new Map(list.map((m) => [m.session, this.screens.get(m.session) || h('pre', { class: 'pair-screen', dataset: { session: m.session } }, '…')]));
      replaceChildren(this.el, list.map((m) => h('figure', { class: 'pair-terminal', dataset: { role: m.role } },
        h('figcaption', null, h('span', { class: 'pair-role' }, m.role), h('code', { class: 'muted' }, ` ${m.session}`)),
        this.screens.get(m.session))));
    }
    this.el.hidden = list.length === 0;
    if (list.length && !this.running) this.refresh();
    if (!list.length) this.stop();
    return this.el;
  }

  stop() {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = 0;
    this.controller?.abort();
    this.controller = null;
  }

  async refresh() {
    this.running = true;
    this.timer = 0;
    if (document.visibilityState === 'visible') {
      this.controller = new AbortController();
      const signal = this.controller.signal;
      await Promise.all(this.members.map(async (m) => {
        const pre = this.screens.get(m.session);
        try {
          const t = await getJSON(`/api/sessions/${encodeURIComponent(m.session)}/screen`, { signal, headers: { 'X-Desk-Token': pageToken() } });
          const text = (t.lines || []).map((l) => l.trimEnd()).join('\n').replace(/\n+$/, '');
          if (pre.textContent !== text) pre.textContent = text;
          pre.classList.remove('unreadable');
        } catch (err) {
          if (isAbort(err)) return;
          pre.classList.add('unreadable');
          pre.textContent = `The terminal cannot be read: ${err.message}`;
        }
      }));
      if (signal.aborted) return;
    }
    if (this.running && this.members.length) this.timer = setTimeout(() => this.refresh(), REFRESH_MS);
    else this.running = false;
  }
}
