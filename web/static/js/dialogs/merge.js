// Merge into… and Group under…: the selected issues, and a choice of the
// one that stays (the oldest by default).

import { h } from '../dom.js';
import { openDialog } from './dialog.js';
import { oldestFirst } from '../selection.js';

function targetChoices(ids, app, name) {
  const sorted = oldestFirst(ids);
  return {
    sorted,
    list: h('fieldset', { class: 'choice-list' }, sorted.map((id, i) => {
      const issue = app.issueById(id);
      return h('label', { class: 'choice' },
        h('input', { type: 'radio', name, value: id, checked: i === 0 }),
        h('span', { class: 'row-id' }, id),
        h('span', { class: 'choice-title' }, issue?.title || ''));
    })),
  };
}

/** @param {import('../app.js').DeskApp} app */
export function mergeDialog(app, ids) {
  const { list } = targetChoices(ids, app, 'target');
  openDialog({
    title: `Merge ${ids.length} issues`,
    submitLabel: 'Merge',
    body: [
      h('p', { class: 'field-hint' }, 'Keep one; the others fold into it with their comments, files and history, and their ids lead to it. Unmerge undoes it.'),
      h('p', { class: 'field-hint' }, h('strong', null, 'Keep:')),
      list,
    ],
    onSubmit: async (form) => {
      const target = form.querySelector('input[name="target"]:checked')?.value;
      if (!target) throw new Error('Pick the issue to keep.');
      await app.merge(target, ids.filter((id) => id !== target));
    },
  });
}

/** @param {import('../app.js').DeskApp} app */
export function groupDialog(app, ids) {
  const { list } = targetChoices(ids, app, 'parent');
  const other = h('input', { type: 'text', placeholder: 'or another issue, e.g. MG-4', 'aria-label': 'Another parent issue' });
  openDialog({
    title: `Group ${ids.length} issues`,
    submitLabel: 'Group',
    body: [
      h('p', { class: 'field-hint' }, 'The parent collects the others as its parts; each part keeps its own status and history.'),
      h('p', { class: 'field-hint' }, h('strong', null, 'Parent:')),
      list,
      other,
    ],
    onSubmit: async (form) => {
      const typed = other.value.trim().toUpperCase();
      const parent = typed || form.querySelector('input[name="parent"]:checked')?.value;
      if (!parent) throw new Error('Pick the parent.');
      if (typed && !/^[A-Z][A-Z0-9]{0,7}-\d+$/.test(typed)) throw new Error(`${typed} is not an issue id; write it like MG-4.`);
      await app.group(parent, ids.filter((id) => id !== parent));
    },
  });
}
