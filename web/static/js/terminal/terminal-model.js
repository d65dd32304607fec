// The rules of the browser terminal that need no browser: which token the
// page presents, the WebSocket's address, the control messages, which links
// may open, what the key bar's keys send, and how long to wait before
// reconnecting. terminal.js does the rest with xterm.js.

/** desk's own session ids: "s-" and eight base-32 characters (session/manager.go). */
const SESSION_ID = /^s-[a-z2-9]{8}$/;

/** True for the id of a session desk launched (not an agent CLI's own session id). */
export function isSessionId(id) {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/**
 * The token the page presents to the session routes: the terminal token of
 * its address (?token=..., the URL desk serve printed), which the data
 * folder keeps across restarts, so that an open tab (a phone's bookmark)
 * reconnects after desk serve restarted; else desk's page token, which is
 * new with every start; else ''.
 * @param {string} pageToken the page's meta token
 * @param {string} search location.search
 */
export function sessionToken(pageToken, search) {
  let fromAddress = '';
  try {
    fromAddress = new URLSearchParams(search || '').get('token') || '';
  } catch {
    fromAddress = '';
  }
  return fromAddress || pageToken || '';
}

/** Why "+ Agent" is off when the page has no token at all. */
export const NO_TOKEN_REASON =
  'This page has no token for the terminals: open the address desk serve printed (the one with ?token=), or reload the page desk serves.';

/**
 * Why "+ Agent" is off, from the answer of GET /api/session-kinds (or its
 * error), or null when launching is on.
 * @param {{terminal?: {enabled: boolean, reason: string|null}}|null} kinds
 * @param {{status?: number, message?: string}|null} error
 * @param {string} token
 */
export function launchOff(kinds, error, token) {
  if (!token) return NO_TOKEN_REASON;
  if (error) {
    if (error.status === 403) return `The server refused this page's token: ${error.message} Reload the page, or open the address desk serve printed.`;
    if (error.status === 503) return 'This desk serves no terminals.';
    return error.message || 'The terminals could not be reached.';
  }
  if (kinds && kinds.terminal && kinds.terminal.enabled === false) {
    return `Terminals are read-only here: ${kinds.terminal.reason || 'desk serve runs with --no-terminal'}.`;
  }
  return null;
}

/**
 * The WebSocket address of a session's terminal.
 * @param {{protocol: string, host: string}} loc the page's location
 * @param {string} id
 * @param {string} token
 * @param {{cols?: number, rows?: number}} size this viewer's size, when known
 */
export function terminalURL(loc, id, token, size = {}) {
  const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = new URLSearchParams();
  if (token) q.set('token', token);
  if (size.cols > 0 && size.rows > 0) {
    q.set('cols', String(size.cols));
    q.set('rows', String(size.rows));
  }
  return `${scheme}//${loc.host}/api/sessions/${encodeURIComponent(id)}/terminal?${q}`;
}

/** Reads a text frame of the terminal WebSocket; null for one that is not a control message. */
export function parseControl(text) {
  try {
    const m = JSON.parse(text);
    return m && typeof m.type === 'string' ? m : null;
  } catch {
    return null;
  }
}

/** The text frame that asks for a size. */
export function resizeMessage(cols, rows) {
  return JSON.stringify({ type: 'resize', cols, rows });
}

/**
 * How a session ended, in words: from an exit message or a record
 * ({code|exit_code, reason|exit_reason, signal}).
 */
export function exitText(m) {
  const code = m.code !== undefined ? m.code : m.exit_code;
  const reason = m.reason ?? m.exit_reason ?? '';
  let text = code === null || code === undefined ? 'Ended' : `Exited with code ${code}`;
  if (m.signal) text += ` (${m.signal})`;
  if (reason === 'stopped') text += ', stopped';
  else if (reason && reason !== 'exited') text += `: ${reason}`;
  return text;
}

/**
 * The address a terminal link may open, or null: only http and https, as
 * the browser reads the text (so "JavaScript:" or "  javascript:" are no
 * way around it).
 */
export function safeLink(text) {
  let url;
  try {
    url = new URL(String(text));
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** The key bar, in order: label, key name, and what the key is for people. */
export const KEY_BAR = Object.freeze([
  ['Esc', 'esc', 'Escape'],
  ['Tab', 'tab', 'Tab'],
  ['←', 'left', 'Left arrow'],
  ['↑', 'up', 'Up arrow'],
  ['↓', 'down', 'Down arrow'],
  ['→', 'right', 'Right arrow'],
  ['Ctrl-C', 'ctrl-c', 'Control-C: interrupt'],
]);

const ARROWS = { up: 'A', down: 'B', right: 'C', left: 'D' };

/**
 * The bytes a key of the key bar sends, as the terminal's own keyboard
 * would: arrows as ESC O x in the application cursor mode a full-screen
 * program sets, ESC [ x otherwise.
 * @param {string} key a name of KEY_BAR
 * @param {boolean} appCursor the program asked for application cursor keys
 */
export function keyBytes(key, appCursor = false) {
  if (key === 'esc') return '\x1b';
  if (key === 'tab') return '\t';
  if (key === 'ctrl-c') return '\x03';
  if (ARROWS[key]) return (appCursor ? '\x1bO' : '\x1b[') + ARROWS[key];
  throw new Error(`no such key: ${key}`);
}

/** The wait before the nth reconnection (0, 1, ...): quick at first, then every few seconds. */
export function reconnectDelay(attempt) {
  const steps = [100, 250, 500, 1000, 2000];
  return attempt < steps.length ? steps[attempt] : 4000;
}

/** The words of a session's process state in a list: running, or how it ended. */
export function recordStateText(rec) {
  if (rec.state === 'running') return 'Running';
  return exitText(rec);
}
