// The sessions desk launched (GET /api/sessions?all=1), what "+ Agent" can
// launch (GET /api/session-kinds), and the actions on them. Every session
// route needs a token: desk's page token, or the terminal token of the
// address desk serve printed. The list is read again when the live stream
// reports a session change.

import { getJSON, postJSON, patchJSON, deleteJSON, paths, pageToken } from '../api.js';
import { Throttle } from '../throttle.js';
import { sessionToken, launchOff } from '../terminal/terminal-model.js';

const sessionPaths = {
  list: () => '/api/sessions?all=1',
  one: (id) => `/api/sessions/${encodeURIComponent(id)}`,
  resume: (id) => `/api/sessions/${encodeURIComponent(id)}/resume`,
  kinds: () => '/api/session-kinds',
  launch: () => '/api/sessions',
};

export class ManagedSessions {
  constructor() {
    /** @type {Set<() => void>} who draws from this list */
    this.listeners = new Set();
    this.token = sessionToken(pageToken(), location.search);
    /** 'on' | 'read-only' | 'off' (GET /api/health's terminals), null until known */
    this.served = null;
    /** @type {object[]} every record, newest first */
    this.list = [];
    this.byId = new Map();
    this.loaded = false;
    this.error = null;
    this.kinds = null;
    this.kindsError = null;
    this.text = '';
    this.refresh = new Throttle(() => this.load(), { wait: 30, gap: 250 });
  }

  /** Finds out whether this desk serves terminals, then reads the kinds and the sessions. */
  async start() {
    if (this.starting) return this.starting;
    this.starting = (async () => {
      try {
        const health = await getJSON(paths.health());
        this.served = health.terminals || 'off';
      } catch {
        this.served = 'off';
      }
      if (this.served === 'off' || !this.token) {
        this.loaded = true;
        this.onChange();
        return;
      }
      // The kinds first: a refused token is found there, once.
      await this.loadKinds();
      await this.load();
    })();
    return this.starting;
  }

  /** Calls fn after every change; returns the way to stop. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onChange() {
    for (const fn of this.listeners) fn();
  }

  get headers() {
    return { 'X-Desk-Token': this.token };
  }

  /** Why "+ Agent" is off, or null. */
  get launchOff() {
    if (this.served === 'off') return 'This desk serves no terminals.';
    return launchOff(this.kinds, this.kindsError, this.token);
  }

  /** Typing and attaching are off (desk serve --no-terminal): terminals are read-only. */
  get readOnly() {
    return this.served === 'read-only';
  }

  /** Whether the session routes can be asked at all. */
  get reachable() {
    return this.served !== null && this.served !== 'off' && Boolean(this.token) && !(this.kindsError?.status === 403);
  }

  async loadKinds() {
    try {
      this.kinds = await getJSON(sessionPaths.kinds(), { headers: this.headers });
      this.kindsError = null;
    } catch (err) {
      this.kinds = null;
      this.kindsError = err;
    }
    this.onChange();
  }

  /** A live change of type "session": read the list again soon. */
  changed() {
    if (this.reachable) this.refresh.request();
  }

  async load() {
    if (!this.reachable) return;
    let data;
    try {
      data = await getJSON(sessionPaths.list(), { headers: this.headers });
    } catch (err) {
      this.error = err;
      this.loaded = true;
      this.onChange();
      return;
    }
    this.error = null;
    const list = Array.isArray(data?.sessions) ? data.sessions : [];
    const text = JSON.stringify(list);
    if (this.loaded && text === this.text) return;
    this.text = text;
    this.list = list;
    this.byId = new Map(list.map((s) => [s.id, s]));
    this.loaded = true;
    this.onChange();
  }

  /** Takes a record the server answered with, at once. */
  take(rec) {
    if (!rec?.id) return rec;
    const at = this.list.findIndex((s) => s.id === rec.id);
    if (at >= 0) this.list[at] = rec;
    else this.list.unshift(rec);
    this.byId.set(rec.id, rec);
    this.text = JSON.stringify(this.list);
    this.onChange();
    return rec;
  }

  async launch(req) {
    return this.take(await postJSON(sessionPaths.launch(), req, { headers: this.headers }));
  }

  async rename(id, name) {
    return this.take(await patchJSON(sessionPaths.one(id), { name }, { headers: this.headers }));
  }

  async stop(id) {
    return this.take(await deleteJSON(sessionPaths.one(id), { headers: this.headers }));
  }

  async resume(id) {
    return this.take(await postJSON(sessionPaths.resume(id), {}, { headers: this.headers }));
  }
}

let shared = null;

/** The page's one list of managed sessions (the Agents view and the office share it). */
export function managedSessions() {
  shared ||= new ManagedSessions();
  return shared;
}
