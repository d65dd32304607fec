// Talking to the desk server. Every request is same-origin JSON; errors come
// back as {"error": "..."} and surface here as ApiError with that message.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** True for the error a superseded request ends with; callers ignore it. */
export function isAbort(err) {
  return err?.name === 'AbortError';
}

/** The per-run token the server writes into the page; only build open/run need it. */
export function pageToken() {
  return document.querySelector('meta[name="desk-token"]')?.content || '';
}

/** True when this desk serves code (the /v1 routes); the server says so in the page. */
export function servesCode() {
  return document.querySelector('meta[name="desk-code"]')?.content === 'on';
}

async function errorOf(res) {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (body && typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(res.status, message);
}

const UNREACHABLE = 'The desk server is not reachable. Is `desk serve` still running?';

async function request(method, url, { body, signal, headers } = {}) {
  const init = { method, signal, headers: { Accept: 'application/json', ...headers }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, init);
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiError(0, UNREACHABLE);
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

/** GET and parse JSON. */
export async function getJSON(url, options = {}) {
  const res = await request('GET', url, options);
  return res.json();
}

/**
 * GET a JSON read with its ETag. When the ETag equals `etag`, the body is
 * not parsed and `data` is null: the caller already shows this version.
 */
export async function getVersioned(url, etag, options = {}) {
  const res = await request('GET', url, options);
  const tag = res.headers.get('ETag');
  if (tag && etag && tag === etag) {
    res.body?.cancel();
    return { data: null, etag: tag, unchanged: true };
  }
  return { data: await res.json(), etag: tag, unchanged: false };
}

/** GET whatever the server answers (bytes, text), as the Response; errors as for getJSON. */
export function getRaw(url, options = {}) {
  return request('GET', url, options);
}

export async function postJSON(url, body, options = {}) {
  const res = await request('POST', url, { ...options, body });
  return res.status === 204 ? null : res.json();
}

export async function deleteJSON(url, options = {}) {
  const res = await request('DELETE', url, options);
  return res.status === 204 ? null : res.json();
}

export async function patchJSON(url, body, options = {}) {
  const res = await request('PATCH', url, { ...options, body });
  return res.json();
}

/** Paths of the API, so that no view builds a URL by hand. */
export const paths = {
  health: () => '/api/health',
  projects: () => '/api/projects',
  project: (slug) => `/api/projects/${encodeURIComponent(slug)}`,
  issues: (slug, query = '') => `/api/projects/${encodeURIComponent(slug)}/issues${query ? `?${query}` : ''}`,
  issue: (id) => `/api/issues/${encodeURIComponent(id)}`,
  comments: (id) => `/api/issues/${encodeURIComponent(id)}/comments`,
  attachments: (id) => `/api/issues/${encodeURIComponent(id)}/attachments`,
  attachment: (attId) => `/api/attachments/${encodeURIComponent(attId)}`,
  plan: (id) => `/api/issues/${encodeURIComponent(id)}/plan`,
  step: (id, n) => `/api/issues/${encodeURIComponent(id)}/plan/steps/${n}`,
  parent: (id) => `/api/issues/${encodeURIComponent(id)}/parent`,
  merge: (id) => `/api/issues/${encodeURIComponent(id)}/merge`,
  unmerge: (id) => `/api/issues/${encodeURIComponent(id)}/unmerge`,
  queue: (slug) => `/api/projects/${encodeURIComponent(slug)}/commands`,
  command: (cmdId) => `/api/commands/${encodeURIComponent(cmdId)}`,
  handoff: (slug, version) => `/api/projects/${encodeURIComponent(slug)}/handoff${version ? `?version=${version}` : ''}`,
  handoffHistory: (slug) => `/api/projects/${encodeURIComponent(slug)}/handoff/history`,
  handoffDiff: (slug, from, to) => `/api/projects/${encodeURIComponent(slug)}/handoff/diff?from=${from}${to ? `&to=${to}` : ''}`,
  projectBuild: (slug, action) => `/api/projects/${encodeURIComponent(slug)}/build/${action}`,
  issueBuild: (id, action) => `/api/issues/${encodeURIComponent(id)}/build/${action}`,
  // Just these issues of a project, as list rows: what a live change re-reads.
  issueRows: (slug, ids) => `/api/projects/${encodeURIComponent(slug)}/issues?id=${ids.map(encodeURIComponent).join(',')}&summary=1`,
  claim: (id) => `/api/issues/${encodeURIComponent(id)}/claim`,
  agents: () => '/api/agents',
  agent: (id) => `/api/agents/${encodeURIComponent(id)}`,
};

/** Opens the build's folder or runs it; the server checks the page token. */
export function buildAction(url) {
  return postJSON(url, {}, { headers: { 'X-Desk-Token': pageToken() } });
}

// "Only the newest request counts." Each view that loads something keeps a
// Latest: starting a request aborts the one before, and a response that
// arrives after a newer request started is recognised as stale and dropped,
// so a slow answer never replaces the view the owner has since chosen.

export class Latest {
  constructor() {
    this.seq = 0;
    this.controller = null;
  }

  /** Starts a request: returns its abort signal and a check that it is still the newest. */
  begin() {
    this.controller?.abort();
    this.controller = new AbortController();
    const id = ++this.seq;
    return { signal: this.controller.signal, current: () => id === this.seq };
  }

  /** Drops whatever is in flight. */
  cancel() {
    this.controller?.abort();
    this.controller = null;
    this.seq++;
  }
}

// The first page of issues that boot.js asked for before any module ran.
// The app takes it when it wants exactly that list.

/**
 * Resolves once the list boot.js asked for has been read (or has failed),
 * or after ms, whichever comes first; at once when boot.js asked for none.
 * @param {number} ms
 */
export function earlyListRead(ms) {
  const early = window.deskEarlyList;
  if (!early) return Promise.resolve();
  const read = early.answer.then(() => {}, () => {});
  return Promise.race([read, new Promise((resolve) => setTimeout(resolve, ms))]);
}

/**
 * The early list for url, once, as getVersioned gives a list; null when
 * boot.js asked for no such list. When boot.js has read it already, the
 * promise settles without waiting for another task.
 */
export function takeEarlyList(url) {
  const early = window.deskEarlyList;
  if (!early || early.url !== url) return null;
  window.deskEarlyList = null;
  return early.answer.then(
    async ({ response, data }) => {
      if (!response.ok) throw await errorOf(response);
      return { data, etag: response.headers.get('ETag'), unchanged: false };
    },
    (err) => {
      // fetch fails with a TypeError when the server cannot be reached.
      throw err instanceof TypeError ? new ApiError(0, UNREACHABLE) : err;
    },
  );
}
