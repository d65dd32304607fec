// Talking to a character: hovering shows a label with who it is and what
// it does; a click (or a tap) opens a card with its state and for how
// long, what it is doing, the issues it touched, and a way to its
// session: "Open in Agents", or, for a session desk launched itself, its
// terminal right here (the browser terminal of terminal/terminal.js, on
// the session's WebSocket), and the answer to a permission it asks for.

import { h, replaceChildren } from '../dom.js';
import { toastError } from '../toast.js';
import { stateLabel, stateClass, durationSince, doingSince, shortFolder, activityText } from '../agents/agent-model.js';
import { sessionLabel } from './model.js';
import { sendInput } from './office-api.js';
import { managedSessions } from '../agents/managed-sessions.js';

export class OfficeCard {
  /**
   * @param {HTMLElement} stage the box the canvas fills
   * @param {{issueHref: (key: string, session: object) => string|null, closed: () => void}} hooks
   */
  constructor(stage, hooks) {
    this.stage = stage;
    this.hooks = hooks;
    this.label = h('div', { class: 'office-label', role: 'tooltip', id: 'office-label', hidden: true });
    this.card = h('section', { class: 'office-card', role: 'dialog', 'aria-modal': 'false', hidden: true, tabindex: '-1' });
    this.card.addEventListener('keydown', (e) => {
      // Esc typed into the terminal is the program's (a Claude prompt's "no").
      if (e.key === 'Escape' && !this.term.contains(e.target)) {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
    // What the card says is drawn again as the session changes; the
    // terminal under it is left alone, so what the owner types stays.
    this.info = h('div', { class: 'office-card-info' });
    this.term = h('div', { class: 'office-terminal', hidden: true });
    this.card.append(this.info, this.term);
    stage.append(this.label, this.card);
    this.session = null;
    this.terminal = false;
    /** @type {import('../terminal/terminal.js').TerminalPane|null} */
    this.pane = null;
  }

  /** The hover label over a character at (x, y), CSS pixels in the stage. */
  showLabel(session, x, y) {
    const text = sessionLabel(session);
    if (this.label.textContent !== text) this.label.textContent = text;
    this.label.hidden = false;
    this.place(this.label, x, y - 6, true);
  }

  hideLabel() {
    if (!this.label.hidden) this.label.hidden = true;
  }

  get openId() {
    return this.card.hidden ? null : this.session?.id || null;
  }

  /** Opens the card of a session beside its character. */
  open(session, x, y) {
    const other = this.session?.id !== session.id;
    this.session = session;
    if (other) this.setTerminal(false);
    this.render();
    this.card.hidden = false;
    this.card.setAttribute('aria-label', `${session.client || 'agent'} session`);
    this.place(this.card, x, y + 8, false);
    this.card.focus({ preventScroll: true });
  }

  /** The session changed (or went): the open card follows. */
  update(session) {
    if (this.card.hidden) return;
    if (!session) {
      this.close();
      return;
    }
    this.session = session;
    this.render();
  }

  close() {
    if (this.card.hidden) return;
    this.card.hidden = true;
    this.setTerminal(false);
    this.session = null;
    this.hooks.closed();
  }

  place(el, x, y, above) {
    const sw = this.stage.clientWidth;
    const sh = this.stage.clientHeight;
    const w = el.offsetWidth;
    const hgt = el.offsetHeight;
    let left = Math.round(x - w / 2);
    let top = Math.round(above ? y - hgt : y);
    left = Math.max(4, Math.min(sw - w - 4, left));
    top = Math.max(4, Math.min(sh - hgt - 4, top));
    el.style.left = `${left}px`;
    el.style.top = `${top}px`;
  }

  render() {
    const s = this.session;
    const managed = s.managed === true && typeof s.session === 'string' && s.session !== '';
    const state = s.state || 'unknown';
    const doing = activityText(s);
    const where = [s.project, shortFolder(s.cwd)].filter(Boolean).join(' · ');
    const issues = (s.issues || []).map((key) => {
      const href = this.hooks.issueHref(key, s);
      return href ? h('a', { href }, key) : h('span', {}, key);
    });
    const actions = [];
    if (managed) {
      actions.push(h('button', { type: 'button', class: 'button', 'aria-expanded': String(this.terminal), onclick: () => this.setTerminal(!this.terminal) }, this.terminal ? 'Hide terminal' : 'Open terminal'));
      if (state === 'needs_permission') {
        actions.push(h('button', { type: 'button', class: 'button primary', onclick: () => this.answer(['enter'], 'Allowed') }, 'Allow'));
        actions.push(h('button', { type: 'button', class: 'button', onclick: () => this.answer(['esc'], 'Denied') }, 'Deny'));
      }
    } else {
      actions.push(h('a', { class: 'button', href: `#/~agents/${encodeURIComponent(s.id)}` }, 'Open in Agents'));
    }
    replaceChildren(
      this.info,
      h(
        'header',
        { class: `office-card-head ${stateClass(state)}` },
        h('span', { class: 'agent-dot', 'aria-hidden': 'true' }),
        h('strong', {}, s.name || s.client || 'agent'),
        s.name ? h('span', { class: 'office-card-client' }, s.client || '') : null,
        h('button', { type: 'button', class: 'icon-button office-card-close', 'aria-label': 'Close', onclick: () => this.close() }, '×'),
      ),
      h('p', { class: `office-card-state ${stateClass(state)}` }, h('strong', {}, stateLabel(state)), ' for ', h('span', { class: 'agent-since', dataset: { since: doingSince(s) } }, durationSince(doingSince(s)))),
      doing ? h('p', { class: 'office-card-doing' }, doing) : null,
      where ? h('p', { class: 'office-card-where' }, where) : null,
      issues.length ? h('p', { class: 'office-card-issues' }, 'Touched ', issues.flatMap((a, i) => (i ? [', ', a] : [a]))) : null,
      h('div', { class: 'office-card-actions' }, actions),
    );
    if (!managed && this.terminal) this.setTerminal(false);
  }

  setTerminal(on) {
    const was = this.terminal;
    this.terminal = on;
    this.pane?.dispose();
    this.pane = null;
    if (!on) {
      this.term.hidden = true;
      this.term.replaceChildren();
      if (was && this.session) this.render();
      return;
    }
    this.term.hidden = false;
    this.render();
    this.openPane(this.session);
  }

  /** Opens the session's terminal under the card: live, or read-only where typing is off. */
  async openPane(s) {
    const managed = managedSessions();
    const [{ TerminalPane }] = await Promise.all([import('../terminal/terminal.js'), managed.start()]);
    if (!this.terminal || this.session?.id !== s.id || this.pane) return;
    const why = managed.launchOff;
    this.pane = new TerminalPane(this.term, {
      id: s.session,
      token: managed.token,
      mode: managed.readOnly ? 'watch' : 'live',
      why: why || '',
      keyBar: true,
    });
    this.pane.focus();
  }

  async answer(keys, what) {
    const s = this.session;
    try {
      await sendInput(s.session, { keys });
      this.card.querySelector('.office-card-actions')?.append(h('span', { class: 'office-card-sent', role: 'status' }, `${what}.`));
    } catch (err) {
      toastError(err, 'Could not answer the permission');
    }
  }
}
