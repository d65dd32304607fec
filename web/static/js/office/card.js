// Talking to a character: hovering shows a label with who it is and what
// it does; a click (or a tap) opens a card with its state and for how
// long, what it is doing, the issues it touched, and a way to its
// session: "Open in Agents", or, for a session desk launched itself, its
// terminal right here, and the answer to a permission it asks for.

import { h, replaceChildren } from '../dom.js';
import { toastError } from '../toast.js';
import { stateLabel, stateClass, durationSince, doingSince, shortFolder, activityText } from '../agents/agent-model.js';
import { sessionLabel } from './model.js';
import { loadScreen, sendInput } from './office-api.js';

// How often an open terminal's screen is read again.
const SCREEN_POLL_MS = 1000;

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
      if (e.key === 'Escape') {
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
    this.screenTimer = 0;
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

  terminalPanel(s) {
    this.screen = h('pre', { class: 'office-screen', 'aria-label': 'Terminal screen', tabindex: '0' }, 'Reading the screen…');
    const input = h('input', { type: 'text', class: 'office-type', 'aria-label': 'Type into the terminal', autocomplete: 'off', spellcheck: 'false' });
    const form = h(
      'form',
      {
        class: 'office-term-form',
        onsubmit: (e) => {
          e.preventDefault();
          const text = input.value;
          input.value = '';
          this.type(s, text);
        },
      },
      input,
      h('button', { type: 'submit', class: 'button' }, 'Send'),
      h('button', { type: 'button', class: 'button', onclick: () => this.keys(s, ['esc']) }, 'Esc'),
      h('button', { type: 'button', class: 'button', onclick: () => this.keys(s, ['ctrl-c']) }, 'Ctrl-C'),
    );
    return [this.screen, form];
  }

  setTerminal(on) {
    const was = this.terminal;
    this.terminal = on;
    clearTimeout(this.screenTimer);
    this.screenTimer = 0;
    if (!on) {
      this.screen = null;
      this.term.hidden = true;
      this.term.replaceChildren();
      if (was && this.session) this.render();
      return;
    }
    replaceChildren(this.term, this.terminalPanel(this.session));
    this.term.hidden = false;
    this.render();
    this.readScreen();
    this.term.querySelector('input')?.focus();
  }

  async readScreen() {
    const s = this.session;
    if (!this.terminal || !s) return;
    try {
      const screen = await loadScreen(s.session);
      if (this.terminal && this.screen && this.session?.id === s.id) this.screen.textContent = (screen.lines || []).join('\n');
    } catch (err) {
      if (this.screen) this.screen.textContent = err.message;
    }
    if (this.terminal) this.screenTimer = setTimeout(() => this.readScreen(), SCREEN_POLL_MS);
  }

  async type(s, text) {
    try {
      if (text) await sendInput(s.session, { text });
      await sendInput(s.session, { keys: ['enter'] });
      this.readScreen();
    } catch (err) {
      toastError(err, 'Could not type into the terminal');
    }
  }

  async keys(s, keys) {
    try {
      await sendInput(s.session, { keys });
      this.readScreen();
    } catch (err) {
      toastError(err, 'Could not send the key');
    }
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
