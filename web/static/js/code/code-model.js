// What the Code view shows, worked out from the code routes' answers:
// intents as links to issues, a change's diff split by file, blame lines
// in runs of one change, overlaps as cards, a folder's path as crumbs.
// Pure, so it is tested without a browser.

import { parseUnifiedDiff, diffStats } from '../diff.js';

/** The first twelve characters of a change id, as the CLI prints it. */
export function shortId(id) {
  return String(id || '').slice(0, 12);
}

/** The first line of a change's message. */
export function firstLine(message) {
  const line = String(message ?? '').split('\n', 1)[0].trim();
  return line || '(no message)';
}

/** The name of an author without the email an imported change carries. */
export function authorName(author) {
  const a = String(author ?? '');
  const at = a.indexOf(' <');
  return at > 0 && a.endsWith('>') ? a.slice(0, at) : a;
}

/**
 * An intent (MG-12) with the address of its issue: the project whose
 * prefix it carries, or null when no project of this desk has it.
 * @param {string} intent
 * @param {{slug: string, prefix: string}[]} projects
 * @returns {{id: string, href: string|null}}
 */
export function intentLink(intent, projects) {
  const id = String(intent).toUpperCase();
  const prefix = id.slice(0, id.lastIndexOf('-'));
  const p = (projects || []).find((x) => String(x.prefix || '').toUpperCase() === prefix);
  return { id, href: p ? `#/${encodeURIComponent(p.slug)}/${encodeURIComponent(id)}` : null };
}

/**
 * The unified diff of two snapshots, one part per file:
 * {path, status: 'added'|'deleted'|'modified'|'mode', binary, lines, added, removed}.
 * lines are the hunks' lines (as parseUnifiedDiff reads them).
 */
export function diffFiles(text) {
  const files = [];
  let cur = null;
  let body = [];
  const close = () => {
    if (!cur) return;
    const lines = numberDiff(parseUnifiedDiff(body.join('\n')).filter((l) => l.type !== 'meta'));
    files.push({ ...cur, lines, ...diffStats(lines) });
  };
  for (const line of String(text ?? '').replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith('diff --git ')) {
      close();
      const m = line.match(/^diff --git a\/(.*) b\/(.*)$/);
      cur = { path: m ? m[2] : line.slice(11), status: 'modified', binary: false };
      body = [];
      continue;
    }
    if (!cur) continue;
    if (body.length === 0 && !line.startsWith('@@')) {
      // The header lines of the file's part, before its first hunk.
      if (line.startsWith('new file mode')) cur.status = 'added';
      else if (line.startsWith('deleted file mode')) cur.status = 'deleted';
      else if (line.startsWith('old mode') && cur.status === 'modified') cur.status = 'mode';
      else if (line.startsWith('Binary files')) cur.binary = true;
      continue;
    }
    body.push(line);
  }
  close();
  return files;
}

// Gives each line of a file's hunks its numbers in the old and the new
// file (old on removed and context lines, new on added and context lines).
function numberDiff(lines) {
  let o = 0;
  let n = 0;
  return lines.map((l) => {
    if (l.type === 'hunk') {
      const m = l.text.match(/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/);
      if (m) {
        o = Number(m[1]);
        n = Number(m[2]);
      }
      return { ...l, old: null, new: null };
    }
    if (l.type === 'add') return { ...l, old: null, new: n++ };
    if (l.type === 'del') return { ...l, old: o++, new: null };
    return { ...l, old: o++, new: n++ };
  });
}

/**
 * Blame lines in runs: consecutive lines made by one change form one run,
 * whose first line names the change.
 * @returns {{change: string, author: string, time: string, lines: object[]}[]}
 */
export function blameRuns(lines) {
  const runs = [];
  for (const l of lines || []) {
    const last = runs[runs.length - 1];
    if (last && last.change === l.change) last.lines.push(l);
    else runs.push({ change: l.change, author: l.author, time: l.time, lines: [l] });
  }
  return runs;
}

/**
 * An overlap (two open changes of two work folders on the same paths) as
 * the words of its amber card.
 * @returns {{key: string, title: string, shared: string[], sides: {change: string, author: string, workspace: string, intents: string[], sent_at: string}[]}}
 */
export function overlapCard(pair) {
  const sides = [pair.a, pair.b];
  const shared = pair.shared || [];
  const what = shared.length === 1 ? shared[0] : `${shared.length} paths`;
  const a = authorName(pair.a.author);
  const b = authorName(pair.b.author);
  return {
    key: `${pair.a.change}/${pair.b.change}`,
    title: a === b ? `Two open changes of ${a} touch ${what}` : `${a} and ${b} both change ${what}`,
    shared,
    sides,
  };
}

/** The crumbs of a path in a snapshot: the root, then each folder to it. */
export function crumbs(path) {
  const out = [{ name: 'root', path: '' }];
  const parts = String(path || '').split('/').filter(Boolean);
  parts.forEach((name, i) => out.push({ name, path: parts.slice(0, i + 1).join('/') }));
  return out;
}

/** The folder that holds a path ('' for the root). */
export function parentPath(path) {
  const i = String(path || '').lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Folders first, then files, each by name (as the server sends them within each). */
export function sortEntries(entries) {
  return [...(entries || [])].sort((x, y) => (x.type === y.type ? 0 : x.type === 'tree' ? -1 : 1));
}

/**
 * A file's bytes as text, or null when they are not text (not UTF-8, or a
 * NUL byte): those are shown as a size, never as garbage.
 * @param {Uint8Array} bytes
 */
export function textOf(bytes) {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** A file's text as numbered lines (a last newline ends the last line, it makes no empty one). */
export function numberedLines(text) {
  const lines = String(text).split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((t, i) => ({ n: i + 1, text: t }));
}
