// What the desk says about agent sessions: their states in the order they
// need the owner, the words for what each one is doing, how they nest, which
// ones fold away, and which changes deserve an alert. Pure functions over
// the sessions of GET /api/agents, so node tests can check every rule.

/** Session states, the ones that need the owner first (the server's order). */
export const STATES = ['needs_permission', 'waiting_input', 'working', 'done', 'unknown', 'ended'];

export const STATE_LABELS = {
  needs_permission: 'Needs permission',
  waiting_input: 'Waiting for input',
  working: 'Working',
  done: 'Done',
  unknown: 'Unknown',
  ended: 'Ended',
};

const RANK = new Map(STATES.map((state, i) => [state, i]));

// Ended sessions stay in view this long; older ones fold under a button, so
// a week of finished sessions never buries the ones at work.
export const FOLD_ENDED_AFTER_MS = 10 * 60 * 1000;

export function stateLabel(state) {
  return STATE_LABELS[state] || STATE_LABELS.unknown;
}

/** The CSS class that colours a state (unknown for anything the page does not know). */
export function stateClass(state) {
  return `ag-${RANK.has(state) ? state : 'unknown'}`;
}

function rank(state) {
  return RANK.get(state) ?? RANK.get('unknown');
}

/** True for the states in which the agent waits for its owner. */
export function needsOwner(state) {
  return state === 'needs_permission' || state === 'waiting_input';
}

/** True for the states shown dimmed: nothing is known, or nothing will happen. */
export function isDim(state) {
  return state === 'unknown' || state === 'ended' || !RANK.has(state);
}

/** "1a2b": enough of a session id to tell sessions apart in a sentence. */
export function shortId(id) {
  const s = String(id ?? '');
  return s.replace(/[^A-Za-z0-9]/g, '').slice(0, 4) || s.slice(0, 4);
}

/** "…/game/web" for "/home/me/src/game/web": the part of a folder that tells repos apart. */
export function shortFolder(cwd) {
  const parts = String(cwd ?? '').split(/[\\/]+/).filter(Boolean);
  if (parts.length === 0) return cwd ? String(cwd) : '';
  if (parts.length <= 2) return String(cwd);
  return `…/${parts.slice(-2).join('/')}`;
}

/** "desk-gosdk: echo" for an MCP tool ("mcp__desk-gosdk__echo"), else the tool's own name. */
export function toolName(tool) {
  const m = /^mcp__(.+?)__(.+)$/.exec(tool || '');
  return m ? `${m[1]}: ${m[2]}` : tool || '';
}

/** When the session's current doing began: the tool it runs, else its state. */
export function doingSince(session) {
  return (session.state === 'working' && session.activity?.since) || session.since || '';
}

