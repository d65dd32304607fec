import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backlogGroups, backlogItems, boardColumns, navigationOrder, sizeSummary, groupKey } from '../static/js/list-model.js';
import { listQuery, defaultFilters, cleanFilters } from '../static/js/list-query.js';

const issue = (n, area, size = '', status = 'open') => ({ id: `MG-${n}`, area, size, status });

test('backlog groups by area, alphabetically, with unsized and areas-less last', () => {
  const groups = backlogGroups([issue(1, 'Terrain', 'S'), issue(2, ''), issue(3, 'audio', 'L'), issue(4, 'terrain', 'M'), issue(5, 'Terrain')]);
  assert.deepEqual(groups.map((g) => g.area), ['audio', 'Terrain', '']);
  assert.deepEqual(groups[1].issues.map((i) => i.id), ['MG-1', 'MG-4', 'MG-5']);
  assert.equal(sizeSummary(groups[1].sizes), '1 S · 1 M · 1 unsized');
});

test('collapsed groups keep their header and hide their rows, but keyboard order still reaches them', () => {
  const groups = backlogGroups([issue(1, 'a'), issue(2, 'b'), issue(3, 'b')]);
  const items = backlogItems(groups, new Set([groupKey('b')]));
  assert.deepEqual(items.map((i) => i.key), ['area:a', 'MG-1', 'area:b']);
  assert.deepEqual(navigationOrder('backlog', [], groups, []), ['MG-1', 'MG-2', 'MG-3']);
});

test('board columns follow the shown statuses in the UI order', () => {
  const cols = boardColumns([issue(1, '', '', 'open'), issue(2, '', '', 'to_check'), issue(3, '', '', 'open')], ['open', 'to_check']);
  assert.deepEqual(cols.map((c) => [c.status, c.issues.map((i) => i.id)]), [['to_check', ['MG-2']], ['open', ['MG-1', 'MG-3']]]);
  assert.deepEqual(navigationOrder('board', [], [], cols), ['MG-2', 'MG-1', 'MG-3']);
});

test('list queries: triage uses the chips, backlog its own statuses and order, always summary', () => {
  const f = { ...defaultFilters(), kind: 'check', q: 'lava tips' };
  const triage = new URLSearchParams(listQuery(f, 'triage', 300));
  assert.equal(triage.get('status'), 'to_check,auto_check,reported,failed,open,in_progress');
  assert.equal(triage.get('kind'), 'check');
  assert.equal(triage.get('q'), 'lava tips');
  assert.equal(triage.get('limit'), '300');
  assert.equal(triage.get('summary'), '1');
  assert.equal(triage.get('sort'), null, 'the server picks triage, or relevance for a search');
  const backlog = new URLSearchParams(listQuery(f, 'backlog'));
  assert.equal(backlog.get('status'), 'open,in_progress');
  assert.equal(backlog.get('sort'), 'backlog');
  assert.equal(backlog.get('limit'), '5000');
});

test('saved filters are cleaned', () => {
  assert.deepEqual(cleanFilters({ statuses: ['open', 3], kind: 5, area: 'x' }), { ...defaultFilters(), statuses: ['open'], area: 'x' });
  assert.deepEqual(cleanFilters('junk'), defaultFilters());
});
