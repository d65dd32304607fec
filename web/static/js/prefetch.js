// Asks for the first list as early as the page can: this module is loaded
// with async in <head> and needs only two small modules, so the request
// runs while the rest of the desk's modules are still loading. The app
// takes the response if it asks for the same list.

import { prefs } from './prefs.js';
import { cleanFilters, listQuery, FIRST_PAGE } from './list-query.js';
import { parseRoute } from './router.js';

let pending = null;

function start() {
  const slug = parseRoute(location.hash).project || (location.hash.replace(/^#\/?/, '') ? null : prefs.lastProject());
  if (!slug) return;
  const view = prefs.view(slug);
  const url = `/api/projects/${encodeURIComponent(slug)}/issues?${listQuery(cleanFilters(prefs.filters(slug)), ['triage', 'backlog', 'board'].includes(view) ? view : 'triage', FIRST_PAGE)}`;
  pending = { url, response: fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin', priority: 'high' }) };
  // A failed early request is not an error the page should report; the
  // app's own request reports it.
  pending.response.catch(() => {});
}

/** The early response for url, once; null when there is none for it. */
export function takePrefetch(url) {
  if (!pending || pending.url !== url) return null;
  const { response } = pending;
  pending = null;
  return response;
}

start();
