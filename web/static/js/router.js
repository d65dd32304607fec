// Hash routes: #/<project>, #/<project>/<ISSUE-ID>, #/<project>/~handoff,
// #/<project>/~pair (and ~pair/<pair id>), #/~agents, #/~agents/<session id>,
// #/~office and the Code view: #/~code (the repositories),
// #/~code/<owner>/<repo> (its log), .../files/<at>/<path>, .../blame/<at>/<path>,
// .../history/<path>, .../search/<at>/<text> and .../change/<id>. Everything else is the start page.

/**
 * @typedef {{project: string|null, issue: string|null, handoff: boolean, agents: boolean, agent: string|null, pair: boolean, pairId: string|null, office: boolean, code: CodeRoute|null}} Route
 * agent: the agent session open in the Agents view; pairId: the pair open in the Pair view
 */

/**
 * @typedef {{repo: string|null, view: 'log'|'files'|'blame'|'history'|'search'|'change', at: string, path: string, change: string|null, q?: string}} CodeRoute
 * repo: owner/name, null for the list of repositories; at: main or a change id; q: the text a search looks for
 */

const SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ISSUE_ID = /^[A-Za-z][A-Za-z0-9]{0,7}-\d{1,9}$/;
const PAIR_ID = /^p\d{1,12}$/;
// The names of a repository: owner/name, as the server spells them.
const REPO_NAME = /^[A-Za-z0-9._-]{1,100}$/;
const CHANGE_ID = /^[0-9a-f]{64}$/;
// Names in a path: anything but what the server refuses anyway.
const PATH_PART = (p) => p !== '.' && p !== '..' && !p.includes('\0');

/** Reads a location hash into a route. Unknown parts are ignored, never thrown on. */
export function parseRoute(hash) {
  const route = { project: null, issue: null, handoff: false, agents: false, agent: null, pair: false, pairId: null, office: false, code: null };
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
  if (parts[0] === '~code') {
    route.code = parseCode(parts.slice(1));
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

// The Code view's part of an address; a bad part leaves the view at what
// comes before it.
function parseCode(parts) {
  const code = { repo: null, view: 'log', at: 'main', path: '', change: null };
  if (parts.length < 2 || !REPO_NAME.test(parts[0]) || !REPO_NAME.test(parts[1])) return code;
  code.repo = `${parts[0]}/${parts[1]}`;
  const [view, at, ...rest] = parts.slice(2);
  if (view === 'search' && (at === 'main' || CHANGE_ID.test(at || '')) && rest.length === 1) {
    code.view = 'search';
    code.at = at;
    code.q = rest[0];
  } else if (view === 'history' && at && [at, ...rest].every(PATH_PART)) {
    code.view = 'history';
    code.path = [at, ...rest].join('/');
  } else if (view === 'change' && CHANGE_ID.test(at || '')) {
    code.view = 'change';
    code.change = at;
  } else if ((view === 'files' || view === 'blame') && (at === 'main' || CHANGE_ID.test(at || '')) && rest.every(PATH_PART)) {
    code.view = view;
    code.at = at;
    code.path = rest.join('/');
    if (view === 'blame' && !code.path) code.view = 'files';
  }
  return code;
}

/** Writes a Code view's address: a repository, a folder or file, a blame or a change. */
export function codeHash(code) {
  if (!code?.repo) return '#/~code';
  const [owner, name] = code.repo.split('/');
  let hash = `#/~code/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  if (code.view === 'change' && code.change) return `${hash}/change/${code.change}`;
  if (code.view === 'search' && code.q) return `${hash}/search/${code.at || 'main'}/${encodeURIComponent(code.q)}`;
  if (code.view === 'history' && code.path) return `${hash}/history/${code.path.split('/').map(encodeURIComponent).join('/')}`;
  if (code.view === 'files' || code.view === 'blame') {
    hash += `/${code.view}/${code.at || 'main'}`;
    if (code.path) hash += `/${code.path.split('/').map(encodeURIComponent).join('/')}`;
  }
  return hash;
}

/** Writes a route as a location hash. */
export function formatRoute(route) {
  if (route.agents) return route.agent ? `#/~agents/${encodeURIComponent(route.agent)}` : '#/~agents';
  if (route.office) return '#/~office';
  if (route.code) return codeHash(route.code);
  if (!route.project) return '#/';
  let hash = `#/${encodeURIComponent(route.project)}`;
  if (route.handoff) hash += '/~handoff';
  else if (route.pair) hash += route.pairId ? `/~pair/${route.pairId}` : '/~pair';
  else if (route.issue) hash += `/${encodeURIComponent(route.issue)}`;
  return hash;
}
