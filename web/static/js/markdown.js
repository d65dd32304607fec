// A small markdown renderer for issue bodies, comments and the handoff.
//
// Every character of the source that could form HTML is escaped: the output
// contains only the tags this module writes itself. Links keep only safe
// schemes, and images load only from the desk itself, because the page's
// Content Security Policy would block (and report) any other image.
//
// Supported: headings, paragraphs with line breaks, emphasis, strong,
// strike-through, inline code, fenced code, block quotes, ordered, unordered
// and task lists (nested by indentation), tables, rules, links, autolinks,
// images, and issue references such as MG-3.

import { escapeHtml } from './dom.js';

/**
 * Renders markdown to an HTML string.
 * @param {string} source
 * @param {{issueHref?: (id: string) => (string|null)}} [options]
 *   issueHref turns an issue id into a link target, or null to leave it text.
 */
export function renderMarkdown(source, options = {}) {
  const lines = String(source ?? '').replace(/\r\n?/g, '\n').split('\n');
  return renderBlocks(lines, options, 0);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

// Deeply nested quotes or lists in hostile input must not exhaust the stack.
const MAX_DEPTH = 12;

function renderBlocks(lines, options, depth) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = line.match(FENCE);
    if (fence) {
      const marker = fence[1];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(marker)) body.push(lines[i++]);
      i++; // the closing fence, or the end
      const lang = fence[2] ? ` class="lang-${escapeHtml(fence[2])}"` : '';
      out.push(`<pre><code${lang}>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = line.match(HEADING);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level}>${renderInline(heading[2], options)}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push('<hr>');
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && lines[i].trim() && QUOTE.test(lines[i])) inner.push(lines[i++].replace(QUOTE, ''));
      const body = depth < MAX_DEPTH ? renderBlocks(inner, options, depth + 1) : paragraph(inner, options);
      out.push(`<blockquote>${body}</blockquote>`);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const end = listEnd(lines, i);
      out.push(renderList(lines.slice(i, end), options, depth));
      i = end;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      let end = i + 2;
      while (end < lines.length && lines[end].trim() && lines[end].includes('|')) end++;
      out.push(renderTable(lines.slice(i, end), options));
      i = end;
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !startsBlock(lines, i)) para.push(lines[i++]);
    if (para.length === 0) para.push(lines[i++]);
    out.push(paragraph(para, options));
  }
  return out.join('\n');
}

function startsBlock(lines, i) {
  const line = lines[i];
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

function paragraph(lines, options) {
  return `<p>${lines.map((l) => renderInline(l.trim(), options)).join('<br>\n')}</p>`;
}

function indentOf(line) {
  return line.match(/^\s*/)[0].replace(/\t/g, '    ').length;
}

// A list runs until a blank line followed by something that is neither an
// item nor indented, or until a line that starts another kind of block.
function listEnd(lines, start) {
  const base = indentOf(lines[start]);
  const type = markerType(lines[start]);
  // At the list's own indentation, only items of the same kind continue it.
  const ends = (line) => indentOf(line) <= base && (LIST_ITEM.test(line) ? markerType(line) !== type : startsBlock([line], 0));
  let i = start + 1;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      const next = lines[i + 1];
      if (next === undefined || !next.trim() || ends(next) || (indentOf(next) <= base && !LIST_ITEM.test(next))) break;
      i++;
      continue;
    }
    if (ends(line)) break;
    i++;
  }
  return i;
}

function markerType(line) {
  const m = line.match(LIST_ITEM);
  return m && /\d/.test(m[2]) ? `ordered${m[2].slice(-1)}` : m ? m[2] : '';
}

function renderList(lines, options, depth) {
  const first = lines[0].match(LIST_ITEM);
  const base = indentOf(lines[0]);
  const ordered = /\d/.test(first[2]);
  const items = [];
  let current = null;
  for (const line of lines) {
    const m = line.match(LIST_ITEM);
    if (m && indentOf(line) <= base + 1) {
      current = { lines: [m[3]] };
      items.push(current);
    } else if (current) {
      // Continuation and nested lines lose the item's indentation.
      current.lines.push(line.replace(new RegExp(`^\\s{0,${base + 2}}`), ''));
    }
  }
  const tag = ordered ? 'ol' : 'ul';
  const startNumber = ordered ? parseInt(first[2], 10) : 1;
  const start = ordered && startNumber !== 1 ? ` start="${startNumber}"` : '';
  const task = items.some((it) => /^\[[ xX]\]\s/.test(it.lines[0]));
  const body = items.map((item) => renderItem(item.lines, options, depth)).join('');
  return `<${tag}${start}${task ? ' class="task-list"' : ''}>${body}</${tag}>`;
}

function renderItem(lines, options, depth) {
  let check = '';
  const box = lines[0].match(/^\[([ xX])\]\s+(.*)$/);
  if (box) {
    check = `<input type="checkbox" disabled${box[1] === ' ' ? '' : ' checked'}> `;
    lines = [box[2], ...lines.slice(1)];
  }
  let html;
  if (depth >= MAX_DEPTH) {
    html = paragraph(lines, options);
  } else {
    html = renderBlocks(lines, options, depth + 1);
  }
  // A tight item (no blank line in it) renders its first paragraph without <p>.
  if (!lines.some((l) => !l.trim())) html = html.replace(/^<p>([\s\S]*?)<\/p>\n?/, '$1');
  return `<li${check ? ' class="task"' : ''}>${check}${html}</li>`;
}

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells = [];
  let cell = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (s[i] === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += s[i];
    }
  }
  cells.push(cell.trim());
  return cells;
}

function renderTable(lines, options) {
  const head = splitRow(lines[0]);
  const aligns = splitRow(lines[1]).map((c) => {
    const left = c.startsWith(':');
    const right = c.endsWith(':');
    if (left && right) return ' class="al-center"';
    if (right) return ' class="al-right"';
    return '';
  });
  const cell = (tag, text, col) => `<${tag}${aligns[col] || ''}>${renderInline(text, options)}</${tag}>`;
  const thead = `<tr>${head.map((c, col) => cell('th', c, col)).join('')}</tr>`;
  const rows = lines.slice(2).map((l) => {
    const cells = splitRow(l);
    return `<tr>${head.map((_, col) => cell('td', cells[col] ?? '', col)).join('')}</tr>`;
  });
  return `<div class="table-wrap"><table><thead>${thead}</thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** Returns the URL when its scheme is safe to link to, else null. */
export function safeUrl(url) {
  const raw = String(url ?? '').trim();
  // Browsers ignore control characters and white space inside a scheme.
  const squashed = raw.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();
  const scheme = squashed.match(/^([a-z][a-z0-9+.-]*):/);
  if (!scheme) return raw;
  return ['http', 'https', 'mailto'].includes(scheme[1]) ? raw : null;
}

/** True when an image URL is served by the desk itself (CSP allows only that). */
export function isLocalImage(url) {
  const u = String(url ?? '').trim();
  if (u.startsWith('//')) return false;
  if (u.startsWith('/')) return true;
  return !/^[a-z][a-z0-9+.-]*:/i.test(u) && !u.startsWith('\\');
}

const INLINE_CODE = /(`+)([\s\S]*?[^`])\1(?!`)/g;
const IMAGE = /!\[([^\]]*)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const LINK = /\[([^\]]+)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const AUTOLINK = /<(https?:\/\/[^\s>]+)>|\bhttps?:\/\/[^\s<>"']*[^\s<>"'.,:;!?)\]]/g;
const ISSUE_REF = /\b([A-Z][A-Z0-9]{0,7}-\d{1,9})\b/g;
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

/** Renders one line of inline markdown to HTML. */
export function renderInline(text, options = {}) {
  const stash = [];
  const keep = (html) => `\u0000${stash.push(html) - 1}\u0000`;
  let s = String(text ?? '').replace(/\u0000/g, '');

  s = s.replace(INLINE_CODE, (_, ticks, code) => keep(`<code>${escapeHtml(code.trim() || code)}</code>`));
  s = s.replace(IMAGE, (_, alt, url) => {
    if (isLocalImage(url)) {
      return keep(`<img src="${escapeHtml(url)}" alt="${escapeHtml(alt)}" loading="lazy" class="md-img">`);
    }
    const href = safeUrl(url);
    const label = escapeHtml(alt || url);
    return keep(href ? link(href, label) : label);
  });
  s = s.replace(LINK, (whole, label, url) => {
    const href = safeUrl(url);
    const inner = emphasis(escapeHtml(label));
    return keep(href ? link(href, inner) : inner);
  });
  s = s.replace(AUTOLINK, (whole, bracketed) => {
    const url = bracketed || whole;
    return keep(link(url, escapeHtml(url)));
  });

  s = emphasis(escapeHtml(s));
  if (options.issueHref) {
    s = s.replace(ISSUE_REF, (id) => {
      const href = options.issueHref(id);
      return href ? `<a href="${escapeHtml(href)}" class="issue-ref">${id}</a>` : id;
    });
  }
  // Link labels may themselves hold stashed code spans, so restore until none remain.
  for (let n = 0; n < 3 && s.includes('\u0000'); n++) {
    s = s.replace(PLACEHOLDER, (_, i) => stash[Number(i)] ?? '');
  }
  return s;
}

function link(href, labelHtml) {
  const external = /^https?:/i.test(href);
  const rel = external ? ' target="_blank" rel="noopener noreferrer"' : '';
  return `<a href="${escapeHtml(href)}"${rel}>${labelHtml}</a>`;
}

function emphasis(html) {
  return html
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?=[^\w]|$)/g, '$1<strong>$2</strong>')
    .replace(/(^|[^*\w])\*(?=[^\s*])([^*]*?[^\s*])\*(?!\*)/g, '$1<em>$2</em>')
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_])_(?=[^\w]|$)/g, '$1<em>$2</em>')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>');
}
