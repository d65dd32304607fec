// The timeline of an issue: its comments and activity in time order, with
// what the DOM needs to show each entry. Pure, so it is tested without a
// browser.

import { statusLabel } from './enums.js';
import { codeHash } from './router.js';

/**
 * @typedef {string | {code: string} | {issue: string} | {status: string} | {href: string, text: string}} Part
 * A piece of an activity sentence: plain text, a command, an issue link, a status pill or a link.
 */

/**
 * Builds the timeline entries of an issue detail, oldest first. Runs of
 * three or more build publications fold into one entry, so that a busy
 * build script does not bury the conversation.
 */
export function buildTimeline(detail) {
  const entries = [];
  for (const c of detail.comments || []) {
    entries.push({ type: 'comment', key: `c${c.id}`, at: c.created_at, comment: c, mergedFrom: c.merged_from || null });
  }
  for (const a of detail.activity || []) {
    const type = a.action === 'merged' ? 'merged' : 'activity';
    entries.push({ type, key: `a${a.id}`, at: a.created_at, activity: a, mergedFrom: a.merged_from || null });
  }
  // Same instant: the activity (a status change) before the comment that caused it.
  entries.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.type === 'comment' ? 1 : y.type === 'comment' ? -1 : 0));
  return foldBuildRuns(entries);
}

function isBuild(e) {
  return e.type === 'activity' && e.activity.action === 'build';
}

function foldBuildRuns(entries) {
  const out = [];
  for (let i = 0; i < entries.length; ) {
    let j = i;
    while (j < entries.length && isBuild(entries[j])) j++;
    if (j - i >= 3) {
      const run = entries.slice(i, j);
      out.push({ type: 'builds', key: `b${run[0].key}`, at: run[run.length - 1].at, runs: run });
      i = j;
    } else {
      out.push(entries[i]);
      i++;
    }
  }
  return out;
}

function parseDetail(detail) {
  if (detail && typeof detail === 'object') return detail;
  try {
    return JSON.parse(detail || '{}') || {};
  } catch {
    return {};
  }
}

function buildName(d) {
  const label = d.label ? ` ${d.label}` : '';
  return d.number ? `build ${d.number}${label}` : `build${label || ' ' + (d.path || '')}`;
}

/** The sentence that says what an activity did, as parts. */
export function describeActivity(activity) {
  const d = parseDetail(activity.detail);
  switch (activity.action) {
    case 'created': {
      const parts = ['filed it as ', { status: d.status || 'reported' }];
      if (d.build) parts.push(` in ${buildName(d.build)}`);
      return parts;
    }
    case 'status': {
      const parts = [];
      if (d.from) parts.push('moved it from ', { status: d.from }, ' to ', { status: d.to });
      else parts.push('moved it to ', { status: d.to });
      if (d.reason === 'verdict') parts.push(' by a verdict');
      else if (d.reason) parts.push(` (${d.reason})`);
      if (d.build) parts.push(` in ${buildName(d.build)}`);
      return parts;
    }
    case 'edited': {
      const fields = Array.isArray(d.fields) ? d.fields : Object.keys(d.changes || {});
      return [fields.length ? `edited ${fields.join(', ')}` : 'edited it'];
    }
    case 'attached':
      return [`attached ${d.filename || 'a file'}`];
    case 'detached':
      return [`removed the file ${d.filename || ''}`.trim()];
    case 'command_sent':
      return ['sent ', { code: d.command || '' }, ' to the game'];
    case 'command_delivered':
      return [`${d.client || activity.actor} picked up `, { code: d.command || '' }];
    case 'plan':
      return describePlan(d);
    case 'parent':
      if (d.parent) return ['made it part of ', { issue: d.parent }];
      if (d.previous) return ['took it out of ', { issue: d.previous }];
      return ['changed its parent'];
    case 'child':
      if (d.op === 'removed') return [{ issue: d.child }, ' is no longer part of it'];
      return [{ issue: d.child }, ' became part of it'];
    case 'merged_into':
      return ['merged it into ', { issue: d.into }];
    case 'merged':
      return ['merged ', { issue: d.from }, ' into it'];
    case 'unmerged':
      if (d.source) return ['unmerged ', { issue: d.source }];
      return ['unmerged it from ', { issue: d.from || '' }];
    case 'build':
      return [`handed over in ${buildName(d)}`];
    case 'landed': {
      const change = String(d.change || '');
      const parts = ['landed ', { href: codeHash({ repo: String(d.repo || '/'), view: 'change', change }), text: change.slice(0, 12) }];
      parts.push(` on ${d.repo} main${d.rebased ? ' (merged on the server)' : ''}`);
      if (d.message) parts.push(`: ${d.message}`);
      return parts;
    }
    default:
      return [activity.action.replace(/_/g, ' ')];
  }
}

function describePlan(d) {
  if (d.op === 'set') {
    const n = Array.isArray(d.steps) ? d.steps.length : d.total || 0;
    return [`${d.replaced ? 'replaced the plan with' : 'set a plan of'} ${n} step${n === 1 ? '' : 's'}`];
  }
  const parts = [`step ${d.index ?? ''}`.trim()];
  if (d.text) parts.push(` “${d.text}”`);
  if (d.from && d.to && d.from !== d.to) parts.push(`: ${d.from} → ${d.to}`);
  else if (d.to) parts.push(`: ${d.to}`);
  if (d.commit) parts.push(' at ', { code: d.commit });
  if (d.note) parts.push(` — ${d.note}`);
  if (d.total) parts.push(` (${d.done}/${d.total})`);
  return parts;
}

/** Plain text of a sentence, for copying and for tests. */
export function partsText(parts) {
  return parts
    .map((p) => (typeof p === 'string' ? p : p.code ?? p.issue ?? p.text ?? statusLabel(p.status)))
    .join('');
}

/** The fields a merged-report card shows, from a "merged" activity. */
export function mergedCard(activity) {
  const d = parseDetail(activity.detail);
  return {
    from: d.from || '',
    title: d.title || '',
    body: d.body || '',
    kind: d.kind || '',
    status: d.status || '',
    source: d.source || '',
    area: d.area || '',
    location: d.location || null,
    createdAt: d.created_at || '',
  };
}

/** The owner's first wording, when an agent rewrote an owner's report. */
export function ownerOriginal(activity) {
  if (activity.action !== 'edited') return null;
  return parseDetail(activity.detail).owner_original || null;
}
