// The vocabulary of the desk as the UI shows it. Values are the wire names
// of the HTTP API; labels are what the owner reads.

/** Statuses in the order the UI lists them: what waits for the owner first.
 * Keys 1-9 pick one status in this order. */
export const STATUSES = [
  'to_check', 'auto_check', 'reported', 'failed', 'open', 'in_progress', 'parked', 'passed', 'closed',
];

/** The statuses of the default view: everything not finished and not parked. */
export const UNFINISHED = ['to_check', 'auto_check', 'reported', 'failed', 'open', 'in_progress'];

export const DONE = ['passed', 'closed'];

export const STATUS_LABELS = {
  reported: 'Reported',
  open: 'Open',
  in_progress: 'In progress',
  auto_check: 'Auto check',
  to_check: 'To check',
  passed: 'Passed',
  failed: 'Failed',
  parked: 'Parked',
  closed: 'Closed',
};

export const KINDS = ['bug', 'check', 'idea', 'task'];

export const PRIORITIES = ['p0', 'p1', 'p2', 'p3'];

export const SOURCES = ['owner', 'agent', 'game'];
export const SIZES = ['S', 'M', 'L'];

export const SORTS = [
  ['triage', 'Triage order'],
  ['updated', 'Recently updated'],
  ['created', 'Newest'],
  ['oldest', 'Oldest'],
  ['priority', 'Priority'],
  ['number', 'Number'],
  ['backlog', 'Backlog order'],
];

export const NOTIFY_EVENTS = [
  ['comments', 'Comments and plan notes'],
  ['verdicts', 'Verdicts (Passed, Still broken)'],
  ['reports', 'New reports from the owner or the game'],
  ['status', 'Status changes and merges'],
];

/** Agent clients that can lead a project (opencode cannot: it reads the
 * desk only when a session starts). */
export const LEAD_CLIENTS = ['claude', 'codex', 'antigravity', 'muse', 'gemini', 'qwen', 'kimi', 'grok', 'pi'];

export const HANDOFF_SECTIONS = ['State', 'Where work stopped', 'Verified', 'Next step', 'Traps'];

/** The name the owner writes under in comments, edits and verdicts. */
export const OWNER = 'owner';

export function statusLabel(status) {
  return STATUS_LABELS[status] || status;
}

export function isDone(status) {
  return DONE.includes(status);
}
