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

export function installKeyboard(app) {
  const map = keyMap(app);
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (isTyping(e.target) || dialogOpen()) return;
    // Enter on a button or link does what the button or link says.
    if (e.key === 'Enter' && e.target instanceof Element && e.target.closest('button, a, [role="button"], summary, .splitter')) return;
    const action = map[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  });
}
