// The sessions desk launched, in the Agents view: "+ Agent" and its drawer
// (a folder, a kind found on this machine, a name, the permission bypass
// where the kind has approvals), the list of launched sessions with how
// each ended, and the open session (#/~agents/<s-id>): its process state
// and its agent's live state beside its terminal, with rename, stop and
// resume.

import { h, replaceChildren, icon } from '../dom.js';
import { formatRoute } from '../router.js';
import { toastError } from '../toast.js';
import { formatDateTime, timeAgo } from '../format.js';
import { stateLabel, stateClass, activityText, shortFolder } from './agent-model.js';
import { recordStateText, exitText } from '../terminal/terminal-model.js';

{
  const href = new URL('../../css/terminal.css', import.meta.url).pathname;
  if (![...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.getAttribute('href') === href)) {
    document.head.append(h('link', { rel: 'stylesheet', href }));
  }
}

// At most this many ended sessions are listed (the newest).
const ENDED_SHOWN = 12;

/** The terminal module, loaded with the first terminal. */
let terminalModule = null;
function loadTerminal() {
  terminalModule ||= import('../terminal/terminal.js');
  return terminalModule;
}

/** The live agent state of a managed session: its hooks' session in the page's list, else the record's. */
export function agentOf(app, rec) {
  return app.agents?.sessions.find((a) => a.session === rec.id) || rec.agent || null;
}

/** "+ Agent", why it is off, and the launch drawer. */
export class LaunchControl {
  /**
   * @param {import('./managed-sessions.js').ManagedSessions} managed
   * @param {(id: string) => void} opened called with the new session's id
   */
  constructor(managed, opened) {
    this.managed = managed;
    this.opened = opened;
    this.button = h('button', { type: 'button', class: 'button primary launch-button', 'aria-haspopup': 'dialog', onclick: () => this.open() },
      icon('plus'), h('span', null, 'Agent'));
    this.button.setAttribute('aria-label', '+ Agent: launch an agent in a terminal');
    this.reason = h('p', { class: 'launch-off', id: 'launch-off', role: 'note', hidden: true });
    this.el = h('div', { class: 'launch-box' }, this.button, this.reason);
    this.drawer = h('aside', { class: 'launch-drawer', role: 'dialog', 'aria-modal': 'false', 'aria-label': 'Launch an agent', hidden: true, tabindex: '-1' });
    this.drawer.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
    document.body.append(this.drawer);
  }

  update() {
    const off = this.managed.launchOff;
    const loading = this.managed.served === null || (!off && !this.managed.kinds);
    this.button.disabled = Boolean(off) || loading;
    this.reason.hidden = !off;
    if (off) {
      this.reason.textContent = off;
      this.button.setAttribute('aria-describedby', 'launch-off');
      this.button.title = off;
      if (!this.drawer.hidden) this.close();
    } else {
      this.button.removeAttribute('aria-describedby');
      this.button.title = 'Launch an agent CLI or a shell in a terminal desk keeps';
    }
  }

  get isOpen() {
    return !this.drawer.hidden;
  }

  open() {
    const kinds = this.managed.kinds;
    if (!kinds || this.managed.launchOff) return;
    replaceChildren(this.drawer, this.form(kinds));
    this.drawer.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this.drawer.querySelector('input:checked, input')?.focus();
  }

  close() {
    if (this.drawer.hidden) return;
    this.drawer.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    this.drawer.replaceChildren();
    this.button.focus();
  }

