// Project settings: the name, the default world seed for new agent issues,
// which owner events reach agent sessions, and the lead client.

import { h, select } from '../dom.js';
import { openDialog, field } from './dialog.js';
import { patchJSON, paths } from '../api.js';
import { NOTIFY_EVENTS, LEAD_CLIENTS } from '../enums.js';
import { toast } from '../toast.js';

/** @param {import('../app.js').DeskApp} app */
export function projectSettingsDialog(app) {
  const p = app.project;
  if (!p) return;
  const name = h('input', { type: 'text', name: 'name', value: p.name, maxlength: '120', autofocus: true });
  const seed = h('input', { type: 'text', name: 'seed', inputmode: 'numeric', value: p.default_seed ?? '', placeholder: 'none' });
  const notify = NOTIFY_EVENTS.map(([key, label]) => {
    const box = h('input', { type: 'checkbox', name: `notify-${key}`, checked: Boolean(p.notify?.[key]) });
    return { key, box, el: h('label', { class: 'choice' }, box, label) };
  });
  const lead = select({ name: 'lead', 'aria-label': 'Lead client' }, [['', 'Every agent session'], ...LEAD_CLIENTS.map((c) => [c, c])], p.lead || '');

  openDialog({
    title: `${p.name} settings`,
    submitLabel: 'Save settings',
    body: [
      field('Name', name),
      field('Default world seed', seed, { hint: 'New agent issues and checks without a seed get this one, so /goto lands in the right world. Empty: none.' }),
      h('fieldset', { class: 'choice-list' }, h('legend', { class: 'field-hint' }, 'Tell agent sessions about'), notify.map((n) => n.el)),
      field('Lead client', lead, { hint: 'Only this client’s top-level sessions hear about your activity.' }),
    ],
    onSubmit: async () => {
      const text = seed.value.trim();
      if (text && !/^-?\d+$/.test(text)) throw new Error('The seed is a whole number, like 1234 (or empty for none).');
      const value = text ? Number(text) : null;
      if (value !== null && (value < -2147483648 || value > 2147483647)) throw new Error('The seed must fit in 32 bits (−2147483648 to 2147483647).');
      if (!name.value.trim()) throw new Error('The name cannot be empty.');
      await patchJSON(paths.project(p.slug), {
        name: name.value.trim(),
        default_seed: value,
        notify: Object.fromEntries(notify.map((n) => [n.key, n.box.checked])),
        lead: lead.value || null,
      });
      toast('Settings saved');
      await Promise.all([app.loadProject(), app.loadProjects()]);
    },
  });
}
