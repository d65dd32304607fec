// The agents on an open issue: "claude (session 1a2b) is working on this:
// Editing store.go", one line per live session that touched it. The issue's
// detail brings them (its agents field); the page's live list of sessions
// keeps them current without reading the issue again.

import { h, replaceChildren } from '../dom.js';
import { formatRoute } from '../router.js';
import { sessionName, onIssueText, stateClass, doingSince, durationSince } from '../agents/agent-model.js';
import { formatDateTime } from '../format.js';

/** The box, empty and hidden until a session works on the issue. */
export function workingAgentsBox() {
  return h('section', { class: 'working-agents', 'aria-label': 'Agents on this issue', hidden: true });
}

/**
 * Fills the box with the sessions on the issue.
 * @param {HTMLElement} box
 * @param {object[]} sessions as GET /api/issues/{id} lists them, or as GET /api/agents does
 */
export function showWorkingAgents(box, sessions) {
  // The page's sessions change up to a few times a second: the box is
  // redrawn only when what it says changes (the durations count up in
  // place), so it does not churn under the owner's pointer.
  const stamp = JSON.stringify(sessions.map((s) => [s.id, s.state, doingSince(s), sessionName(s), onIssueText(s)]));
  if (box.deskStamp === stamp) return;
  box.deskStamp = stamp;
  box.hidden = sessions.length === 0;
  replaceChildren(box, sessions.map((s) => {
    const since = doingSince(s);
    return h('p', { class: `working-agent ${stateClass(s.state)}`, 'data-session': s.id },
      h('span', { class: 'agent-dot', 'aria-hidden': 'true' }),
      h('span', null,
        h('a', { href: formatRoute({ agents: true, agent: s.id }), title: 'Open the session in the Agents view' }, sessionName(s)),
        onIssueText(s)),
      since ? h('span', { class: 'agent-since', 'data-since': since, title: `Since ${formatDateTime(since)}` }, durationSince(since)) : null);
  }));
}
