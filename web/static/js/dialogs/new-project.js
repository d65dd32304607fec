// New project…: slug, name and prefix. The prefix is suggested from the
// name (MyGame → MG) the way the server would pick it.

import { h } from '../dom.js';
import { openDialog, field } from './dialog.js';
import { postJSON, paths } from '../api.js';

export function suggestPrefix(name) {
  const letters = [];
  for (const ch of String(name)) {
    if (!/[A-Za-z0-9]/.test(ch)) continue;
    if (letters.length === 0 && !/[A-Za-z]/.test(ch)) continue;
    letters.push(ch.toUpperCase());
    if (letters.length === 2) break;
  }
  return letters.join('');
}

export function suggestSlug(name) {
  return String(name).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
}

/** @param {import('../app.js').DeskApp} app */
export function newProjectDialog(app) {
  const name = h('input', { type: 'text', name: 'name', required: true, autofocus: true, maxlength: '120', placeholder: 'MyGame' });
  const slug = h('input', { type: 'text', name: 'slug', required: true, maxlength: '40', pattern: '[a-z0-9][a-z0-9-]*', placeholder: 'mygame' });
  const prefix = h('input', { type: 'text', name: 'prefix', maxlength: '8', placeholder: 'MG' });
  let slugTouched = false;
  let prefixTouched = false;
  slug.addEventListener('input', () => { slugTouched = true; });
  prefix.addEventListener('input', () => { prefixTouched = true; });
  name.addEventListener('input', () => {
    if (!slugTouched) slug.value = suggestSlug(name.value);
    if (!prefixTouched) prefix.value = suggestPrefix(name.value);
  });
  openDialog({
    title: 'New project',
    submitLabel: 'Create project',
    body: [
      field('Name', name),
      h('div', { class: 'dialog-grid' },
        field('Slug', slug, { hint: 'In links and the API: lower-case letters, digits, -' }),
        field('Prefix', prefix, { hint: 'Issue ids: MG-1, MG-2, …' })),
    ],
    onSubmit: async () => {
      if (!name.value.trim()) throw new Error('Give the project a name.');
      if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(slug.value)) throw new Error('The slug takes lower-case letters, digits and -, starting with a letter or digit (e.g. mygame).');
      const p = await postJSON(paths.projects(), { slug: slug.value, name: name.value.trim(), prefix: prefix.value.trim().toUpperCase() || undefined });
      await app.loadProjects();
      app.switchProject(p.slug);
    },
  });
}
