// The head of an open issue: its id and actions, the title (click to edit),
// the status select and who filed it when.

import { h, icon, select } from '../dom.js';
import { STATUSES, statusLabel } from '../enums.js';
import { timeAgo, formatDateTime } from '../format.js';
import { copyText } from '../clipboard.js';
import { issuePrompt } from '../copy-prompt.js';
import { toast, toastError } from '../toast.js';
import { deleteJSON, paths, pageToken } from '../api.js';

/** Ends an agent's claim on an issue: the owner's to do from the page. */
async function releaseClaim(id) {
  try {
    await deleteJSON(paths.claim(id), { headers: { 'X-Desk-Token': pageToken() } });
    toast(`${id} is no longer claimed`);
  } catch (err) {
    toastError(err, `Could not release ${id}`);
  }
}

/**
 * @param {object} detail the issue detail
 * @param {import('./detail-view.js').DetailContext} ctx
 */
export function detailHeader(detail, ctx) {
  const { app } = ctx;
  const link = `${location.origin}${location.pathname}#/${detail.project}/${detail.id}`;
  const actions = h(
    'div',
    { class: 'detail-actions' },
    h('button', { type: 'button', class: 'icon-button phone-only', 'aria-label': 'Back to the list', onclick: () => app.closeDetail() }, icon('back')),
    h('span', { class: 'detail-id' }, detail.id),
    h('span', { class: 'kind' }, detail.kind),
    h('span', { class: 'spacer' }),
    h('button', { type: 'button', class: 'button small ghost', title: 'Copy a link to this issue', onclick: async () => toast((await copyText(link)) ? 'Link copied' : 'Could not copy') }, 'Copy link'),
    h('button', {
      type: 'button',
      class: 'button small ghost',
      title: 'Copy the issue and its context as Markdown for a coding agent',
      onclick: async () => toast((await copyText(issuePrompt(detail, app.project))) ? 'Copied as a prompt' : 'Could not copy'),
    }, 'Copy as prompt'),
    h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close the issue (Esc)', title: 'Close (Esc)', onclick: () => app.closeDetail() }, icon('close')),
  );

  const title = h('h1', { class: 'detail-title', tabindex: '0', title: 'Click to edit the title', role: 'button', 'aria-label': `Title: ${detail.title}. Press Enter to edit.` }, detail.title);
  const editTitle = () => {
    const input = h('input', { type: 'text', class: 'title-input', value: detail.title, 'aria-label': 'Title', maxlength: '300' });
    ctx.beginEdit();
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      const value = input.value.trim();
      input.replaceWith(title);
      ctx.endEdit();
      if (save && !value) toast('A title cannot be empty; the old one stays.', { error: true });
      if (save && value && value !== detail.title) {
        title.textContent = value;
        await app.updateIssue(detail.id, { title: value });
      }
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') finish(true);
      else if (e.key === 'Escape') {
        e.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener('blur', () => finish(true));
    title.replaceWith(input);
    input.focus();
    input.select();
  };
  title.addEventListener('click', editTitle);
  title.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      editTitle();
    }
  });

  const status = select(
    { class: `status-select st-${detail.status}`, 'aria-label': 'Status', onchange: (e) => app.updateIssue(detail.id, { status: e.target.value }) },
    STATUSES.map((s) => [s, statusLabel(s)]),
    detail.status,
  );

  const meta = h(
    'p',
    { class: 'detail-meta' },
    `Filed by ${detail.source === 'owner' ? 'you' : detail.source} `,
    h('time', { datetime: detail.created_at, title: formatDateTime(detail.created_at) }, timeAgo(detail.created_at)),
    ' · updated ',
    h('time', { datetime: detail.updated_at, title: formatDateTime(detail.updated_at) }, timeAgo(detail.updated_at)),
    detail.closed_at ? [' · done ', h('time', { datetime: detail.closed_at, title: formatDateTime(detail.closed_at) }, timeAgo(detail.closed_at))] : null,
  );

  const claim = detail.claim && Date.parse(detail.claim.expires_at) > Date.now()
    ? h('p', { class: 'notice claim-notice' },
      `Claimed by ${detail.claim.holder} until `,
      h('time', { datetime: detail.claim.expires_at, title: formatDateTime(detail.claim.expires_at) }, formatDateTime(detail.claim.expires_at)),
      ': other agents leave it alone. ',
      h('button', { type: 'button', class: 'button small ghost', onclick: () => releaseClaim(detail.id) }, 'Release'))
    : null;

  const redirect = detail.redirected_from
    ? h('p', { class: 'notice' }, `${detail.redirected_from} was merged into ${detail.id}; you are looking at ${detail.id}.`)
    : null;

  return h('header', { class: 'detail-header' }, actions, redirect, h('div', { class: 'title-row' }, title), h('div', { class: 'status-row' }, status, meta), claim);
}
