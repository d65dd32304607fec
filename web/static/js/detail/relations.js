// How an issue relates to others: the issue it is part of, its parts (with
// "Close MG-4" once every part is done), and the reports merged into it,
// each with Unmerge.

import { h } from '../dom.js';
import { statusPill } from '../list/rows.js';
import { isDone } from '../enums.js';
import { progressText } from '../format.js';

function pill(status) {
  const span = h('span');
  span.innerHTML = statusPill(status);
  return span.firstElementChild;
}

/**
 * @param {object} detail
 * @param {import('./detail-view.js').DetailContext} ctx
 */
export function relationsSection(detail, ctx) {
  const { app } = ctx;
  const parts = [];
  const link = (id, title) => h('a', { href: app.issueHref(id), class: 'issue-link' }, h('span', { class: 'row-id' }, id), ' ', title || '');

  if (detail.parent_info || detail.parent) {
    const p = detail.parent_info || { id: detail.parent, title: '', status: '' };
    parts.push(h('p', { class: 'relation-line' }, 'Part of ', link(p.id, p.title), ' ', p.status ? pill(p.status) : null,
      h('button', { type: 'button', class: 'link-button', onclick: () => app.updateIssue(detail.id, { parent: null }) }, 'Remove')));
  }

  const children = detail.children || [];
  if (children.length) {
    const done = children.filter((c) => isDone(c.status)).length;
    const allDone = done === children.length;
    parts.push(h('div', { class: 'children' },
      h('div', { class: 'card-head' },
        h('h3', null, `Parts ${done}/${children.length}`),
        h('span', { class: 'spacer' }),
        allDone && !isDone(detail.status)
          ? h('button', { type: 'button', class: 'button small primary', onclick: () => app.updateIssue(detail.id, { status: 'closed' }) }, `Close ${detail.id}`)
          : null),
      h('ul', { class: 'child-list' }, children.map((c) => h('li', null,
        pill(c.status), ' ', link(c.id, c.title),
        c.plan_progress?.total ? h('span', { class: 'muted' }, ` ${progressText(c.plan_progress)}`) : null)))));
  }

  const merged = detail.merged_sources || [];
  if (merged.length) {
    parts.push(h('div', { class: 'merged-sources' },
      h('h3', null, 'Merged into this'),
      h('ul', { class: 'child-list' }, merged.map((m) => h('li', null,
        h('span', { class: 'row-id' }, m.id), ' ', m.title, ' ',
        h('button', { type: 'button', class: 'button small', title: `Make ${m.id} its own issue again`, onclick: () => app.unmerge(m.id) }, 'Unmerge'))))));
  }

  if (!parts.length) return null;
  return h('section', { class: 'card-box relations', 'aria-label': 'Related issues' }, parts);
}