  form(kinds) {
    const folders = kinds.folders || [];
    const found = (kinds.kinds || []).filter((k) => k.found);
    const missing = (kinds.kinds || []).filter((k) => !k.found);
    const other = h('input', { type: 'text', name: 'cwd-other', class: 'launch-folder', placeholder: '/path/to/a/folder', 'aria-label': 'Another folder', autocomplete: 'off', spellcheck: 'false' });
    const folderChoices = folders.map((f, i) => h('label', { class: 'launch-choice' },
      h('input', { type: 'radio', name: 'cwd', value: f.path, checked: i === 0 }),
      h('span', { class: 'launch-folder' }, f.path),
      h('small', null, f.project ? `${f.project} · ${f.why}` : f.why)));
    const otherChoice = h('label', { class: 'launch-choice' },
      h('input', { type: 'radio', name: 'cwd', value: '', checked: folders.length === 0 }), other);
    other.addEventListener('focus', () => {
      otherChoice.querySelector('input').checked = true;
    });
    const kindChoices = found.map((k, i) => h('label', { class: 'launch-choice', dataset: { kind: k.kind } },
      h('input', { type: 'radio', name: 'kind', value: k.kind, checked: i === 0 }),
      h('span', null, k.title || k.kind),
      h('small', null, k.version || k.path)));
    const missingChoices = missing.map((k) => h('label', { class: 'launch-choice missing', dataset: { kind: k.kind }, title: k.problem },
      h('input', { type: 'radio', name: 'kind', value: k.kind, disabled: true }),
      h('span', null, k.title || k.kind),
      h('small', null, 'not found')));
    const name = h('input', { type: 'text', name: 'name', placeholder: 'optional', autocomplete: 'off', maxlength: '200' });
    const bypass = h('input', { type: 'checkbox', name: 'bypass' });
    const bypassBox = h('label', { class: 'toggle launch-bypass', title: 'Launch with the agent’s own permission bypass: it runs tools without asking' },
      bypass, 'Skip the agent’s permission prompts');
    const error = h('p', { class: 'launch-error', role: 'alert', hidden: true });
    const submit = h('button', { type: 'submit', class: 'button primary' }, 'Launch');
    const form = h('form', { class: 'launch-form' },
      h('header', { class: 'managed-head' }, h('h2', null, 'Launch an agent'), h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close (Esc)', onclick: () => this.close() }, icon('close'))),
      h('fieldset', null, h('legend', null, 'Folder'), folderChoices, otherChoice),
      h('fieldset', null, h('legend', null, 'Agent'),
        kindChoices.length ? kindChoices : h('p', { class: 'muted' }, 'No agent CLI was found on this machine.'), missingChoices),
      h('label', { class: 'launch-name' }, h('span', null, 'Name'), name),
      bypassBox,
      error,
      h('div', { class: 'dialog-actions' }, h('button', { type: 'button', class: 'button', onclick: () => this.close() }, 'Cancel'), submit));
    const kindOf = () => (kinds.kinds || []).find((k) => k.kind === form.elements.kind?.value);
    const showBypass = () => {
      const k = kindOf();
      // A kind with no approvals has nothing to bypass: the box is not offered.
      bypassBox.hidden = !k || !k.approvals;
      if (bypassBox.hidden) bypass.checked = false;
    };
    form.addEventListener('change', showBypass);
    showBypass();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const kind = form.elements.kind?.value;
      const picked = [...form.querySelectorAll('input[name=cwd]')].find((r) => r.checked);
      const cwd = picked?.value || other.value.trim();
      if (!kind || !cwd) {
        error.hidden = false;
        error.textContent = !kind ? 'Pick an agent.' : 'Pick a folder, or type one.';
        return;
      }
      const req = { kind, cwd };
      if (name.value.trim()) req.name = name.value.trim();
      if (bypass.checked && !bypassBox.hidden) req.bypass = true;
      submit.disabled = true;
      try {
        const rec = await this.managed.launch(req);
        this.close();
        this.opened(rec.id);
      } catch (err) {
        error.hidden = false;
        error.textContent = err.message;
      } finally {
        submit.disabled = false;
      }
    });
    return form;
  }
}

/** The list of launched sessions: running first, then the newest that ended, with how. */
export class ManagedList {
  /** @param {import('./agents-view.js').AgentsView} view */
  constructor(view) {
    this.view = view;
    this.list = h('ul', { class: 'managed-list', 'aria-label': 'Sessions desk launched' });
    this.el = h('section', { class: 'managed-box', 'aria-label': 'Terminals', hidden: true }, h('h2', null, 'Terminals'), this.list);
    this.stamp = '';
  }