/** "8s", "3m 04s", "2h 05m", "3d 4h": how long, to the second while it is short. */
export function durationText(ms) {
  const total = Math.max(0, Math.floor((Number(ms) || 0) / 1000));
  if (total < 60) return `${total}s`;
  const m = Math.floor(total / 60);
  if (m < 60) return `${m}m ${String(total % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** How long since an ISO time, as durationText; "" when there is no time. */
export function durationSince(iso, now = Date.now()) {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : durationText(now - t);
}

/**
 * What the session works on, beside its state (so never repeating it): the
 * tool it runs, the permission it asks for, else the server's note on why
 * the state is what it is.
 */
export function activityText(session) {
  if (session.state === 'working') return session.activity?.label || '';
  if (session.state === 'needs_permission') return session.permission?.label || toolName(session.permission?.tool);
  return session.note || '';
}

/** The few words an issue's row shows after the client's name. */
function markText(session) {
  switch (session.state) {
    case 'working':
      return session.activity?.label || 'working';
    case 'needs_permission':
      return 'needs permission';
    case 'waiting_input':
      return 'waiting for input';
    case 'done':
      return 'done';
    default:
      return 'state unknown';
  }
}

/** "claude (session 1a2b)": who, in a sentence. */
export function sessionName(session) {
  return `${session.client || 'agent'} (session ${shortId(session.id)})`;
}

/** What an open issue says about a session on it, after the session's name. */
export function onIssueText(session) {
  switch (session.state) {
    case 'working':
      return ` is working on this: ${session.activity?.label || 'thinking'}`;
    case 'needs_permission':
      return session.permission?.label ? ` needs your permission: ${session.permission.label}` : ' needs your permission';
    case 'waiting_input':
      return ' is waiting for your input';
    case 'done':
      return ' finished its turn on this';
    default:
      return ' worked on this; what it does now is unknown';
  }
}

/**
 * The marker of a session on an issue's row: its colour, its short text
 * ("claude · Editing store.go") and a longer tooltip.
 */
export function issueMark(session) {
  return {
    id: session.id,
    state: RANK.has(session.state) ? session.state : 'unknown',
    text: `${session.client || 'agent'} · ${markText(session)}`,
    title: `${sessionName(session)}${onIssueText(session)}`,
  };
}

/**
 * The live sessions on each issue, the ones that need the owner first:
 * a map from issue key to sessions. Ended sessions are no one's worker.
 */
export function issueIndex(sessions) {
  const index = new Map();
  for (const s of sortByAttention(sessions)) {
    if (s.state === 'ended') continue;
    for (const key of s.issues || []) {
      const list = index.get(key);
      if (list) list.push(s);
      else index.set(key, [s]);
    }
  }
  return index;
}

/** A stable copy of sessions, the ones that need the owner first; ties keep their order. */
export function sortByAttention(sessions) {
  return sessions
    .map((s, i) => [s, i])
    .sort((a, b) => rank(a[0].state) - rank(b[0].state) || a[1] - b[1])
    .map(([s]) => s);
}

/**
 * Sessions as a tree: sub-agents under the session that started them.
 * A session whose parent is not in the list stands on its own. A family
 * takes the place of its most urgent member, so a sub-agent stuck on a
 * permission lifts its session to the top.
 * @returns {{session: object, children: object[]}[]}
 */
export function sessionTree(sessions) {
  const sorted = sortByAttention(sessions);
  const ids = new Set(sorted.map((s) => s.id));
  const childrenOf = new Map();
  const roots = [];
  for (const s of sorted) {
    if (s.parent && s.parent !== s.id && ids.has(s.parent)) {
      if (!childrenOf.has(s.parent)) childrenOf.set(s.parent, []);
      childrenOf.get(s.parent).push(s);
    } else {
      roots.push(s);
    }
  }
  const placed = new Set();
  const families = [];
  const addFamily = (session) => {
    placed.add(session.id);
    const children = descendants(session.id, childrenOf, placed);
    const best = Math.min(rank(session.state), ...children.map((c) => rank(c.state)));
    families.push({ session, children, best, order: families.length });
  };
  for (const s of roots) addFamily(s);
  // Parents that name each other in a loop reach no root; they still show.
  for (const s of sorted) if (!placed.has(s.id)) addFamily(s);
  families.sort((a, b) => a.best - b.best || a.order - b.order);
  return families.map(({ session, children }) => ({ session, children }));
}

// Sub-agents of sub-agents are listed with the top session, flat: one
// level of nesting reads well, more does not.
function descendants(id, childrenOf, placed) {
  const out = [];
  for (const child of childrenOf.get(id) || []) {
    if (placed.has(child.id)) continue;
    placed.add(child.id);
    out.push(child, ...descendants(child.id, childrenOf, placed));
  }
  return out;
}

/**
 * Splits a tree into what shows and what folds away: sessions that ended
 * longer than FOLD_ENDED_AFTER_MS ago, with no sub-agent still going.
 */
export function foldEnded(tree, now = Date.now(), after = FOLD_ENDED_AFTER_MS) {
  const shown = [];
  const folded = [];
  for (const node of tree) {
    const old = (s) => s.state === 'ended' && now - Date.parse(s.since || s.updated_at || 0) > after;
    if (old(node.session) && node.children.every(old)) folded.push(node);
    else shown.push(node);
  }
  return { shown, folded };
}

/** Filter values: '' is every value; project '-' is "no project"; state 'attention' is both waiting states. */
export const NO_PROJECT = '-';
export const ATTENTION = 'attention';

export function defaultAgentFilters() {
  return { project: '', state: '', client: '' };
}

/** Keeps only filter values of the right type, so a stored value never breaks the view. */
export function cleanAgentFilters(saved) {
  const f = defaultAgentFilters();
  if (saved && typeof saved === 'object') {
    for (const key of Object.keys(f)) if (typeof saved[key] === 'string') f[key] = saved[key];
  }
  if (f.state && f.state !== ATTENTION && !RANK.has(f.state)) f.state = '';
  return f;
}

export function filterSessions(sessions, f) {
  return sessions.filter((s) => {
    if (f.project === NO_PROJECT ? s.project : f.project && s.project !== f.project) return false;
    if (f.state === ATTENTION ? !needsOwner(s.state) : f.state && s.state !== f.state) return false;
    if (f.client && s.client !== f.client) return false;
    return true;
  });
}

/** The values the filters offer: the projects and clients the sessions have, sorted, plus the chosen ones. */
export function filterChoices(sessions, f) {
  const projects = new Set(sessions.map((s) => s.project).filter(Boolean));
  const clients = new Set(sessions.map((s) => s.client).filter(Boolean));
  if (f.project && f.project !== NO_PROJECT) projects.add(f.project);
  if (f.client) clients.add(f.client);
  const byName = (a, b) => a.localeCompare(b);
  return { projects: [...projects].sort(byName), clients: [...clients].sort(byName), unlinked: sessions.some((s) => !s.project) };
}

/** "1 needs permission · 2 working": a count of every state present, in attention order. */
export function summaryText(sessions) {
  const counts = new Map();
  for (const s of sessions) counts.set(s.state, (counts.get(s.state) || 0) + 1);
  const words = {
    needs_permission: (n) => `${n} ${n === 1 ? 'needs' : 'need'} permission`,
    waiting_input: (n) => `${n} waiting for input`,
    working: (n) => `${n} working`,
    done: (n) => `${n} done`,
    unknown: (n) => `${n} unknown`,
    ended: (n) => `${n} ended`,
  };
  const parts = STATES.filter((s) => counts.get(s)).map((s) => words[s](counts.get(s)));
  return parts.length ? parts.join(' · ') : 'No sessions';
}

/** The number of sessions that wait for their owner. */
export function attentionCount(sessions) {
  return sessions.reduce((n, s) => n + (needsOwner(s.state) ? 1 : 0), 0);
}

/** What a later load compares with: each session's state and since, by id. */
export function stateSnapshot(sessions) {
  return new Map(sessions.map((s) => [s.id, { state: s.state, since: s.since }]));
}

/**
 * The sessions that came to need their owner since `before` (a
 * stateSnapshot; null on the first load, which alerts about nothing). A
 * permission request always counts; waiting for input counts only for a
 * session seen before in another state, since a session that just started
 * waits for the prompt its owner is typing.
 */
export function attentionEntered(before, sessions) {
  if (!before) return [];
  return sessions.filter((s) => {
    if (!needsOwner(s.state)) return false;
    const was = before.get(s.id);
    if (!was) return s.state === 'needs_permission';
    return was.state !== s.state || was.since !== s.since;
  });
}

/** The title and body of an alert about a session that needs its owner. */
export function alertText(session) {
  const where = [session.project, shortFolder(session.cwd)].filter(Boolean).join(' · ');
  if (session.state === 'needs_permission') {
    return { title: `${session.client || 'An agent'} needs your permission`, body: [session.permission?.label, where].filter(Boolean).join('\n') };
  }
  return { title: `${session.client || 'An agent'} is waiting for your input`, body: where };
}

/** A line of a session's timeline: what the event says and how it is coloured. */
export function eventLine(event) {
  const tool = toolName(event.tool);
  const what = [tool, event.input].filter(Boolean).join(': ');
  const message = event.message ? ` — ${event.message}` : '';
  switch (event.kind) {
    case 'session_start':
      return { text: event.reason && event.reason !== 'startup' ? `Session started (${event.reason})` : 'Session started', tone: 'quiet' };
    case 'session_end':
      return { text: event.reason ? `Session ended (${event.reason})` : 'Session ended', tone: 'quiet' };
    case 'prompt':
      return { text: 'Prompt submitted: a new turn', tone: 'working' };
    case 'busy':
      return { text: 'Working', tone: 'working' };
    case 'tool_start':
      return { text: what ? `Started ${what}` : 'Started a tool', tone: 'working' };
    case 'tool_end':
      return { text: tool ? `Finished ${tool}` : 'Finished a tool', tone: 'quiet' };
    case 'tool_failed':
      return { text: `${tool || 'A tool'} failed${message}`, tone: 'failed' };
    case 'tool_progress':
      return { text: `${tool || 'A tool'} is making progress${message}`, tone: 'quiet' };
    case 'permission_request':
      return { text: what ? `Asked permission for ${what}` : 'Asked for permission', tone: 'needs_permission' };
    case 'permission_result':
      return { text: `Permission answered${event.reason ? `: ${event.reason}` : ''}`, tone: 'working' };
    case 'notification_permission':
      return { text: `Waits for an approval${message}`, tone: 'needs_permission' };
    case 'notification_idle':
      return { text: `Waits for input${message}`, tone: 'waiting_input' };
    case 'message':
      return { text: 'Wrote a message', tone: 'quiet' };
    case 'stop':
      return { text: 'Finished its turn', tone: 'done' };
    case 'stop_failed':
      return { text: `The turn ended with an error${event.reason ? ` (${event.reason})` : ''}${message}`, tone: 'failed' };
    case 'interrupt':
      return { text: 'Interrupted by its owner', tone: 'quiet' };
    case 'subagent_start':
      return { text: 'A sub-agent started', tone: 'working' };
    case 'subagent_stop':
      return { text: 'A sub-agent finished', tone: 'quiet' };
    case 'compact':
      return { text: 'Compacting its context', tone: 'working' };
    case 'heartbeat':
      return { text: 'Still there', tone: 'quiet' };
    case 'notice':
      return { text: event.message || event.name || 'Notice', tone: 'quiet' };
    default:
      return { text: event.name || event.kind || 'Event', tone: 'quiet' };
  }
}
