// The Agents view (#/~agents): every agent session on this machine with its
// client, project, folder, state, what it is doing and for how long; the
// ones that need their owner on top, in their colour; sub-agents under
// their session; ended sessions folded away after a while. A session opens
// beside the list (#/~agents/<id>) with its latest events.
//
// The sessions come from the page's live list (app.agents, see
// agent-sessions.js); only the open session's events are read here. The
// sessions desk launched itself, with "+ Agent" and their terminals, are
// managed-view.js's (#/~agents/<s-id> opens one).

import { h, replaceChildren, select, icon } from '../dom.js';
import { getJSON, paths, isAbort, Latest } from '../api.js';
import { formatRoute } from '../router.js';
import { prefs } from '../prefs.js';
import { toast } from '../toast.js';
import { Throttle } from '../throttle.js';
import { formatDateTime, formatClock, timeAgo, plural } from '../format.js';
import {
  STATES, ATTENTION, NO_PROJECT, stateLabel, stateClass, isDim, shortId, shortFolder, doingSince, durationSince,
  sessionTree, foldEnded, filterSessions, filterChoices, cleanAgentFilters, defaultAgentFilters, summaryText, eventLine, activityText,
} from './agent-model.js';
import { managedSessions } from './managed-sessions.js';
import { LaunchControl, ManagedList, ManagedPane } from './managed-view.js';
import { isSessionId } from '../terminal/terminal-model.js';