  render(managed, openId) {
    const all = managed.list;
    const running = all.filter((s) => s.state === 'running');
    const ended = all.filter((s) => s.state !== 'running').slice(0, ENDED_SHOWN);
    const shown = [...running, ...ended];
    const agents = shown.map((s) => agentOf(this.view.app, s));
    const stamp = JSON.stringify([shown, agents.map((a) => a && [a.state, activityText(a)]), openId]);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.el.hidden = shown.length === 0;
    replaceChildren(this.list, shown.map((s, i) => {
      const a = agents[i];
      const state = a && s.state === 'running' ? `${stateLabel(a.state)}${activityText(a) ? `: ${activityText(a)}` : ''}` : recordStateText(s);
      return h('li', { class: `managed-item ${s.state}${s.id === openId ? ' open' : ''}`, dataset: { session: s.id } },
        h('a', { class: 'managed-link', href: formatRoute({ agents: true, agent: s.id }), 'data-focus-key': `m:${s.id}`, 'aria-current': s.id === openId ? 'true' : null },
          h('span', { class: 'managed-name' }, s.name || s.kind, ' ', h('span', { class: 'managed-kind' }, s.kind)),
          h('span', { class: `managed-state${a ? ` ${stateClass(a.state)}` : ''}` }, state),
          h('span', { class: 'managed-where', title: s.cwd }, [s.project, shortFolder(s.cwd)].filter(Boolean).join(' · '))));
    }));
  }
}

/** A launched session open in the view: what it is, its states, its actions and its terminal. */
export class ManagedPane {
  /**
   * @param {HTMLElement} box the session box of the view
   * @param {import('./agents-view.js').AgentsView} view
   * @param {import('./managed-sessions.js').ManagedSessions} managed
   */
  constructor(box, view, managed) {
    this.box = box;
    this.view = view;
    this.managed = managed;
    this.id = null;
    this.info = h('div', { class: 'managed-info' });
    this.termBox = h('div', { class: 'managed-terminal' });
    this.terminal = null;
    this.termKey = '';
    this.stamp = '';
    this.renaming = false;
  }

  /** Shows session id in the box (or nothing). */
  show(id) {
    if (id !== this.id) {
      this.closeTerminal();
      this.id = id;
      this.stamp = '';
      this.renaming = false;
    }
    if (!id) return;
    if (this.info.parentNode !== this.box || this.termBox.parentNode !== this.box) replaceChildren(this.box, this.info, this.termBox);
    this.render();
  }

  hide() {
    this.closeTerminal();
    this.id = null;
    this.stamp = '';
  }

  render() {
    const id = this.id;
    const m = this.managed;
    const rec = m.byId.get(id);
    const agent = rec ? agentOf(this.view.app, rec) : null;
    const stamp = JSON.stringify([id, rec, agent && [agent.state, activityText(agent), agent.since], m.loaded, m.readOnly, m.launchOff, this.renaming]);
    // What the owner types into the name field is not drawn over.
    const typing = this.info.querySelector('.managed-rename')?.contains(document.activeElement);
    if (stamp !== this.stamp && (!typing || this.force)) {
      this.force = false;
      this.stamp = stamp;
      this.renderInfo(rec, agent);
    }
    this.renderTerminal(rec);
  }

