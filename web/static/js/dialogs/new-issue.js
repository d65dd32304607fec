// New issue: every field a report usually needs, with screenshots pasted or
// picked, and the game commands that lead to the place.

import { h, select } from '../dom.js';
import { openDialog, field } from './dialog.js';
import { KINDS, PRIORITIES, SIZES } from '../enums.js';
import { filesOf } from '../files.js';
import { plural } from '../format.js';

/**
 * @param {import('../app.js').DeskApp} app
 */
export function newIssueDialog(app) {
  if (!app.project) return;
  const title = h('input', { type: 'text', name: 'title', required: true, maxlength: '300', autofocus: true, placeholder: 'What is wrong, or what should be checked' });
  const kind = select({ name: 'kind' }, KINDS, 'bug');
  const priority = select({ name: 'priority' }, PRIORITIES, 'p2');
  const size = select({ name: 'size' }, [['', '—'], ...SIZES], '');
  const area = h('input', { type: 'text', name: 'area', list: 'new-issue-areas', maxlength: '80' });
  const tags = h('input', { type: 'text', name: 'tags', placeholder: 'comma, separated' });
  const milestone = h('input', { type: 'text', name: 'milestone', maxlength: '120' });
  const body = h('textarea', { name: 'body', rows: '5', placeholder: 'Markdown: what happens, what should happen' });
  const commands = h('textarea', { name: 'commands', rows: '2', class: 'mono', placeholder: '/goto 1240 12 -380 yaw 90\n(one place per line)' });
  const files = [];
  const fileNote = h('span', { class: 'field-hint' });
  const picker = h('input', { type: 'file', multiple: true, accept: 'image/*,application/pdf,text/plain,video/*' });
  const addFiles = (list) => {
    files.push(...list);
    fileNote.textContent = files.length ? `${plural(files.length, 'file')} will be attached` : '';
  };
  picker.addEventListener('change', () => addFiles([...picker.files]));

  const dialog = openDialog({
    title: `New issue in ${app.project.name}`,
    submitLabel: 'Create issue',
    wide: true,
    body: [
      field('Title', title),
      h('div', { class: 'dialog-grid four' }, field('Kind', kind), field('Priority', priority), field('Size', size), field('Area', area)),
      h('datalist', { id: 'new-issue-areas' }, (app.project.areas || []).map((a) => h('option', { value: a }))),
      h('div', { class: 'dialog-grid' }, field('Tags', tags), field('Milestone', milestone)),
      field('Description', body),
      field('Location commands', commands, { hint: 'The game’s own command for each place, one per line.' }),
      h('label', { class: 'field' }, h('span', null, 'Screenshots (or paste them here)'), picker, fileNote),
    ],
    onSubmit: async () => {
      if (!title.value.trim()) throw new Error('Write a title.');
      const fields = {
        title: title.value.trim(),
        kind: kind.value,
        priority: priority.value,
        area: area.value.trim(),
        tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean),
        milestone: milestone.value.trim(),
        body: body.value,
      };
      if (size.value) fields.size = size.value;
      const cmds = commands.value.split('\n').map((c) => c.trim()).filter(Boolean);
      if (cmds.length) fields.commands = cmds.map((command) => ({ command }));
      const created = await app.createIssue(fields, files);
      if (!created) return false;
    },
  });
  dialog.addEventListener('paste', (e) => {
    const pasted = filesOf(e.clipboardData);
    if (pasted.length) {
      e.preventDefault();
      addFiles(pasted);
    }
  });
}
