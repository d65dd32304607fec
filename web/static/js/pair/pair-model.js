// What the Pair view shows of a pair, worked out without the DOM so that it
// can be tested on its own: which pair to open, how a transcript entry reads
// in the conversation, and which of the round's gates the owner can lift.

/** The phases of a round, in order (package pair's Phases). */
export const PHASES = ['scoping', 'plan', 'code', 'review', 'test', 'pr', 'done'];

/** The entries of the conversation: what the members said, wrote and decided, and what was refused. */
export const CHAT_KINDS = new Set([
  'created', 'joined', 'claim', 'release', 'advance', 'veto', 'round_closed', 'round_opened', 'letter', 'note', 'task', 'patch',
  'evidence', 'refusal', 'owner_ok', 'unblock_approved', 'unblock_refused', 'restart', 'stopped', 'swap', 'report', 'budget',
  'delivered', 'nudge', 'patch_waiting', 'pilot_parked', 'seated', 'round_report',
]);

/**
 * The pair to open: the one the address names, else the newest live one,
 * else the newest.
 * @param {Array<{id: string, status: string}>} pairs newest first
 */
export function pickPair(pairs, wanted) {
  if (!pairs.length) return null;
  return pairs.find((p) => p.id === wanted) || pairs.find((p) => p.status === 'live') || pairs[0];
}

/** The letter's addressees, from its entry's detail. */
function recipients(entry) {
  const to = entry.detail && Array.isArray(entry.detail.to) ? entry.detail.to : [];
  return to.join(', ');
}

/**
 * How one transcript entry reads in the conversation.
 * @returns {{kind: string, who: string, to: string, text: string, tone: string, rule: string}}
 *   tone: letter, refusal, good, authority or plain
 */
export function chatEntry(entry) {
  const out = { kind: entry.kind, who: entry.role, to: '', text: entry.text, tone: 'plain', rule: entry.rule || '' };
  switch (entry.kind) {
    case 'letter':
      out.tone = 'letter';
      out.to = recipients(entry);
      break;
    case 'refusal':
    case 'unblock_refused':
      out.tone = 'refusal';
      break;
    case 'round_closed':
    case 'owner_ok':
    case 'unblock_approved':
      out.tone = 'good';
      break;
    case 'claim':
    case 'release':
    case 'advance':
    case 'veto':
    case 'round_opened':
      out.tone = 'authority';
      break;
    default:
  }
  return out;
}

/** Keeps the conversation's entries, dropping the ones already shown (by id). */
export function mergeEntries(shown, fresh) {
  const seen = new Set(shown.map((e) => e.id));
  const out = shown.slice();
  for (const e of fresh) {
    if (!seen.has(e.id) && CHAT_KINDS.has(e.kind)) {
      out.push(e);
      seen.add(e.id);
    }
  }
  out.sort((a, b) => a.id - b.id);
  return out;
}

/** True when the round waits for the owner's word (semi) and the owner may give it now. */
export function needsOwnersWord(state) {
  return state.status === 'live' && (state.blocking || []).some((g) => g.rule === 'semi_needs_ok');
}

/** A member's line on the roster. */
export function memberLine(m) {
  const parts = [];
  if (m.writer) parts.push('writer');
  else if (m.left) parts.push('left');
  else if (!m.live) parts.push(m.session ? 'starting' : 'not started');
  else parts.push('critic');
  if (m.of) parts.push(`instance of ${m.of}`);
  if (m.unread) parts.push(`${m.unread} unread`);
  return parts.join(' · ');
}
