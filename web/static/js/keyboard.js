// The desk's keys. One table maps a key to an action of the app; keys typed
// into a field, or while a dialog is open, belong to that field or dialog.

import { dialogOpen, isTyping } from './dom.js';
import { STATUSES } from './enums.js';

/**
 * @param {import('./app.js').DeskApp} app
 * @returns {Record<string, () => void>}
 */
export function keyMap(app) {
  const map = {
    j: () => app.moveCursor(1),
    ArrowDown: () => app.moveCursor(1),
    k: () => app.moveCursor(-1),
    ArrowUp: () => app.moveCursor(-1),
    Enter: () => app.openCursor(),
    o: () => app.openCursor(),
    Escape: () => app.escape(),
    p: () => app.verdictKey('passed'),
    f: () => app.verdictKey('failed'),
    c: () => app.commentKey(),
    s: () => app.sendFirstCommand(),
    y: () => app.copyFirstCommand(),
    e: () => app.editDescription(),
    x: () => app.toggleSelectCursor(),
    m: () => app.mergeSelection(),
    b: () => app.toggleBacklog(),
    h: () => app.openHandoff(),
    a: () => app.toggleAgents(),
    n: () => app.newIssue(),
    q: () => app.focusQuickAdd(),
    '/': () => app.focusSearch(),
    0: () => app.showAllStatuses(),
    r: () => app.refresh(),
    t: () => app.cycleTheme(),
    '?': () => app.showHelp(),
  };
  STATUSES.forEach((status, i) => {
    map[String(i + 1)] = () => app.showOnlyStatus(status);
  });
  return map;
}

// Keys that work the same in the Agents view.
const SHARED_KEYS = ['h', 'a', 'n', 'q', '/', 'r', 't', '?'];

/**
 * The keys of the Agents view: moving and Esc work on its sessions, and
 * the keys that act on the list or the open issue, which it hides, do
 * nothing there.
 * @param {import('./app.js').DeskApp} app
 * @returns {Record<string, () => void>}
 */
export function agentKeyMap(app) {
  const all = keyMap(app);
  const map = Object.fromEntries(SHARED_KEYS.map((k) => [k, all[k]]));
  return Object.assign(map, {
    j: () => app.agentsView?.move(1),
    ArrowDown: () => app.agentsView?.move(1),
    k: () => app.agentsView?.move(-1),
    ArrowUp: () => app.agentsView?.move(-1),
    Escape: () => app.agentsView?.escape(),
  });
}

/**
 * The keys of the Office view: the shared ones, and Esc for its card (the
 * office's own keys, on its canvas, come first).
 * @param {import('./app.js').DeskApp} app
 */
export function officeKeyMap(app) {
  const all = keyMap(app);
  const map = Object.fromEntries(SHARED_KEYS.map((k) => [k, all[k]]));
  return Object.assign(map, { Escape: () => app.officeView?.escape() });
}

/**
 * The keys of the Code view: the shared ones only (the list and the open
 * issue, which it hides, take no keys there).
 * @param {import('./app.js').DeskApp} app
 */
export function codeKeyMap(app) {
  const all = keyMap(app);
  return Object.fromEntries(SHARED_KEYS.map((k) => [k, all[k]]));
}

export function installKeyboard(app) {
  const list = keyMap(app);
  const agents = agentKeyMap(app);
  const office = officeKeyMap(app);
  const code = codeKeyMap(app);
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (isTyping(e.target) || dialogOpen()) return;
    // Enter on a button or link does what the button or link says.
    if (e.key === 'Enter' && e.target instanceof Element && e.target.closest('button, a, [role="button"], summary, .splitter')) return;
    const action = (app.route.office ? office : app.route.agents ? agents : app.route.code ? code : list)[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  });
}