export class AgentsView {
  /**
   * @param {HTMLElement} el the pane
   * @param {import('../app.js').DeskApp} app
   */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.filters = cleanAgentFilters(prefs.agentFilters());
    this.showFolded = false;
    this.visible = false;
    /** The session open beside the list, its detail with events, and why it could not load. */
    this.openId = null;
    this.session = null;
    this.sessionError = null;
    this.sessionVersion = 0;
    this.sessionStamp = '';
    this.sessionReq = new Latest();
    this.sessionRefresh = new Throttle(() => this.loadSession());
    this.filtersSignature = '';
    /** @type {Map<string, SessionRow>} the rows on screen by session id, kept between redraws */
    this.rows = new Map();
    this.list = null;
    this.built = false;
    /** The sessions desk launched, shared with the office. */
    this.managed = managedSessions();
    this.managed.subscribe(() => this.update());
  }

  /** Shows the view, with the session `id` open (or none). */
  show(id = null) {
    this.visible = true;
    if (!this.built) this.build();
    if (id !== this.openId) {
      this.openId = id;
      this.session = null;
      this.sessionError = null;
      this.sessionReq.cancel();
      if (id && !isSessionId(id)) this.sessionRefresh.run();
    }
    this.render();
  }

  hide() {
    if (!this.visible) return;
    this.visible = false;
    this.openId = null;
    this.session = null;
    this.sessionReq.cancel();
    this.sessionRefresh.cancel();
    this.managedPane?.hide();
    this.launch?.close();
  }

  /** Live session rows: a launched session started, changed or ended. */
  sessionsChanged() {
    this.managed.changed();
  }

  /** The page's sessions changed: redraw. */
  update() {
    if (this.visible) this.render();
  }

  /** Live agent rows: the open session's events are read again when it changed. */
  changed(rows) {
    if (!this.visible || !this.openId || isSessionId(this.openId)) return;
    if (rows.some((r) => r.actor === this.openId)) this.sessionRefresh.request();
  }

  /** Reads the open session's events again (r; the list is the app's to read). */
  refreshSession() {
    if (this.openId && !isSessionId(this.openId)) this.sessionRefresh.request();
  }

  // ---- The frame: heading, filters, alerts, list and session -------------

  build() {
    this.built = true;
    this.summary = h('p', { class: 'agents-summary' });
    this.filtersBox = h('div', { class: 'agents-filters', role: 'group', 'aria-label': 'Filter the sessions' });
    this.alertsBox = this.alertToggles();
    this.listBox = h('section', { class: 'agents-list-box', 'aria-label': 'Sessions' });
    this.sessionBox = h('section', { class: 'card-box agent-session', 'aria-label': 'Session' });
    this.launch = new LaunchControl(this.managed, (id) => this.app.navigate({ agents: true, agent: id }));
    this.managedList = new ManagedList(this);
    this.managedPane = new ManagedPane(this.sessionBox, this, this.managed);
    this.column = h('div', { class: 'agents-column' }, this.managedList.el, this.listBox);
    this.body = h('div', { class: 'agents-body' }, this.column, this.sessionBox);
    replaceChildren(this.el, h('div', { class: 'agents-view' },
      h('header', { class: 'agents-head' },
        h('div', { class: 'agents-title' }, h('h1', null, 'Agents'), this.summary),
        this.launch.el,
        this.filtersBox,
        this.alertsBox),
      this.body));
  }

  alertToggles() {
    const alerts = this.app.agents?.alerts;
    const sound = h('input', { type: 'checkbox', name: 'agent-sound', checked: Boolean(alerts?.sound) });
    sound.addEventListener('change', () => alerts?.setSound(sound.checked));
    const notify = h('input', { type: 'checkbox', name: 'agent-notify', checked: Boolean(alerts?.notify) });
    notify.addEventListener('change', async () => {
      if (!alerts) return;
      notify.disabled = true;
      const result = await alerts.setNotify(notify.checked);
      notify.disabled = false;
      notify.checked = result.on;
      if (result.message) toast(result.message, { error: true });
    });
    return h('fieldset', { class: 'agents-alerts' },
      h('legend', null, 'When an agent needs you'),
      h('label', { class: 'toggle', title: 'A short chime when a session asks for permission or waits for input' }, sound, 'Sound'),
      h('label', { class: 'toggle', title: 'A desktop notification when a session asks for permission or waits for input; the browser asks you to allow it' }, notify, 'Desktop notification'));
  }

  render() {
    const focus = this.focusKey();
    const feed = this.app.agents;
    this.body.classList.toggle('has-session', Boolean(this.openId));
    this.body.classList.toggle('has-terminal', isSessionId(this.openId));
    if (this.managed.served === null) this.managed.start();
    this.launch.update();
    this.managedList.render(this.managed, this.openId);
    if (!feed?.loaded) {
      this.summary.textContent = 'Loading…';
      this.showListMessage(h('p', { class: 'muted agents-loading', 'aria-busy': 'true' }, 'Loading the sessions…'));
    } else {
      const all = feed.sessions;
      const shown = filterSessions(all, this.filters);
      this.summary.textContent = summaryText(all) + (shown.length < all.length ? ` · ${shown.length} shown` : '');
      this.renderFilters(all);
      this.renderList(all, shown);
    }
    this.renderSession();
    this.restoreFocus(focus);
  }

  renderFilters(sessions) {
    const f = this.filters;
    const choices = filterChoices(sessions, f);
    const signature = JSON.stringify([choices, f, this.app.projects.map((p) => p.name)]);
    // Rebuilding a select closes it under the owner's hand: only when its choices change.
    if (signature === this.filtersSignature) return;
    this.filtersSignature = signature;
    const set = (key) => (e) => {
      this.filters[key] = e.target.value;
      prefs.setAgentFilters(this.filters);
      this.render();
    };
    replaceChildren(this.filtersBox,
      select({ 'aria-label': 'Project', onchange: set('project') },
        [['', 'All projects'], ...choices.projects.map((p) => [p, this.projectName(p)]), ...(choices.unlinked || f.project === NO_PROJECT ? [[NO_PROJECT, 'No project']] : [])], f.project),
      select({ 'aria-label': 'State', onchange: set('state') },
        [['', 'Every state'], [ATTENTION, 'Needs you'], ...STATES.map((s) => [s, stateLabel(s)])], f.state),
      select({ 'aria-label': 'Client', onchange: set('client') },
        [['', 'Every client'], ...choices.clients], f.client));
  }

  renderList(all, shown) {
    if (!all.length) {
      this.showListMessage(h('div', { class: 'empty-state agents-empty' },
        h('h2', null, 'No agent sessions yet'),
        h('p', null, 'Agent CLIs report here through their lifecycle hooks, which ', h('code', null, 'desk install'), ' sets up.'),
        h('p', null, h('code', null, 'desk doctor'), ' tells, per agent CLI, whether its hooks fire.')));
      return;
    }
    if (!shown.length) {
      this.showListMessage(h('div', { class: 'empty-state agents-empty' },
        h('p', null, 'No session matches these filters.'),
        h('button', { type: 'button', class: 'button', 'data-focus-key': 'show-all', onclick: () => this.resetFilters() }, 'Show every session')));
      return;
    }
    if (!this.list) {
      this.list = h('ul', { class: 'agent-list', 'aria-label': 'Agent sessions, the ones that need you first' });
      this.foldToggle = h('button', {
        type: 'button',
        class: 'link-button agents-fold',
        'data-focus-key': 'fold',
        onclick: () => {
          this.showFolded = !this.showFolded;
          this.render();
        },
      });
      this.foldedList = h('ul', { class: 'agent-list folded', 'aria-label': 'Sessions that ended earlier' });
    }
    const { shown: families, folded } = foldEnded(sessionTree(shown));
    const used = new Set();
    placeInOrder(this.list, families.map((f) => this.familyRow(f, used)));
    placeInOrder(this.foldedList, this.showFolded ? folded.map((f) => this.familyRow(f, used)) : []);
    this.foldToggle.hidden = folded.length === 0;
    this.foldToggle.setAttribute('aria-expanded', String(this.showFolded));
    this.foldToggle.textContent = this.showFolded ? 'Hide the sessions that ended earlier' : `Show ${plural(folded.length, 'session')} that ended earlier`;
    this.foldedList.hidden = !this.showFolded || folded.length === 0;
    placeInOrder(this.listBox, [this.list, this.foldToggle, this.foldedList]);
    for (const id of this.rows.keys()) if (!used.has(id)) this.rows.delete(id);
  }

  showListMessage(node) {
    this.rows.clear();
    replaceChildren(this.listBox, node);
  }

  /** The row of a session with its sub-agents' rows under it. */
  familyRow({ session, children }, used) {
    const row = this.rowOf(session, used);
    row.showChildren(children.map((c) => this.rowOf(c, used).item));
    return row.item;
  }

  rowOf(session, used) {
    used.add(session.id);
    let row = this.rows.get(session.id);
    if (!row) {
      row = new SessionRow(this);
      this.rows.set(session.id, row);
    }
    row.update(session, session.id === this.openId);
    return row;
  }

  issueLinks(keys) {
    return keys.map((key, i) => {
      const slug = this.projectOfIssue(key);
      const node = slug ? h('a', { href: formatRoute({ project: slug, issue: key }), 'data-focus-key': `i:${key}` }, key) : key;
      return i ? [', ', node] : node;
    });
  }

  projectName(slug) {
    return this.app.projects.find((p) => p.slug === slug)?.name || slug;
  }

  /** The project of an issue key, by its prefix ("MG-3" is Ember Isles' when its prefix is MG). */
  projectOfIssue(key) {
    const prefix = String(key).split('-')[0].toUpperCase();
    return this.app.projects.find((p) => p.prefix?.toUpperCase() === prefix)?.slug || null;
  }

  resetFilters() {
    this.filters = defaultAgentFilters();
    prefs.setAgentFilters(null);
    this.render();
  }

  // ---- The open session ----------------------------------------------------

  async loadSession() {
    const id = this.openId;
    if (!id) return;
    const req = this.sessionReq.begin();
    try {
      const session = await getJSON(paths.agent(id), { signal: req.signal });
      if (!req.current() || this.openId !== id) return;
      this.session = session;
      this.sessionVersion++;
      this.sessionError = null;
    } catch (err) {
      if (isAbort(err) || !req.current() || this.openId !== id) return;
      this.sessionError = err.status === 404
        ? 'desk no longer knows this session: it was merged into the session that resumed it, or it is older than a week.'
        : err.message;
    }
    if (this.visible) this.render();
  }

  renderSession() {
    const id = this.openId;
    this.sessionBox.hidden = !id;
    if (isSessionId(id)) {
      this.sessionStamp = '';
      this.managedPane.show(id);
      return;
    }
    if (this.managedPane.id) this.managedPane.hide();
    if (!id) {
      this.sessionStamp = '';
      this.sessionBox.replaceChildren();
      return;
    }
    // The list is newer than the session's own read for everything but the events.
    const current = this.app.agents?.byId.get(id);
    // Other sessions change all the time; this one is drawn again only when it changed.
    const stamp = JSON.stringify([id, current, this.sessionVersion, this.sessionError, this.app.projects.length]);
    if (stamp === this.sessionStamp) return;
    this.sessionStamp = stamp;
    const s = current || this.session ? { ...this.session, ...current } : null;
    const close = h('a', { class: 'icon-button', href: formatRoute({ agents: true }), 'aria-label': 'Close the session (Esc)', title: 'Close (Esc)', 'data-focus-key': 'close' }, icon('close'));
    if (!s) {
      replaceChildren(this.sessionBox,
        h('header', { class: 'card-head agent-session-head' }, h('h2', null, `Session ${shortId(id)}`), h('span', { class: 'spacer' }), close),
        this.sessionError ? h('p', { class: 'notice' }, this.sessionError) : h('p', { class: 'muted', 'aria-busy': 'true' }, 'Loading…'));
      return;
    }
    this.sessionBox.setAttribute('aria-label', `Session ${s.client} ${shortId(s.id)}`);
    const since = doingSince(s);
    const now = h('p', { class: `agent-now ${stateClass(s.state)}` },
      h('span', { class: 'agent-dot', 'aria-hidden': 'true' }),
      h('span', null, h('strong', null, stateLabel(s.state)), activityText(s) ? `: ${activityText(s)}` : ''),
      since ? h('span', { class: 'agent-since', 'data-since': since, title: `Since ${formatDateTime(since)}` }, durationSince(since)) : null);
    const facts = [
      ['Project', s.project ? this.projectName(s.project) : 'None: its folder is not linked to a project'],
      ['Folder', s.cwd ? h('span', { class: 'mono' }, s.cwd) : null],
      ['Session', h('span', { class: 'mono' }, s.id)],
      ['Model', s.model || null],
      ['Permission mode', s.permission_mode || null],
      ['Started', s.started_at ? h('time', { datetime: s.started_at, title: formatDateTime(s.started_at) }, timeAgo(s.started_at)) : null],
      ['Last event', s.updated_at ? h('time', { datetime: s.updated_at, title: formatDateTime(s.updated_at) }, timeAgo(s.updated_at)) : null],
      ['Known from', `${s.source === 'transcript' ? 'its transcript' : s.source === 'mcp' ? 'its desk tool calls' : 'its hooks'}${s.inferred ? ' (the state is a guess)' : ''}`],
      ['Part of', s.parent ? h('a', { href: formatRoute({ agents: true, agent: s.parent }), 'data-focus-key': `p:${s.parent}` }, `session ${shortId(s.parent)}`) : null],
      ['Sub-agents', s.children?.length ? s.children.map((c, i) => [i ? ', ' : '', h('a', { href: formatRoute({ agents: true, agent: c }), 'data-focus-key': `c:${c}` }, shortId(c))]) : null],
      ['Issues', s.issues?.length ? this.issueLinks(s.issues) : null],
      ['Terminal', s.managed && s.session ? h('a', { href: formatRoute({ agents: true, agent: s.session }), 'data-focus-key': `t:${s.session}` }, 'Open its terminal') : null],
      ['Note', s.note || null],
    ].filter(([, value]) => value);
    replaceChildren(this.sessionBox,
      h('header', { class: 'card-head agent-session-head' },
        h('h2', null, `${s.client || 'agent'} · session ${shortId(s.id)}`),
        h('span', { class: 'spacer' }),
        close),
      now,
      h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
      this.timeline(this.session?.events));
  }

  timeline(events) {
    const box = h('section', { class: 'agent-timeline-box', 'aria-label': 'Timeline' }, h('h3', null, 'Timeline'));
    if (!events) {
      box.append(h('p', { class: 'muted', 'aria-busy': 'true' }, 'Loading the events…'));
      return box;
    }
    if (!events.length) {
      box.append(h('p', { class: 'muted' }, 'No events kept for this session.'));
      return box;
    }
    // Newest first: what the session did last is what the owner looks for.
    const items = [...events].reverse().map((e) => {
      const line = eventLine(e);
      return h('li', { class: `agent-event tone-${line.tone}` },
        h('time', { datetime: e.time, title: formatDateTime(e.time) }, formatClock(e.time)),
        h('span', { class: 'agent-event-text' }, line.text),
        e.name ? h('span', { class: 'agent-event-name', title: 'The client’s name for the event' }, e.name) : null,
        e.source && e.source !== 'hook' ? h('span', { class: 'badge' }, `from its ${e.source}`) : null,
        e.late ? h('span', { class: 'badge warn', title: 'It arrived after a newer event and did not change the state' }, 'late') : null);
    });
    box.append(h('ol', { class: 'agent-timeline', 'aria-label': 'Latest events, newest first' }, items));
    return box;
  }

  // ---- Keys and focus --------------------------------------------------------

  /** j and k: the focus moves through the sessions. */
  move(delta) {
    const links = [...this.listBox.querySelectorAll('a.agent-link')];
    if (!links.length) return;
    const at = links.indexOf(document.activeElement);
    const next = at < 0 ? (delta > 0 ? 0 : links.length - 1) : Math.max(0, Math.min(links.length - 1, at + delta));
    links[next].focus();
    links[next].scrollIntoView({ block: 'nearest' });
  }

  /** Esc: closes the open session; the focus goes back to it in the list. */
  escape() {
    if (this.launch?.isOpen) {
      this.launch.close();
      return true;
    }
    const id = this.openId;
    if (!id) return false;
    this.app.navigate({ agents: true });
    [...this.listBox.querySelectorAll('a.agent-link')].find((a) => a.dataset.session === id)?.focus();
    return true;
  }

  /** What has the focus inside the view, to give it back after a redraw. */
  focusKey() {
    const active = document.activeElement;
    return active && this.el.contains(active) ? active.closest('[data-focus-key]')?.dataset.focusKey || null : null;
  }

  restoreFocus(key) {
    if (!key) return;
    const active = document.activeElement;
    if (active && this.el.contains(active) && active.dataset?.focusKey === key) return;
    [...this.el.querySelectorAll('[data-focus-key]')].find((el) => el.dataset.focusKey === key)?.focus({ preventScroll: true });
  }
}

