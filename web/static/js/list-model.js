// How the loaded issues become the rows of each view: the triage list, the
// backlog in area groups, and the board's status columns. Pure, so the
// grouping rules are tested without a browser.

import { STATUSES } from './enums.js';

/** Row heights in pixels; the CSS gives rows exactly these heights. */
export const ROW_HEIGHT = 64;
export const GROUP_HEIGHT = 36;
export const CARD_HEIGHT = 100;

/** The triage list: one row per issue, in the server's order. */
export function triageItems(issues) {
  return issues.map((issue) => ({ key: issue.id, kind: 'row', height: ROW_HEIGHT, issue }));
}

/**
 * Groups backlog issues by area (alphabetical, issues without an area last),
 * keeping the server's priority and size order inside each group.
 * @returns {{area: string, issues: object[], sizes: {S: number, M: number, L: number, none: number}}[]}
 */
export function backlogGroups(issues) {
  const byArea = new Map();
  for (const issue of issues) {
    const area = (issue.area || '').trim();
    const key = area.toLowerCase();
    if (!byArea.has(key)) byArea.set(key, { area, issues: [], sizes: { S: 0, M: 0, L: 0, none: 0 } });
    const g = byArea.get(key);
    g.issues.push(issue);
    if (issue.size === 'S' || issue.size === 'M' || issue.size === 'L') g.sizes[issue.size]++;
    else g.sizes.none++;
  }
  return [...byArea.values()].sort((a, b) => {
    if (!a.area !== !b.area) return a.area ? -1 : 1;
    return a.area.toLowerCase().localeCompare(b.area.toLowerCase());
  });
}

/** The key under which a group's collapsed state is remembered. */
export function groupKey(area) {
  return `area:${area.toLowerCase()}`;
}

/** Backlog rows: a header per area group, then its issues unless collapsed. */
export function backlogItems(groups, collapsed) {
  const items = [];
  for (const group of groups) {
    const key = groupKey(group.area);
    const isCollapsed = collapsed.has(key);
    items.push({ key, kind: 'group', height: GROUP_HEIGHT, group, collapsed: isCollapsed });
    if (!isCollapsed) {
      for (const issue of group.issues) items.push({ key: issue.id, kind: 'row', height: ROW_HEIGHT, issue });
    }
  }
  return items;
}

/** "3 S · 2 M · 4 unsized" for a group header. */
export function sizeSummary(sizes) {
  const parts = [];
  for (const s of ['S', 'M', 'L']) if (sizes[s]) parts.push(`${sizes[s]} ${s}`);
  if (sizes.none) parts.push(`${sizes.none} unsized`);
  return parts.join(' · ');
}

/** Board columns, one per shown status in the UI's status order. */
export function boardColumns(issues, statuses) {
  const shown = STATUSES.filter((s) => statuses.length === 0 || statuses.includes(s));
  const columns = new Map(shown.map((s) => [s, []]));
  for (const issue of issues) columns.get(issue.status)?.push(issue);
  return shown.map((status) => ({
    status,
    issues: columns.get(status),
    items: columns.get(status).map((issue) => ({ key: issue.id, kind: 'card', height: CARD_HEIGHT, issue })),
  }));
}

/** The order keyboard movement follows: every issue of the view, including
 * those in collapsed groups and outside the rendered window. */
export function navigationOrder(view, issues, groups, columns) {
  if (view === 'backlog') return groups.flatMap((g) => g.issues.map((i) => i.id));
  if (view === 'board') return columns.flatMap((c) => c.issues.map((i) => i.id));
  return issues.map((i) => i.id);
}
