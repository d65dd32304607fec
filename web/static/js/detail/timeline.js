// The timeline: comments and activity of the issue in time order. Entries
// moved in by a merge say where they came from; a merged report shows as a
// card with its title, description and location.

import { h, afterPaint } from '../dom.js';
import { renderMarkdown } from '../markdown.js';
import { buildTimeline, describeActivity, mergedCard, ownerOriginal } from '../timeline-model.js';
import { timeAgo, formatDateTime } from '../format.js';
import { locationCommands } from '../commands.js';
import { statusPill } from '../list/rows.js';
import { openLightbox } from '../lightbox.js';

function markdown(text, ctx, cls = 'md') {
  const div = h('div', { class: cls });
  div.innerHTML = renderMarkdown(text, { issueHref: ctx.app.issueHref });
  return div;
}

function when(at) {
  return h('time', { datetime: at, title: formatDateTime(at) }, timeAgo(at));
}

function mergedMark(from) {
  return from ? h('span', { class: 'merged-mark', title: 'Moved here by a merge' }, `merged from ${from}`) : null;
}

function partsNodes(parts, ctx) {
  return parts.map((p) => {
    if (typeof p === 'string') return p;
    if (p.code !== undefined) return h('code', null, p.code);
    if (p.issue !== undefined) return h('a', { href: ctx.app.issueHref(p.issue), class: 'issue-ref' }, p.issue);
    if (p.href !== undefined) return h('a', { href: p.href, class: 'code-change' }, p.text);
    const span = h('span');
    span.innerHTML = statusPill(p.status);
    return span.firstElementChild;
  });
}

function commentEntry(entry, ctx) {
  const c = entry.comment;
  const verdict = c.verdict === 'passed'
    ? h('span', { class: 'badge verdict-passed' }, '✓ Passed')
    : c.verdict === 'failed' ? h('span', { class: 'badge verdict-failed' }, '✗ Still broken') : null;
  const images = (c.attachments || []).filter((a) => a.is_image);
  const files = (c.attachments || []).length
    ? h('ul', { class: 'gallery small' }, c.attachments.map((a) => a.is_image
      ? h('li', null, h('button', { type: 'button', class: 'thumb', title: a.filename, onclick: () => openLightbox(images, images.indexOf(a)) }, h('img', { src: a.url, alt: a.filename, loading: 'lazy' })))
      : h('li', null, h('a', { href: a.url, target: '_blank', rel: 'noopener' }, a.filename))))
    : null;
  return h('li', { class: `entry comment${c.verdict ? ` verdict-${c.verdict}` : ''}${c.author === 'owner' ? ' by-owner' : ''}`, 'data-key': entry.key },
    h('div', { class: 'entry-head' }, h('strong', null, c.author), verdict, mergedMark(entry.mergedFrom), h('span', { class: 'spacer' }), when(c.created_at)),
    c.text ? markdown(c.text, ctx) : null,
    files);
}

function activityEntry(entry, ctx) {
  const a = entry.activity;
  const original = ownerOriginal(a);
  return h('li', { class: 'entry activity', 'data-key': entry.key },
    h('div', { class: 'entry-line' }, h('span', { class: 'actor' }, a.actor), ' ', partsNodes(describeActivity(a), ctx), ' ', mergedMark(entry.mergedFrom), h('span', { class: 'spacer' }), when(a.created_at)),
    original ? h('details', { class: 'original' }, h('summary', null, "The owner's original wording"),
      original.title ? h('p', null, h('strong', null, original.title)) : null,
      original.body ? markdown(original.body, ctx) : null) : null);
}

function mergedEntry(entry, ctx) {
  const card = mergedCard(entry.activity);
  const cmds = locationCommands(card.location);
  return h('li', { class: 'entry merged-card', 'data-key': entry.key },
    h('div', { class: 'entry-line' }, h('span', { class: 'actor' }, entry.activity.actor), ' merged ', h('span', { class: 'row-id' }, card.from), ' into this issue', h('span', { class: 'spacer' }), when(entry.at)),
    h('article', { class: 'report-card', 'aria-label': `Merged report ${card.from}` },
      h('h4', null, h('span', { class: 'row-id' }, card.from), ' ', card.title),
      h('p', { class: 'muted' }, [card.kind, card.source && `from ${card.source}`, card.area].filter(Boolean).join(' · ')),
      card.body ? markdown(card.body, ctx) : null,
      cmds.length ? h('ol', { class: 'commands compact' }, cmds.map((c) => h('li', null, c.label ? `${c.label}: ` : '', h('code', null, c.command)))) : null));
}

function buildsEntry(entry, ctx) {
  const last = entry.runs[entry.runs.length - 1];
  return h('li', { class: 'entry activity', 'data-key': entry.key },
    h('details', null,
      h('summary', null, `${entry.runs.length} builds published, the last: `, partsNodes(describeActivity(last.activity), ctx)),
      h('ul', null, entry.runs.map((r) => h('li', null, partsNodes(describeActivity(r.activity), ctx), ' ', when(r.at))))));
}

// A busy issue (hundreds of comments) opens with its latest entries; the
// older ones are one click away.
export const TIMELINE_FIRST = 60;
// More entries than fit on the first screen of an issue.
const FIRST_SCREEN = 12;
// The longest the other entries wait for the page to be idle.
const REST_MS = 200;

/**
 * @param {object} detail
 * @param {import('./detail-view.js').DetailContext} ctx
 * @param {Set<string>|null} seen keys shown before for this issue; others are highlighted
 * @param {{all: boolean, showAll: () => void, later?: boolean}} more whether every entry shows, and how to
 *   show them; later: the entries past the first screen may come after the frame that shows the issue
 */
export function timelineSection(detail, ctx, seen, more) {
  const all = buildTimeline(detail);
  const hidden = more.all ? 0 : Math.max(0, all.length - TIMELINE_FIRST);
  const entries = all.slice(hidden);
  const earlier = hidden
    ? h('button', { type: 'button', class: 'button small ghost timeline-more', onclick: more.showAll }, `Show ${hidden} earlier ${hidden === 1 ? 'entry' : 'entries'}`)
    : null;
  const draw = (entry) => {
    let el;
    if (entry.type === 'comment') el = commentEntry(entry, ctx);
    else if (entry.type === 'merged') el = mergedEntry(entry, ctx);
    else if (entry.type === 'builds') el = buildsEntry(entry, ctx);
    else el = activityEntry(entry, ctx);
    if (seen && !seen.has(entry.key)) el.classList.add('fresh');
    return el;
  };
  // An issue just opened shows its top: the timeline usually starts below
  // the first screen, so the entries past a screenful are drawn once the
  // page is idle after the issue is on screen, and the frame that shows it
  // does not build, style and lay them out first. (A redraw of the same
  // issue draws them all at once: the owner may be reading them.)
  const now = more.later ? entries.slice(0, FIRST_SCREEN) : entries;
  const list = h('ol', { class: 'timeline' }, now.map(draw));
  if (now.length < entries.length) {
    afterPaint(() => requestIdleCallback(() => list.isConnected && list.append(...entries.slice(now.length).map(draw)), { timeout: REST_MS }));
  }
  return {
    keys: all.map((e) => e.key),
    el: h('section', { class: 'timeline-box', 'aria-label': 'Timeline' }, h('h3', null, 'Timeline'), earlier, list),
  };
}
