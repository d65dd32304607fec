// The office's requests: its layout, catalog and seat choices, and, for
// the sessions desk launched itself, their screen and their input (the
// session routes; they need the page's token).

import { ApiError, getJSON, pageToken } from '../api.js';

export const officePaths = {
  catalog: () => '/api/office/catalog',
  layout: () => '/api/office/layout',
  seats: () => '/api/office/seats',
  screen: (id) => `/api/sessions/${encodeURIComponent(id)}/screen`,
  input: (id) => `/api/sessions/${encodeURIComponent(id)}/input`,
};

async function send(method, url, body, headers = {}) {
  let res;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The desk server is not reachable. Is `desk serve` still running?');
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    // An answer without a body.
  }
  if (!res.ok) throw new ApiError(res.status, typeof data?.error === 'string' ? data.error : `${res.status} ${res.statusText}`);
  return data;
}

export const loadCatalog = () => getJSON(officePaths.catalog());
export const loadLayout = () => getJSON(officePaths.layout());
export const loadSeats = () => getJSON(officePaths.seats());

let first = null;

/**
 * Starts reading what the office needs to draw itself (the catalog, the
 * layout, the seat choices), once: the page asks as soon as it knows the
 * office is wanted, while the office's modules are still loading.
 * @returns {Promise<[object, object, object]>}
 */
export function prefetch() {
  first ||= Promise.all([loadCatalog(), loadLayout(), loadSeats()]);
  return first;
}

/** Saves a layout made on its revision; a stale one fails with status 409. */
export const saveLayout = (layout) => send('PUT', officePaths.layout(), layout);

/** Seats a session on a chair, or ('' ) lets the office choose. */
export const chooseSeat = (session, seat) => send('PUT', officePaths.seats(), { session, seat });

/** The screen of a session desk runs: {cols, rows, cursor, lines, title}. */
export const loadScreen = (id) => getJSON(officePaths.screen(id), { headers: { 'X-Desk-Token': pageToken() } });

/** Types into a session desk runs: {text} or {keys: [...]}. */
export const sendInput = (id, input) => send('POST', officePaths.input(id), input, { 'X-Desk-Token': pageToken() });
