// The browser terminal of a session desk launched: xterm.js on one
// WebSocket (GET /api/sessions/{id}/terminal). The server sends the replay
// snapshot first (a text {"type":"snapshot"}, then the binary frame that
// redraws the screen), then the live output as binary frames, and a text
// {"type":"exit"} at the end; what is typed goes back as binary frames, and
// this viewer's size as text {"type":"resize"}. A connection that drops
// without an exit is made again, and the snapshot that opens it redraws the
// screen whole. Where typing is off (desk serve --no-terminal) or the
// session has ended, the pane shows its screen read-only, read from
// GET /api/sessions/{id}/screen.

import { Terminal } from '../../vendor/xterm/xterm.mjs';
import { FitAddon } from '../../vendor/xterm-addon-fit/addon-fit.mjs';
import { WebLinksAddon } from '../../vendor/xterm-addon-web-links/addon-web-links.mjs';
import { h } from '../dom.js';
import { allowScriptStyles } from './csp-styles.js';
import {
  terminalURL, parseControl, resizeMessage, exitText, safeLink, KEY_BAR, keyBytes, reconnectDelay,
} from './terminal-model.js';

allowScriptStyles();
for (const file of ['../../vendor/xterm/xterm.css', '../../css/terminal.css']) {
  const href = new URL(file, import.meta.url).pathname;
  if (![...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.getAttribute('href') === href)) {
    document.head.append(h('link', { rel: 'stylesheet', href }));
  }
}

// The holder keeps this much history (session.DefaultScrollback); so does the viewer.
const SCROLLBACK = 5000;
// How often a read-only terminal reads the screen again.
const WATCH_MS = 1000;
// A burst of resizes of the page is sent once, this long after it ends.
const RESIZE_WAIT_MS = 80;

const THEME = {
  background: '#15171c',
  foreground: '#d9dee7',
  cursor: '#d9dee7',
  selectionBackground: '#3a4a66',
};

/** Opens a terminal link: http and https only, in a new tab with no opener. */
export function openLink(text) {
  const href = safeLink(text);
  if (!href) return false;
  window.open(href, '_blank', 'noopener,noreferrer');
  return true;
}

const encoder = new TextEncoder();

export class TerminalPane {
  /**
   * @param {HTMLElement} container where the pane goes
   * @param {{
   *   id: string,
   *   token: string,
   *   mode: 'live'|'watch'|'still',
   *   why?: string,
   *   keyBar?: boolean,
   *   onEnd?: (exit: object|null) => void,
   * }} options live: typing on the WebSocket; watch: read-only, the screen
   *   read again every second (why says why); still: the last screen of an
   *   ended session
   */
  constructor(container, options) {
    this.options = options;
    this.id = options.id;
    this.mode = options.mode;
    this.disposed = false;
    this.ws = null;
    this.attempt = 0;
    this.retryTimer = 0;
    this.watchTimer = 0;
    this.resizeTimer = 0;
    this.snapshotNext = false;
    this.ended = false;
    this.lastSent = '';
    this.lastScreen = '';
    this.status = h('p', { class: 'term-status', role: 'status' });
    this.screen = h('div', { class: 'term-screen' });
    this.keys = this.keyBar();
    this.el = h('div', { class: 'term-pane', dataset: { session: this.id } }, this.status, this.screen, this.keys);
    container.append(this.el);

    const readOnly = this.mode !== 'live';
    this.term = new Terminal({
      scrollback: SCROLLBACK,
      fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace',
      fontSize: 13,
      theme: THEME,
      disableStdin: readOnly,
      cursorBlink: !readOnly,
      allowProposedApi: false,
      // Links a program marks (OSC 8) come here whatever their scheme and
      // go through the same rule as the ones found in the text (openLink).
      linkHandler: { activate: (_e, uri) => openLink(uri), allowNonHttpProtocols: true },
    });
    this.fit = new FitAddon();
    this.term.loadAddon(this.fit);
    this.term.loadAddon(new WebLinksAddon((_e, uri) => openLink(uri)));
    this.term.attachCustomKeyEventHandler((e) => this.copyKey(e));
    this.term.onData((data) => this.send(encoder.encode(data)));
    this.term.onBinary((data) => this.send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
    this.term.open(this.screen);
    this.observer = new ResizeObserver(() => this.resized());
    this.observer.observe(this.screen);

    if (this.mode === 'live') this.connect();
    else this.readScreen();
  }

  // ---- The live connection ---------------------------------------------------

  connect() {
    if (this.disposed || this.ended) return;
    this.setState('connecting', this.attempt ? 'Reconnecting…' : 'Connecting…');
    const size = this.proposed() || {};
    const ws = new WebSocket(terminalURL(location, this.id, this.options.token, size));
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.lastSent = size.cols ? `${size.cols}x${size.rows}` : '';
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.setState('live', 'Live');
    };
    ws.onmessage = (e) => {
      if (ws !== this.ws) return;
      if (typeof e.data === 'string') this.control(parseControl(e.data));
      else this.output(new Uint8Array(e.data));
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      this.ws = null;
      if (!this.disposed && !this.ended) this.dropped();
    };
  }

  control(m) {
    if (!m) return;
    switch (m.type) {
      case 'size':
        if (m.cols > 0 && m.rows > 0 && (m.cols !== this.term.cols || m.rows !== this.term.rows)) this.term.resize(m.cols, m.rows);
        break;
      case 'snapshot':
        this.snapshotNext = true;
        break;
      case 'info':
        if (m.note) this.setState(this.state, m.note);
        break;
      case 'exit':
        this.end(m);
        break;
      default:
        break;
    }
  }