  renderInfo(rec, agent) {
    const id = this.id;
    const m = this.managed;
    const close = h('a', { class: 'icon-button', href: formatRoute({ agents: true }), 'aria-label': 'Close the session (Esc)', title: 'Close (Esc)', 'data-focus-key': 'close' }, icon('close'));
    if (!rec) {
      const why = !m.reachable ? m.launchOff || 'The terminals cannot be reached from this page.' : m.loaded ? `desk knows no session ${id}.` : 'Loading…';
      replaceChildren(this.info,
        h('header', { class: 'card-head managed-head' }, h('h2', null, `Session ${id}`), h('span', { class: 'spacer' }), close),
        h('p', { class: m.loaded ? 'notice' : 'muted' }, why));
      return;
    }
    this.box.setAttribute('aria-label', `Terminal of ${rec.name || rec.kind}`);
    const running = rec.state === 'running';
    const canAct = !m.readOnly && m.reachable;
    const title = this.renaming ? this.renameForm(rec) : h('h2', null, rec.name || rec.kind);
    const actions = [];
    if (!this.renaming) actions.push(h('button', { type: 'button', class: 'button', 'data-focus-key': 'rename', onclick: () => this.startRename() }, 'Rename'));
    if (running && canAct) actions.push(h('button', { type: 'button', class: 'button', 'data-focus-key': 'stop', onclick: () => this.stop(rec) }, 'Stop'));
    if (!running && rec.resume_id && canAct) actions.push(h('button', { type: 'button', class: 'button primary', 'data-focus-key': 'resume', onclick: () => this.resume(rec) }, 'Resume'));
    const live = agent
      ? h('p', { class: `agent-now ${stateClass(agent.state)}` },
        h('span', { class: 'agent-dot', 'aria-hidden': 'true' }),
        h('span', null, h('strong', null, stateLabel(agent.state)), activityText(agent) ? `: ${activityText(agent)}` : ''),
        agent.id ? h('a', { class: 'agent-since', href: formatRoute({ agents: true, agent: agent.id }) }, 'its events') : null)
      : null;
    const facts = [
      ['Process', running ? `Running (pid ${rec.pid})` : exitText(rec)],
      ['Folder', h('span', { class: 'mono' }, rec.cwd)],
      ['Project', rec.project || null],
      ['Command', rec.command?.length ? h('span', { class: 'mono' }, rec.command.join(' ')) : null],
      ['Started', rec.started_at ? h('time', { datetime: rec.started_at, title: formatDateTime(rec.started_at) }, timeAgo(rec.started_at)) : null],
      ['Ended', rec.ended_at ? h('time', { datetime: rec.ended_at, title: formatDateTime(rec.ended_at) }, timeAgo(rec.ended_at)) : null],
      ['Resume id', rec.resume_id ? h('span', { class: 'mono' }, rec.resume_id) : null],
      ['Session', h('span', { class: 'mono' }, rec.id)],
      ['Note', rec.note || null],
    ].filter(([, v]) => v);
    replaceChildren(this.info,
      h('header', { class: 'card-head managed-head' }, title, h('span', { class: 'managed-kind' }, rec.kind), h('span', { class: 'spacer' }), close),
      running ? null : h('p', { class: 'managed-exit', role: 'status' }, exitText(rec)),
      live,
      h('div', { class: 'managed-actions' }, actions),
      h('dl', { class: 'facts managed-facts' }, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
  }

  renameForm(rec) {
    const input = h('input', { type: 'text', name: 'session-name', value: rec.name || '', 'aria-label': 'Name', maxlength: '200', autocomplete: 'off', 'data-focus-key': 'rename-input' });
    const form = h('form', { class: 'managed-rename' }, input,
      h('button', { type: 'submit', class: 'button primary' }, 'Save'),
      h('button', { type: 'button', class: 'button', onclick: () => this.endRename() }, 'Cancel'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await this.managed.rename(rec.id, input.value.trim());
        this.endRename();
      } catch (err) {
        toastError(err, 'Could not rename the session');
      }
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.endRename();
      }
    });
    queueMicrotask(() => input.focus());
    return form;
  }

  startRename() {
    this.renaming = true;
    this.force = true;
    this.render();
  }

  endRename() {
    this.renaming = false;
    this.force = true;
    this.render();
    this.info.querySelector('[data-focus-key=rename]')?.focus();
  }

  async stop(rec) {
    try {
      await this.managed.stop(rec.id);
    } catch (err) {
      toastError(err, 'Could not stop the session');
    }
  }

  async resume(rec) {
    try {
      await this.managed.resume(rec.id);
    } catch (err) {
      toastError(err, 'Could not resume the session');
    }
  }

  /** The terminal follows the record: live while it runs, read-only under --no-terminal, the last screen once it ended. */
  renderTerminal(rec) {
    const m = this.managed;
    if (!rec || !m.reachable) {
      this.closeTerminal();
      return;
    }
    const mode = rec.state !== 'running' ? 'still' : m.readOnly ? 'watch' : 'live';
    const key = `${rec.id} ${mode} ${rec.generation}`;
    if (key === this.termKey) return;
    // A pane that saw the exit keeps its screen until the record says so too.
    if (this.terminal?.ended && mode === 'still' && this.termKey.startsWith(`${rec.id} live`)) {
      this.termKey = key;
      return;
    }
    this.closeTerminal();
    this.termKey = key;
    const id = rec.id;
    loadTerminal().then(({ TerminalPane }) => {
      if (this.termKey !== key || this.id !== id) return;
      this.terminal = new TerminalPane(this.termBox, {
        id,
        token: m.token,
        mode,
        why: mode === 'watch' ? `Read-only: ${m.kinds?.terminal?.reason || 'desk serve runs with --no-terminal'}.` : exitText(rec),
        onEnd: () => m.refresh.request(),
      });
      if (mode === 'live' && !this.view.launch?.isOpen) this.terminal.focus();
    }, (err) => toastError(err, 'Could not load the terminal'));
  }

  closeTerminal() {
    this.terminal?.dispose();
    this.terminal = null;
    this.termKey = '';
  }
}