// The list redraws while agents work, several times a second. Rows are
// kept and changed in place, and moved only when the order changes, so a
// click or the focus on a row is never lost to a redraw.

/** Puts nodes in parent in this order, touching nothing when they are in it already. */
function placeInOrder(parent, nodes) {
  const current = parent.children;
  if (current.length === nodes.length && nodes.every((node, i) => current[i] === node)) return;
  parent.replaceChildren(...nodes);
}

/** One session in the list: its state, who, what it does and for how long, where, and its issues. */
class SessionRow {
  /** @param {AgentsView} view */
  constructor(view) {
    this.view = view;
    this.stamp = '';
    this.state = h('span', { class: 'agent-state' }, h('span', { class: 'agent-dot', 'aria-hidden': 'true' }), h('span'));
    this.client = h('strong');
    this.shortId = h('span', { class: 'agent-id' });
    this.activity = h('span', { class: 'agent-activity' });
    this.since = h('span', { class: 'agent-since' });
    this.project = h('span', { class: 'agent-project' });
    this.folder = h('span', { class: 'agent-folder' });
    this.link = h('a', { class: 'agent-link' },
      this.state,
      h('span', { class: 'agent-who' }, this.client, ' ', this.shortId),
      this.activity,
      this.since,
      h('span', { class: 'agent-where' }, this.project, this.folder));
    this.issues = h('p', { class: 'agent-issues', hidden: true });
    this.children = h('ul', { class: 'agent-children', hidden: true });
    this.item = h('li', { class: 'agent-item' }, this.link, this.issues, this.children);
  }

