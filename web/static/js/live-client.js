// The page's end of the live connection: the shared worker when the browser
// has one, short polling of the project's last_change when it has not or
// while the stream is down.

import { getJSON, paths } from './api.js';

const HEARTBEAT_MS = 30000;
const POLL_MS = 4000;
// While the stream is up, a slow poll still catches anything it missed.
const SAFETY_POLL_MS = 60000;

/**
 * @typedef {{
 *   onChange: (changes: object[]) => void,
 *   onRefresh: (changes: object[]) => void,
 *   onResync: () => void,
 *   onMode: (mode: 'live'|'polling'|'connecting') => void,
 *   shownChange: () => (string|null|undefined),
 * }} LiveHandlers
 * shownChange gives the project's last_change as of the data on screen, so
 * that a write made before the first poll is not taken as the starting point.
 */

export class LiveClient {
  /** @param {LiveHandlers} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    this.project = null;
    this.port = null;
    this.mode = 'connecting';
    this.wasDown = false;
    this.lastChange = null;
    this.lastPoll = 0;
    this.pollTimer = 0;
    this.heartbeat = 0;

    addEventListener('pagehide', () => this.release());
    addEventListener('pageshow', (e) => {
      if (e.persisted) this.connect();
    });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') {
        this.subscribe();
        this.poll();
      }
    });
  }

  /** Follows a project (or every project, with null). */
  follow(project) {
    if (project !== this.project) this.lastChange = null;
    this.project = project;
    if (!this.port) this.connect();
    else this.subscribe();
    this.schedulePoll(0);
  }

  connect() {
    if (typeof SharedWorker === 'undefined') {
      this.setMode('polling');
      this.schedulePoll(0);
      return;
    }
    try {
      // Beside this module: under the page's versioned prefix, so a page of
      // another version of desk gets a worker of its own.
      const worker = new SharedWorker(new URL('./live-worker.js', import.meta.url), { name: 'desk-live' });
      this.port = worker.port;
      this.port.onmessage = (msg) => this.receive(msg.data);
      worker.onerror = () => this.down();
      this.port.start();
      this.subscribe();
      clearInterval(this.heartbeat);
      this.heartbeat = setInterval(() => this.port?.postMessage({ type: 'ping' }), HEARTBEAT_MS);
    } catch {
      this.port = null;
      this.setMode('polling');
    }
  }

  subscribe() {
    this.port?.postMessage({ type: 'subscribe', project: this.project });
  }

  /** Leaves the shared stream, so a closed tab never holds a connection. */
  release() {
    clearInterval(this.heartbeat);
    this.port?.postMessage({ type: 'close' });
    this.port?.close();
    this.port = null;
  }

  receive(msg) {
    switch (msg.type) {
      case 'status':
        if (msg.live) this.up();
        else this.down();
        break;
      case 'hello':
        this.up();
        break;
      case 'change':
        this.handlers.onChange(msg.changes || []);
        break;
      case 'refresh':
        this.handlers.onRefresh(msg.changes || []);
        break;
    }
  }

  up() {
    const resync = this.wasDown;
    this.wasDown = false;
    this.setMode('live');
    // Whatever happened while the stream was down is reloaded once.
    if (resync) this.handlers.onResync();
  }

  down() {
    if (this.mode === 'live') this.wasDown = true;
    this.setMode('polling');
    this.schedulePoll(POLL_MS);
  }

  setMode(mode) {
    if (this.mode === mode) return;
    this.mode = mode;
    this.handlers.onMode(mode);
  }

  schedulePoll(delay) {
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => this.poll(), delay);
  }

  async poll() {
    const interval = this.mode === 'live' ? SAFETY_POLL_MS : POLL_MS;
    this.schedulePoll(interval);
    if (!this.project || document.visibilityState === 'hidden') return;
    if (this.mode === 'live' && Date.now() - this.lastPoll < SAFETY_POLL_MS - 1000) return;
    this.lastPoll = Date.now();
    try {
      const project = await getJSON(paths.project(this.project));
      if (project.slug !== this.project) return;
      const known = this.lastChange ?? this.handlers.shownChange?.() ?? null;
      const changed = known !== null && project.last_change !== known;
      this.lastChange = project.last_change;
      if (changed) this.handlers.onResync();
    } catch {
      // The server is away; the next poll tries again.
    }
  }
}
