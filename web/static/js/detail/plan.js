// The agent's plan: steps ticked as commits land, a note per step, a
// progress bar and the verification line. The owner can tick a step or
// leave a note on it.

import { h, replaceChildren } from '../dom.js';
import { renderInline } from '../markdown.js';
import { stepCommit } from './landings.js';

const STATE_LABELS = { todo: 'to do', doing: 'doing', done: 'done', dropped: 'dropped' };

/**
 * @param {object} detail
 * @param {import('./detail-view.js').DetailContext} ctx
 */
export function planSection(detail, ctx) {
  const steps = detail.plan?.steps || [];
  if (!steps.length && !detail.plan?.verification) return null;
  const pp = detail.plan_progress || { done: 0, total: 0 };
  const { app } = ctx;

  const items = steps.map((step, i) => {
    const n = i + 1;
    const box = h('input', {
      type: 'checkbox',
      checked: step.state === 'done',
      disabled: step.state === 'dropped',
      'aria-label': `Step ${n} done`,
      onchange: (e) => app.updateStep(detail.id, n, { state: e.target.checked ? 'done' : 'todo' }),
    });
    const text = h('span', { class: 'step-text' });
    text.innerHTML = renderInline(step.text, { issueHref: app.issueHref });
    const note = h('div', { class: 'step-note' }, step.note ? step.note : null);
    const noteButton = h('button', { type: 'button', class: 'link-button step-note-button' }, step.note ? 'Edit note' : 'Note');
    noteButton.addEventListener('click', () => {
      ctx.beginEdit();
      const input = h('textarea', { rows: '2', 'aria-label': `Note on step ${n}`, maxlength: '2000' });
      input.value = step.note || '';
      let done = false;
      const finish = async (save) => {
        if (done) return;
        done = true;
        ctx.endEdit();
        if (save && input.value.trim() !== (step.note || '')) await app.updateStep(detail.id, n, { note: input.value.trim() });
        else replaceChildren(note, step.note || []);
      };
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey || !e.shiftKey)) {
          e.preventDefault();
          finish(true);
        } else if (e.key === 'Escape') {
          e.stopPropagation();
          finish(false);
        }
      });
      input.addEventListener('blur', () => finish(true));
      replaceChildren(note, input);
      input.focus();
    });
    return h(
      'li',
      { class: `step step-${step.state}` },
      h('label', { class: 'step-main' }, box, text),
      h('span', { class: 'step-state' }, STATE_LABELS[step.state] || step.state),
      step.commit ? stepCommit(detail, step.commit) : null,
      noteButton,
      note,
    );
  });

  return h(
    'section',
    { class: 'card-box plan', 'aria-label': 'Plan' },
    h('div', { class: 'card-head' },
      h('h3', null, 'Plan'),
      h('progress', { max: String(pp.total || 1), value: String(pp.done), 'aria-label': `${pp.done} of ${pp.total} steps done` }),
      h('span', { class: 'muted' }, `${pp.done}/${pp.total}`)),
    h('ol', { class: 'steps' }, items),
    detail.plan?.verification ? h('p', { class: 'verification' }, h('strong', null, 'Verification: '), detail.plan.verification) : null,
  );
}
