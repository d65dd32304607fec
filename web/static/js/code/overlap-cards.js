// Overlaps as amber cards: two open changes of two work folders that touch
// the same files, each with its author, its issues and when it was sent.
// The Code view and the project page both show them.

import { h } from '../dom.js';
import { codeHash } from '../router.js';
import { timeAgo, formatDateTime } from '../format.js';
import { overlapCard, shortId, authorName, intentLink } from './code-model.js';

// A path list longer than this folds the rest into a count.
const SHOWN_PATHS = 6;

/**
 * The cards of a repository's overlaps; null when it has none.
 * @param {string} repo owner/name
 * @param {object[]} pairs the answer of GET overlaps
 * @param {{slug: string, prefix: string}[]} projects to link the intents to their issues
 */
export function overlapCards(repo, pairs, projects) {
  if (!pairs?.length) return null;
  return h('div', { class: 'overlap-cards', role: 'list', 'aria-label': `Open changes of ${repo} on the same files` },
    pairs.map((pair) => card(repo, overlapCard(pair), projects)));
}

function card(repo, c, projects) {
  const more = c.shared.length - SHOWN_PATHS;
  return h('article', { class: 'overlap-card', role: 'listitem', dataset: { overlap: c.key } },
    h('h3', null, h('span', { class: 'overlap-mark', 'aria-hidden': 'true' }, '⚠'), ' ', c.title),
    h('ul', { class: 'overlap-paths' },
      c.shared.slice(0, SHOWN_PATHS).map((p) => h('li', null, h('code', null, p))),
      more > 0 ? h('li', { class: 'muted' }, `and ${more} more`) : null),
    h('ul', { class: 'overlap-sides' }, c.sides.map((s) => side(repo, s, projects))));
}

function side(repo, s, projects) {
  return h('li', null,
    'open change ',
    h('a', { class: 'code-change', href: codeHash({ repo, view: 'change', change: s.change }) }, shortId(s.change)),
    ' of ', h('strong', null, authorName(s.author)),
    s.intents?.length ? [' for ', intentLinks(s.intents, projects)] : null,
    ', sent ', h('time', { datetime: s.sent_at, title: formatDateTime(s.sent_at) }, timeAgo(s.sent_at)),
    s.workspace ? h('span', { class: 'muted' }, ` from folder ${s.workspace.slice(0, 12)}`) : null);
}

/** Intents as links to their issues (plain text for an issue of no project here). */
export function intentLinks(intents, projects) {
  return intents.map((id, i) => {
    const l = intentLink(id, projects);
    const node = l.href ? h('a', { class: 'intent', href: l.href }, l.id) : h('span', { class: 'intent' }, l.id);
    return i ? [' ', node] : node;
  });
}
