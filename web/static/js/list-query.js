// What the list asks the server for, from the owner's filters and view.

import { UNFINISHED } from './enums.js';

/** Issues per page of the triage list and the board; Show more loads the next page. */
export const PAGE_SIZE = 1000;

/** The backlog shows all open work at once, as the server's largest page. */
export const BACKLOG_LIMIT = 5000;

/** A project opens with this many issues, which arrive fast enough for the
 * first paint; the rest of the page follows at once. */
export const FIRST_PAGE = 60;

export const BACKLOG_STATUSES = ['open', 'in_progress'];

/** The filters of a fresh project: every unfinished status, nothing else. */
export function defaultFilters() {
  return { statuses: [...UNFINISHED], kind: '', priority: '', area: '', sort: '', q: '' };
}

/** Filters restored from storage, with anything unknown dropped. */
export function cleanFilters(saved) {
  const f = defaultFilters();
  if (!saved || typeof saved !== 'object') return f;
  if (Array.isArray(saved.statuses)) f.statuses = saved.statuses.filter((s) => typeof s === 'string');
  for (const key of ['kind', 'priority', 'area', 'sort']) {
    if (typeof saved[key] === 'string') f[key] = saved[key];
  }
  return f;
}

/** How many issues a view shows at most: the backlog all open work, the others pages. */
export function viewLimit(view, pages = 1) {
  return view === 'backlog' ? BACKLOG_LIMIT : PAGE_SIZE * pages;
}

/**
 * The query string of GET /api/projects/{slug}/issues for a view.
 * @param {ReturnType<typeof defaultFilters>} filters
 * @param {'triage'|'backlog'|'board'} view
 * @param {number} limit
 */
export function listQuery(filters, view, limit = viewLimit(view)) {
  const p = new URLSearchParams();
  if (view === 'backlog') {
    p.set('status', BACKLOG_STATUSES.join(','));
    p.set('sort', 'backlog');
    p.set('limit', String(limit));
  } else {
    if (filters.statuses.length) p.set('status', filters.statuses.join(','));
    if (filters.sort) p.set('sort', filters.sort);
    p.set('limit', String(limit));
  }
  if (filters.kind) p.set('kind', filters.kind);
  if (filters.priority) p.set('priority', filters.priority);
  if (filters.area) p.set('area', filters.area);
  if (filters.q) p.set('q', filters.q);
  p.set('summary', '1');
  return p.toString();
}
