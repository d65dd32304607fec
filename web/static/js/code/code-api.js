// The code routes (/v1/code/<owner>/<repo>/...) as desk's own page reads
// them. They take a Bearer token from the thin client; the page sends its
// own token instead, which the local desk takes as the owner's (see
// docs/code.md), so no identity token ever sits in the page.

import { getJSON, getRaw, pageToken } from '../api.js';

const enc = encodeURIComponent;

function base(repo) {
  const [owner, name] = repo.split('/');
  return `/v1/code/${enc(owner)}/${enc(name)}`;
}

function pathPart(path) {
  return path ? `/${path.split('/').map(enc).join('/')}` : '';
}

/** The URLs of the code routes the page reads. */
export const codePaths = {
  repos: () => '/v1/repos',
  head: (repo) => `${base(repo)}/head`,
  log: (repo, { before = 0, limit = 50, path = '' } = {}) => {
    const q = new URLSearchParams({ limit: String(limit) });
    if (before) q.set('before', String(before));
    if (path) q.set('path', path);
    return `${base(repo)}/log?${q}`;
  },
  change: (repo, id) => `${base(repo)}/changes/${enc(id)}`,
  files: (repo, at, path) => `${base(repo)}/files/${enc(at)}${pathPart(path)}`,
  blame: (repo, at, path) => `${base(repo)}/blame/${enc(at)}${pathPart(path)}`,
  diff: (repo, from, to) => `${base(repo)}/diff/${enc(from)}/${enc(to)}`,
  overlaps: (repo) => `${base(repo)}/overlaps`,
  search: (repo, at, q) => `${base(repo)}/search/${enc(at)}?${new URLSearchParams({ q })}`,
};

function withToken(options = {}) {
  return { ...options, headers: { ...options.headers, 'X-Desk-Token': pageToken() } };
}

/** GETs a JSON code route as the page. */
export function codeJSON(url, options) {
  return getJSON(url, withToken(options));
}

/** GETs a code route's bytes as the page: {bytes, headers}. */
export async function codeBytes(url, options) {
  const res = await getRaw(url, withToken(options));
  return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
}

/** The repositories the page may read (all of them: the page is the owner). */
export async function listRepos(options) {
  const data = await codeJSON(codePaths.repos(), options);
  return data.repos || [];
}
