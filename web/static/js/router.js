// Hash routes: #/<project>, #/<project>/<ISSUE-ID>, #/<project>/~handoff,
// #/<project>/~pair (and ~pair/<pair id>), #/~agents, #/~agents/<session id>
// and #/~office. Everything else is the start page.

/**
 * @typedef {{project: string|null, issue: string|null, handoff: boolean, agents: boolean, agent: string|null, pair: boolean, pairId: string|null, office: boolean}} Route
 * agent: the agent session open in the Agents view; pairId: the pair open in the Pair view
 */

const SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ISSUE_ID = /^[A-Za-z][A-Za-z0-9]{0,7}-\d{1,9}$/;
const PAIR_ID = /^p\d{1,12}$/;

/** Reads a location hash into a route. Unknown parts are ignored, never thrown on. */
export function parseRoute(hash) {
  const route = { project: null, issue: null, handoff: false, agents: false, agent: null, pair: false, pairId: null, office: false };
  const parts = String(hash ?? '')
    .replace(/^#\/?/, '')
    .split('/')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return '';
      }
    })
    .filter(Boolean);
  if (parts[0] === '~agents') {
    route.agents = true;
    // Session ids are the clients' own; any text is fine, it is only looked up.
    route.agent = parts[1] || null;
    return route;
  }
  if (parts[0] === '~office') {
    route.office = true;
    return route;
  }
  if (!parts[0] || !SLUG.test(parts[0])) return route;
  route.project = parts[0];
  if (parts[1] === '~handoff') {
    route.handoff = true;
  } else if (parts[1] === '~pair') {
    route.pair = true;
    if (parts[2] && PAIR_ID.test(parts[2])) route.pairId = parts[2];
  } else if (parts[1] && ISSUE_ID.test(parts[1])) {
    route.issue = parts[1].toUpperCase();
  }
  return route;
}

/** Writes a route as a location hash. */
export function formatRoute(route) {
  if (route.agents) return route.agent ? `#/~agents/${encodeURIComponent(route.agent)}` : '#/~agents';
  if (route.office) return '#/~office';
  if (!route.project) return '#/';
  let hash = `#/${encodeURIComponent(route.project)}`;
  if (route.handoff) hash += '/~handoff';
  else if (route.pair) hash += route.pairId ? `/~pair/${route.pairId}` : '/~pair';
  else if (route.issue) hash += `/${encodeURIComponent(route.issue)}`;
  return hash;
}
