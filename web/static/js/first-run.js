// The first run: a desk with no project yet. Instead of a quick-add bar with
// nothing to add to, the page asks for the first project (its prefix
// suggested from the name), then says how to link the game's repository to
// it and connect the agent CLIs, with the commands for this desk's own data
// folder.

import { h, replaceChildren } from './dom.js';
import { getJSON, postJSON, paths } from './api.js';
import { suggestPrefix, suggestSlug } from './dialogs/new-project.js';
import { copyText } from './clipboard.js';
import { toast } from './toast.js';

// The slug the commands show until the owner types a name.
const EXAMPLE_SLUG = 'mygame';

/** Quotes a word for a POSIX shell when it needs it. */
export function shellWord(word) {
  if (/^[A-Za-z0-9_./@%+=:,-]+$/.test(word)) return word;
  return `'${String(word).replace(/'/g, `'\\''`)}'`;
}

/**
 * The commands that link a repository to project slug and connect the agent
 * CLIs, for the desk whose data folder is dataDir ("" leaves --data out).
 * @returns {{step: string, command: string}[]}
 */
export function setupCommands(dataDir, slug) {
  const desk = dataDir ? `desk --data ${shellWord(dataDir)}` : 'desk';
  return [
    { step: 'In your game’s repository, link it to the project:', command: `${desk} link --project ${shellWord(slug)}` },
    { step: 'Connect the agent CLIs on this machine (Claude Code, Codex, opencode, …) to this desk:', command: `${desk} install` },
  ];
}

/**
 * The first-run panel for the list pane.
 * @param {import('./app.js').DeskApp} app
 */
export function firstRunPanel(app) {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '120', placeholder: 'MyGame', autocomplete: 'off' });
  const slug = h('input', { type: 'text', name: 'slug', required: true, maxlength: '40', placeholder: EXAMPLE_SLUG, autocomplete: 'off', spellcheck: 'false' });
  const prefix = h('input', { type: 'text', name: 'prefix', maxlength: '8', placeholder: 'MG', autocomplete: 'off', spellcheck: 'false' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Create project');
  let slugTouched = false;
  let prefixTouched = false;
  let dataDir = '';
  let created = null;

  const commands = h('ol', { class: 'first-run-commands' });
  const showCommands = () => {
    const s = created?.slug || slug.value.trim() || EXAMPLE_SLUG;
    replaceChildren(commands, setupCommands(dataDir, s).map((c) => h('li', null,
      h('p', null, c.step),
      h('div', { class: 'first-run-command' },
        h('code', null, c.command),
        h('button', {
          type: 'button',
          class: 'button small',
          'aria-label': `Copy: ${c.command}`,
          onclick: async () => {
            const ok = await copyText(c.command);
            toast(ok ? 'Copied' : 'Could not copy; select the command instead', { error: !ok });
          },
        }, 'Copy')))));
  };

  slug.addEventListener('input', () => { slugTouched = true; showCommands(); });
  prefix.addEventListener('input', () => { prefixTouched = true; });
  name.addEventListener('input', () => {
    if (!slugTouched) slug.value = suggestSlug(name.value);
    if (!prefixTouched) prefix.value = suggestPrefix(name.value);
    showCommands();
  });

  const form = h('form', { class: 'first-run-form', novalidate: true },
    h('div', { class: 'first-run-fields' },
      h('label', { class: 'field' }, h('span', null, 'Name'), name),
      h('label', { class: 'field' }, h('span', null, 'Slug'), slug, h('span', { class: 'field-hint' }, 'In links and the API')),
      h('label', { class: 'field' }, h('span', null, 'Prefix'), prefix, h('span', { class: 'field-hint' }, 'Issue ids: MG-1, MG-2, …'))),
    error,
    submit);
  const create = h('section', { class: 'first-run-step', 'aria-labelledby': 'first-run-create' },
    h('h3', { id: 'first-run-create' }, '1. Create your first project'),
    form);
  const open = h('p', { class: 'first-run-open', hidden: true });
  const connect = h('section', { class: 'first-run-step', 'aria-labelledby': 'first-run-connect' },
    h('h3', { id: 'first-run-connect' }, '2. Link your repository and connect your agents'),
    commands,
    open);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const slugValue = slug.value.trim();
    if (!name.value.trim()) {
      error.textContent = 'Give the project a name.';
      name.focus();
      return;
    }
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(slugValue)) {
      error.textContent = 'The slug takes lower-case letters, digits and -, starting with a letter or digit (e.g. mygame).';
      slug.focus();
      return;
    }
    submit.disabled = true;
    try {
      created = await postJSON(paths.projects(), { slug: slugValue, name: name.value.trim(), prefix: prefix.value.trim().toUpperCase() || undefined });
    } catch (err) {
      error.textContent = err.message || String(err);
      submit.disabled = false;
      return;
    }
    replaceChildren(form, h('p', { class: 'first-run-done' },
      `Created ${created.name}: its issues are ${created.prefix}-1, ${created.prefix}-2, …`));
    showCommands();
    replaceChildren(open, h('button', { type: 'button', class: 'button primary', onclick: () => app.switchProject(created.slug) },
      `Open ${created.name}`));
    open.hidden = false;
    commands.querySelector('button')?.focus();
    app.loadProjects();
  });

  showCommands();
  getJSON(paths.health()).then((health) => {
    dataDir = health.data_dir || '';
    showCommands();
  }).catch(() => {}); // the commands without --data still work for the default folder

  const panel = h('div', { class: 'first-run', role: 'region', 'aria-label': 'Set up desk' },
    h('h2', null, 'Welcome to desk'),
    h('p', { class: 'muted' }, 'desk keeps your game’s issues, checks and plans, and the agents that work on them. Two steps to begin:'),
    create,
    connect);
  queueMicrotask(() => name.focus());
  return panel;
}
