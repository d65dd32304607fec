// The build the owner plays: the pill in the filter bar with its popover,
// and the card on an issue. Open folder and Run appear only when the server
// says the path is on this machine (build.local), and Run only for an
// executable file.

import { h, icon } from './dom.js';
import { buildAction, paths } from './api.js';
import { copyText } from './clipboard.js';
import { toast, toastError } from './toast.js';
import { formatDateTime } from './format.js';

export function buildTitle(build) {
  const parts = [`Build ${build.number || ''}`.trim()];
  if (build.label) parts.push(build.label);
  return parts.join(' · ');
}

/** Copy path, Open folder and Run for a build; url(action) names the route. */
export function buildButtons(build, url) {
  const local = build.local || {};
  const act = async (action, done) => {
    try {
      await buildAction(url(action));
      toast(done);
    } catch (err) {
      toastError(err, action === 'run' ? 'Could not start the build' : 'Could not open the folder');
    }
  };
  return h(
    'div',
    { class: 'build-buttons' },
    h('button', { type: 'button', class: 'button small', onclick: async () => toast((await copyText(build.path)) ? 'Path copied' : 'Could not copy') }, icon('copy'), 'Copy path'),
    local.open ? h('button', { type: 'button', class: 'button small', onclick: () => act('open', 'Opened in the file manager') }, icon('folder'), 'Open folder') : null,
    local.run ? h('button', { type: 'button', class: 'button small', onclick: () => act('run', 'Build started') }, icon('play'), 'Run') : null,
  );
}

function buildFacts(build) {
  return h(
    'dl',
    { class: 'build-facts' },
    h('dt', null, 'Path'), h('dd', { class: 'mono' }, build.path || '—'),
    build.commit ? [h('dt', null, 'Commit'), h('dd', { class: 'mono' }, build.commit)] : null,
    build.built_at ? [h('dt', null, 'Built'), h('dd', null, formatDateTime(build.built_at))] : null,
    build.set_by ? [h('dt', null, 'Published by'), h('dd', null, build.set_by)] : null,
  );
}

/** The filter bar's build pill, or null for a project that never published one. */
export function buildPill(app) {
  const project = app.project;
  if (!project || !project.builds_enabled) return null;
  const build = project.build;
  const wrap = h('div', { class: build ? 'build-pill' : 'build-pill none' });
  const pop = h('div', { class: 'popover', role: 'dialog', 'aria-label': 'Current build', hidden: true });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'button small',
      'aria-haspopup': 'dialog',
      'aria-expanded': 'false',
      onclick: (e) => {
        e.stopPropagation();
        pop.hidden = !pop.hidden;
        button.setAttribute('aria-expanded', String(!pop.hidden));
      },
    },
    icon('play'),
    h('span', null, build ? buildTitle(build) : 'No current build'),
  );
  if (build) {
    pop.append(h('strong', null, buildTitle(build)), buildFacts(build), buildButtons(build, (a) => paths.projectBuild(project.slug, a)));
  } else {
    pop.append(h('p', null, 'The last build was cleared. Agents cannot hand work to you until the next build is published.'));
  }
  wrap.append(button, pop);
  return wrap;
}

/** The issue's build card: the build it was handed over in, above its location. */
export function issueBuildCard(issue) {
  const build = issue.build;
  if (!build) return null;
  return h(
    'section',
    { class: 'card-box build-card', 'aria-label': 'Build' },
    h('h3', null, 'Handed over in ', buildTitle(build)),
    buildFacts(build),
    buildButtons(build, (a) => paths.issueBuild(issue.id, a)),
  );
}
