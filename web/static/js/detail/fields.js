// The issue's fields, each saved as soon as it changes: kind, priority,
// area, tags, source, reference, size, milestone and the parent ("Part of").

import { h, select } from '../dom.js';
import { KINDS, PRIORITIES, SOURCES, SIZES } from '../enums.js';

/**
 * @param {object} detail
 * @param {import('./detail-view.js').DetailContext} ctx
 */
export function detailFields(detail, ctx) {
  const { app } = ctx;
  const save = (field, toValue) => async (e) => {
    const el = e.target;
    const value = toValue(el.value);
    const ok = await app.updateIssue(detail.id, { [field]: value });
    // A refused value goes back to what the server holds.
    if (!ok) el.value = Array.isArray(detail[field]) ? detail[field].join(', ') : detail[field] ?? '';
  };
  const text = (v) => v.trim();
  const listId = `areas-${detail.id}`;

  const field = (label, control, wide) => h('label', { class: `field${wide ? ' wide' : ''}` }, h('span', null, label), control);
  const input = (name, value, props = {}) => h('input', { type: 'text', name, value: value ?? '', onchange: save(name, text), ...props });

  return h(
    'section',
    { class: 'fields', 'aria-labelledby': `fields-${detail.id}` },
    h('h3', { class: 'wide-all', id: `fields-${detail.id}` }, 'Details'),
    field('Kind', select({ name: 'kind', onchange: save('kind', text) }, KINDS, detail.kind)),
    field('Priority', select({ name: 'priority', onchange: save('priority', text) }, PRIORITIES, detail.priority)),
    field('Size', select({ name: 'size', onchange: save('size', text) }, [['', '—'], ...SIZES], detail.size || '')),
    field('Source', select({ name: 'source', onchange: save('source', text) }, SOURCES, detail.source)),
    field('Area', input('area', detail.area, { list: listId, maxlength: '80' })),
    h('datalist', { id: listId }, (app.project?.areas || []).map((a) => h('option', { value: a }))),
    field('Milestone', input('milestone', detail.milestone, { maxlength: '120' })),
    field('Tags', h('input', { type: 'text', name: 'tags', value: (detail.tags || []).join(', '), placeholder: 'comma, separated', onchange: save('tags', (v) => v.split(',').map((t) => t.trim()).filter(Boolean)) })),
    field('Part of', h('input', { type: 'text', name: 'parent', value: detail.parent || '', placeholder: 'e.g. MG-4', onchange: save('parent', (v) => v.trim() || null) })),
    field('Reference', input('external_ref', detail.external_ref, { placeholder: 'a TODO item, a commit', maxlength: '300' }), true),
  );
}