  output(bytes) {
    if (this.snapshotNext) {
      // The snapshot redraws the screen on a fresh terminal of its size.
      this.snapshotNext = false;
      this.term.reset();
    }
    this.term.write(bytes);
  }

  send(bytes) {
    if (this.mode !== 'live' || !this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    // Whoever types sets the size, as the most recent active viewer.
    this.sendSize(false);
    this.ws.send(bytes);
  }

  /** Sends this viewer's size when it differs from the terminal's (or from what was sent, when forced). */
  sendSize(force) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const d = this.proposed();
    if (!d) return;
    const key = `${d.cols}x${d.rows}`;
    const differs = d.cols !== this.term.cols || d.rows !== this.term.rows;
    if (!differs && !(force && key !== this.lastSent)) return;
    this.lastSent = key;
    this.ws.send(resizeMessage(d.cols, d.rows));
  }

  proposed() {
    const d = this.fit.proposeDimensions();
    return d && d.cols > 0 && d.rows > 0 && Number.isFinite(d.cols) && Number.isFinite(d.rows) ? { cols: d.cols, rows: d.rows } : null;
  }

  resized() {
    clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      if (this.mode === 'live') this.sendSize(true);
    }, RESIZE_WAIT_MS);
  }

  /** The connection dropped without an exit: the session's record says whether to come back. */
  async dropped() {
    this.setState('reconnecting', 'Connection lost; reconnecting…');
    let rec = null;
    try {
      const res = await fetch(`/api/sessions/${encodeURIComponent(this.id)}`, { headers: { 'X-Desk-Token': this.options.token, Accept: 'application/json' } });
      const body = await res.json().catch(() => null);
      if (res.status === 404) {
        this.end(null, 'desk no longer knows this session.');
        return;
      }
      if (res.status === 403 || res.status === 503) {
        // A page token is new with every start of desk serve: a page from
        // before a restart holds an old one.
        const why = body?.error || 'The server refused the terminal';
        this.end(null, `${why}. Reload the page, or open the address desk serve printed.`);
        return;
      }
      if (res.ok) rec = body;
    } catch {
      // The server is away (restarting): try again after the wait.
    }
    if (this.disposed || this.ended) return;
    if (rec && rec.state !== 'running') {
      this.end(rec);
      return;
    }
    const wait = reconnectDelay(this.attempt++);
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }

  /** The session ended (exit message or record), or the pane cannot go on (why). */
  end(exit, why = '') {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.retryTimer);
    this.term.options.disableStdin = true;
    this.term.options.cursorBlink = false;
    this.setState('ended', why || (exit ? exitText(exit) : 'Ended'));
    this.keys.hidden = true;
    this.options.onEnd?.(exit);
  }

  // ---- Read-only ------------------------------------------------------------------

  async readScreen() {
    if (this.disposed) return;
    if (this.mode === 'watch') this.setState('readonly', this.options.why || 'Read-only');
    else this.setState('ended', this.options.why || 'Ended');
    try {
      const res = await fetch(`/api/sessions/${encodeURIComponent(this.id)}/screen`, { headers: { 'X-Desk-Token': this.options.token, Accept: 'application/json' } });
      const body = await res.json().catch(() => null);
      if (!res.ok) throw new Error(body?.error || `${res.status} ${res.statusText}`);
      this.showScreen(body);
    } catch (err) {
      if (!this.disposed) this.setState(this.state, err.message);
    }
    if (this.mode === 'watch' && !this.disposed) this.watchTimer = setTimeout(() => this.readScreen(), WATCH_MS);
  }

  /** Draws a screen read as text: its lines and its cursor. */
  showScreen(s) {
    const text = JSON.stringify(s);
    if (text === this.lastScreen) return;
    this.lastScreen = text;
    if (s.cols > 0 && s.rows > 0) this.term.resize(s.cols, s.rows);
    this.term.reset();
    const lines = Array.isArray(s.lines) ? s.lines : [];
    this.term.write(lines.join('\r\n'));
    if (s.cursor) this.term.write(`\x1b[${s.cursor.row + 1};${s.cursor.col + 1}H`);
  }

  // ---- Keys --------------------------------------------------------------------------

  /** Copy keeps the terminal's text as it is: Ctrl+Shift+C, or Ctrl+C over a selection. */
  copyKey(e) {
    if (e.type !== 'keydown' || !(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 'c') return true;
    const text = this.term.getSelection();
    if (!e.shiftKey && !text) return true;
    if (text) navigator.clipboard?.writeText(text).catch(() => {});
    if (!e.shiftKey) this.term.clearSelection();
    return false;
  }

  keyBar() {
    const buttons = KEY_BAR.map(([label, key, title]) => {
      const b = h('button', { type: 'button', class: 'term-key', title, 'aria-label': title, dataset: { key } }, label);
      // The focus stays in the terminal, so a phone's keyboard stays up.
      b.addEventListener('pointerdown', (e) => e.preventDefault());
      b.addEventListener('click', () => {
        this.send(encoder.encode(keyBytes(key, this.term.modes.applicationCursorKeysMode)));
        this.term.focus();
      });
      return b;
    });
    const bar = h('div', { class: 'term-keys', role: 'toolbar', 'aria-label': 'Keys' }, buttons);
    bar.hidden = this.mode !== 'live' || this.options.keyBar === false;
    return bar;
  }

  // ---- State -------------------------------------------------------------------------

  setState(state, text) {
    this.state = state;
    this.el.dataset.state = state;
    if (this.status.textContent !== text) this.status.textContent = text;
  }

  focus() {
    this.term.focus();
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.watchTimer);
    clearTimeout(this.resizeTimer);
    this.observer.disconnect();
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
    this.term.dispose();
    this.el.remove();
  }
}