  update(s, open) {
    const view = this.view;
    const since = doingSince(s);
    const project = s.project ? view.projectName(s.project) : 'no project';
    const stamp = JSON.stringify([s.id, s.state, s.client, activityText(s), since, project, s.cwd, s.issues, open]);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.item.className = `agent-item ${stateClass(s.state)}${isDim(s.state) ? ' dim' : ''}${open ? ' open' : ''}`;
    this.item.dataset.session = s.id;
    this.link.href = formatRoute({ agents: true, agent: s.id });
    this.link.dataset.session = s.id;
    this.link.dataset.focusKey = `s:${s.id}`;
    if (open) this.link.setAttribute('aria-current', 'true');
    else this.link.removeAttribute('aria-current');
    this.state.lastChild.textContent = stateLabel(s.state);
    this.client.textContent = s.client || 'agent';
    this.shortId.textContent = shortId(s.id);
    this.shortId.title = s.id;
    this.activity.textContent = activityText(s);
    this.since.hidden = !since;
    this.since.dataset.since = since;
    this.since.title = since ? `Since ${formatDateTime(since)}` : '';
    this.since.textContent = durationSince(since);
    this.project.textContent = project;
    this.folder.hidden = !s.cwd;
    this.folder.textContent = shortFolder(s.cwd);
    this.folder.title = s.cwd || '';
    const issues = s.issues || [];
    this.issues.hidden = issues.length === 0;
    replaceChildren(this.issues, issues.length ? ['On ', view.issueLinks(issues)] : null);
    this.children.setAttribute('aria-label', `Sub-agents of ${s.client || 'agent'} ${shortId(s.id)}`);
  }

  showChildren(items) {
    this.children.hidden = items.length === 0;
    placeInOrder(this.children, items);
  }
}
