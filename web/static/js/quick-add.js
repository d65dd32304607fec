// The quick-add grammar: "Title !p1 @area +bug #tag". Markers may stand
// anywhere; what is left is the title.

import { KINDS } from './enums.js';

/**
 * Splits a quick-add line into the fields of a new issue.
 * @returns {{title: string, priority?: string, kind?: string, area?: string, tags: string[], error?: string}}
 */
export function parseQuickAdd(line) {
  const result = { title: '', tags: [] };
  const words = [];
  for (const word of String(line ?? '').trim().split(/\s+/).filter(Boolean)) {
    const lower = word.toLowerCase();
    if (/^!p[0-3]$/.test(lower)) {
      result.priority = lower.slice(1);
    } else if (lower.startsWith('+') && KINDS.includes(lower.slice(1))) {
      result.kind = lower.slice(1);
    } else if (word.length > 1 && word.startsWith('@')) {
      // Underscores stand for spaces, so an area can have several words.
      result.area = word.slice(1).replace(/_/g, ' ');
    } else if (/^#[^\s#]+$/.test(word) && !/^#\d+$/.test(word)) {
      const tag = word.slice(1);
      if (!result.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) result.tags.push(tag);
    } else {
      words.push(word);
    }
  }
  result.title = words.join(' ');
  if (!result.title) result.error = 'Write a title: the words that are not !p1, @area, +kind or #tag.';
  return result;
}

/** Says what a quick-add line will create, for the hint under the bar. */
export function describeQuickAdd(parsed) {
  if (!parsed.title) return '';
  const parts = [parsed.kind || 'bug', parsed.priority || 'p2'];
  if (parsed.area) parts.push(`area ${parsed.area}`);
  for (const t of parsed.tags) parts.push(`#${t}`);
  return parts.join(' · ');
}

