// The changes landed on main for an issue (its landings: each change whose
// intent names it), each linked to the change in the Code view. A plan
// step whose commit is one of them links there too.

import { h } from '../dom.js';
import { codeHash } from '../router.js';
import { timeAgo, formatDateTime } from '../format.js';

/** The Landed section of an issue; null when nothing landed for it. */
export function landingsSection(detail) {
  const landings = detail.landings || [];
  if (!landings.length) return null;
  return h('section', { class: 'card-box landings', 'aria-label': 'Landed' },
    h('div', { class: 'card-head' }, h('h3', null, `Landed ${landings.length}`)),
    h('ol', { class: 'landing-list' }, [...landings].reverse().map((l) => h('li', { dataset: { change: l.change } },
      h('a', { class: 'code-change', href: codeHash({ repo: l.repo, view: 'change', change: l.change }), title: l.change }, l.change.slice(0, 12)),
      ' ', h('span', { class: 'landing-message' }, l.message || '(no message)'),
      h('span', { class: 'muted' }, ` · ${l.repo} #${l.seq}`, l.rebased ? ' · merged on main' : '', ` · ${l.landed_by} `,
        h('time', { datetime: l.landed_at, title: formatDateTime(l.landed_at) }, timeAgo(l.landed_at)))))));
}

/**
 * The landing a plan step's commit names: the change that landed or the
 * one its author sent, by its id or the start of it (7 characters at
 * least, as git abbreviates).
 */
export function landingOf(detail, commit) {
  const c = String(commit || '').toLowerCase();
  if (c.length < 7 || !/^[0-9a-f]+$/.test(c)) return null;
  return (detail.landings || []).find((l) => l.change.startsWith(c) || l.submitted.startsWith(c)) || null;
}

/** A plan step's commit: a link to its change when it is one that landed for the issue. */
export function stepCommit(detail, commit) {
  const l = landingOf(detail, commit);
  if (!l) return h('code', { class: 'step-commit', title: 'Commit' }, commit);
  return h('a', { class: 'step-commit code-change', href: codeHash({ repo: l.repo, view: 'change', change: l.change }), title: `Landed on ${l.repo} as #${l.seq}` },
    h('code', null, commit.length > 12 ? commit.slice(0, 12) : commit));
}
