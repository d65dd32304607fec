// The markup of one list row, one board card and one backlog group header.
// Built as HTML text for speed (a scroll paints dozens per frame); every
// value goes through escapeHtml, and there are no style attributes, which
// the Content Security Policy would block.

import { escapeHtml } from '../dom.js';
import { statusLabel } from '../enums.js';
import { timeAgo, formatClock } from '../format.js';
import { sizeSummary } from '../list-model.js';

const template = document.createElement('template');

function element(html) {
  template.innerHTML = html;
  return template.content.firstElementChild;
}

const svg = (name) => `<svg class="icon" aria-hidden="true"><use href="#i-${name}"></use></svg>`;

/** Progress bar widths come from classes (w0 … w10), never from inline styles. */
function progressClass(done, total) {
  return `w${total ? Math.round((done / total) * 10) : 0}`;
}

export function statusPill(status) {
  return `<span class="pill st-${escapeHtml(status)}">${escapeHtml(statusLabel(status))}</span>`;
}

/** The badges of an issue: plan, size, milestone, part of, children, verdict, claim, counts. */
function badges(issue) {
  const out = [];
  if (issue.status === 'auto_check') out.push(`<span class="badge auto" title="An agent checks this itself">${svg('robot')}auto</span>`);
  const pp = issue.plan_progress;
  if (pp && pp.total) {
    out.push(`<span class="badge" title="Plan: ${pp.done} of ${pp.total} steps done"><span class="progress-mini"><i class="${progressClass(pp.done, pp.total)}"></i></span>${pp.done}/${pp.total}</span>`);
  }
  if (issue.size) out.push(`<span class="badge size" title="Size">${escapeHtml(issue.size)}</span>`);
  if (issue.milestone) out.push(`<span class="badge" title="Milestone">◆ ${escapeHtml(issue.milestone)}</span>`);
  if (issue.parent) out.push(`<span class="badge" title="Part of ${escapeHtml(issue.parent)}">part of ${escapeHtml(issue.parent)}</span>`);
  if (issue.child_count) {
    out.push(`<span class="badge" title="${issue.child_done} of ${issue.child_count} parts done">${svg('tree')}${issue.child_done}/${issue.child_count}</span>`);
  }
  if (issue.last_verdict === 'passed') out.push('<span class="badge verdict-passed" title="Last verdict">✓ passed</span>');
  else if (issue.last_verdict === 'failed') out.push('<span class="badge verdict-failed" title="Last verdict">✗ still broken</span>');
  const claim = issue.claim;
  if (claim && Date.parse(claim.expires_at) > Date.now()) {
    out.push(`<span class="badge claim" title="Claimed by ${escapeHtml(claim.holder)} until ${escapeHtml(formatClock(claim.expires_at))}">claimed · ${escapeHtml(claim.holder.split(' ')[0])}</span>`);
  }
  if (issue.comment_count) out.push(`<span class="badge" title="${issue.comment_count} comments">${svg('comment')}${issue.comment_count}</span>`);
  if (issue.attachment_count) out.push(`<span class="badge" title="${issue.attachment_count} files">${svg('clip')}${issue.attachment_count}</span>`);
  return out.join('');
}

/**
 * The live agent sessions on an issue, as the app hands them over (see
 * issueMark in agents/agent-model.js): the most urgent one in words,
 * "claude · Editing store.go", coloured by its state, and how many more.
 */
function agentMarks(marks) {
  if (!marks || !marks.length) return '';
  const first = marks[0];
  const more = marks.length > 1 ? `<span class="agent-more">+${marks.length - 1}</span>` : '';
  const title = marks.map((m) => m.title).join('\n');
  return `<span class="agent-mark ag-${escapeHtml(first.state)}" title="${escapeHtml(title)}">${svg('robot')}<span class="agent-mark-text">${escapeHtml(first.text)}</span>${more}</span>`;
}

function matchLine(match) {
  const where = { title: 'title', details: 'details', body: 'description', comments: 'comments' }[match.field] || match.field;
  return `<span class="row-excerpt" title="Found in the ${escapeHtml(where)}">in ${escapeHtml(where)}: ${escapeHtml(match.excerpt || '')}</span>`;
}

function flagClasses(flags) {
  return `${flags.cursor ? ' cursor' : ''}${flags.selected ? ' selected' : ''}${flags.open ? ' open' : ''}${flags.fresh ? ' fresh' : ''}`;
}

/**
 * A triage or backlog row.
 * @param {object} issue
 * @param {{cursor: boolean, selected: boolean, open: boolean, fresh: boolean, pos: number, size: number, agents: object[]}} flags
 */
export function renderRow(issue, flags) {
  const id = escapeHtml(issue.id);
  const tags = (issue.tags || []).slice(0, 3).map((t) => `<span class="tag">#${escapeHtml(t)}</span>`).join('');
  const second = issue.match && issue.match.field !== 'title'
    ? matchLine(issue.match)
    : `${issue.area ? `<span class="area">${escapeHtml(issue.area)}</span>` : ''}${tags}`;
  return element(
    `<div class="row${flagClasses(flags)}" role="option" id="row-${id}" data-id="${id}" aria-selected="${flags.selected}" aria-posinset="${flags.pos}" aria-setsize="${flags.size}">` +
      `<input type="checkbox" class="row-check" tabindex="-1" aria-label="Select ${id}"${flags.selected ? ' checked' : ''}>` +
      '<div class="row-main">' +
        `<div class="row-line"><span class="row-id">${id}</span><span class="row-title">${escapeHtml(issue.title)}</span>${statusPill(issue.status)}</div>` +
        `<div class="row-line row-meta"><span class="prio prio-${escapeHtml(issue.priority)}">${escapeHtml(issue.priority)}</span><span class="kind">${escapeHtml(issue.kind)}</span>${agentMarks(flags.agents)}${second}${badges(issue)}<span class="ago" title="Updated">${escapeHtml(timeAgo(issue.updated_at))}</span></div>` +
      '</div>' +
    '</div>',
  );
}

/** A board card. */
export function renderCard(issue, flags) {
  const id = escapeHtml(issue.id);
  return element(
    `<div class="card${flagClasses(flags)}" role="option" id="row-${id}" data-id="${id}" aria-selected="${flags.selected}">` +
      `<div class="card-top"><input type="checkbox" class="row-check" tabindex="-1" aria-label="Select ${id}"${flags.selected ? ' checked' : ''}><span class="row-id">${id}</span><span class="prio prio-${escapeHtml(issue.priority)}">${escapeHtml(issue.priority)}</span><span class="kind">${escapeHtml(issue.kind)}</span></div>` +
      `<div class="card-title">${escapeHtml(issue.title)}</div>` +
      `<div class="row-meta">${agentMarks(flags.agents)}${issue.area ? `<span class="area">${escapeHtml(issue.area)}</span>` : ''}${badges(issue)}</div>` +
    '</div>',
  );
}

/** A backlog area group header; a button so it is reachable and operable by keyboard. */
export function renderGroupHeader(item) {
  const { group, collapsed } = item;
  const name = group.area || 'No area';
  return element(
    `<div class="group-header" role="button" tabindex="-1" data-group="${escapeHtml(item.key)}" aria-expanded="${!collapsed}">` +
      `${svg('chevron')}<span class="group-name">${escapeHtml(name)}</span>` +
      `<span class="group-count">${group.issues.length}</span>` +
      `<span class="group-sizes">${escapeHtml(sizeSummary(group.sizes))}</span>` +
    '</div>',
  );
}
