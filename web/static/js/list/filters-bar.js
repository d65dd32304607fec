// The filter bar: Triage / Backlog / Board, status chips with counts, kind,
// priority, area and sort, and the project's current build.

import { h, replaceChildren, select } from '../dom.js';
import { STATUSES, KINDS, PRIORITIES, SORTS, statusLabel } from '../enums.js';

const VIEWS = [
  ['triage', 'Triage', 'Everything by what needs you first (b switches to the backlog)'],
  ['backlog', 'Backlog', 'Open work by priority, size and area (b)'],
  ['board', 'Board', 'One column per status'],
];

export class FiltersBar {
  /** @param {import('../app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
  }

  render() {
    const { app } = this;
    const f = app.filters;
    const counts = app.list.counts || {};
    const viewSwitch = h(
      'div',
      { class: 'view-switch', role: 'group', 'aria-label': 'View' },
      VIEWS.map(([view, label, title]) =>
        h('button', { type: 'button', 'aria-pressed': String(app.view === view), title, onclick: () => app.setView(view) }, label),
      ),
    );

    const kind = select({ 'aria-label': 'Kind', onchange: (e) => app.setFilter('kind', e.target.value) },
      [['', 'Any kind'], ...KINDS.map((k) => [k, `${k} ${count(counts.kind, k)}`])], f.kind);
    const priority = select({ 'aria-label': 'Priority', onchange: (e) => app.setFilter('priority', e.target.value) },
      [['', 'Any priority'], ...PRIORITIES.map((p) => [p, `${p} ${count(counts.priority, p)}`])], f.priority);
    const areas = new Set([...(app.project?.areas || []), ...Object.keys(counts.area || {}).filter(Boolean)]);
    if (f.area) areas.add(f.area);
    const area = select({ 'aria-label': 'Area', onchange: (e) => app.setFilter('area', e.target.value) },
      [['', 'Any area'], ...[...areas].sort((a, b) => a.localeCompare(b)).map((a) => [a, `${a} ${count(counts.area, a)}`])], f.area);
    const sortOptions = [['', f.q ? 'Best match' : 'Triage order'], ...SORTS.filter(([v]) => v !== 'triage' || f.q)];
    const sort = select({ 'aria-label': 'Sort', onchange: (e) => app.setFilter('sort', e.target.value) }, sortOptions, f.sort);
    if (app.view === 'backlog') sort.disabled = true;

    // The build pill's module loads only for projects that publish builds.
    const build = h('span', { class: 'build-slot' });
    if (app.project?.builds_enabled) import('../build-controls.js').then((m) => build.replaceChildren(m.buildPill(app) || ''));
    const views = h('div', { class: 'filter-row' }, viewSwitch, h('span', { class: 'spacer' }), build);
    const selects = h('div', { class: 'filter-row selects' }, kind, priority, area, app.view === 'backlog' ? null : sort);
    const statuses = app.view === 'backlog'
      ? h('div', { class: 'filter-row muted' }, 'Open and in-progress work by priority, then size, then area.')
      : this.chips(counts.status || {});
    replaceChildren(this.el, views, selects, statuses);
  }

  chips(statusCounts) {
    const { app } = this;
    const shown = new Set(app.filters.statuses);
    const chips = STATUSES.map((status, i) => {
      const n = statusCounts[status] || 0;
      return h(
        'button',
        {
          type: 'button',
          class: `chip st-${status}${n ? '' : ' empty'}`,
          'aria-pressed': String(shown.has(status)),
          title: `${statusLabel(status)}: click to show or hide, shift-click to show only this (${i + 1})`,
          onclick: (e) => app.toggleStatus(status, e.shiftKey),
        },
        h('span', { class: 'dot', 'aria-hidden': 'true' }),
        statusLabel(status),
        h('span', { class: 'n' }, String(n)),
      );
    });
    return h('div', { class: 'chips', role: 'group', 'aria-label': 'Statuses' }, chips);
  }
}

function count(map, key) {
  const n = map?.[key];
  return n ? `(${n})` : '';
}
