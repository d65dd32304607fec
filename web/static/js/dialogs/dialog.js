// A modal dialog around a form. Esc (the browser's own cancel) closes it,
// Enter or Ctrl+Enter submits, and an error from the submit stays in the
// dialog with the server's message instead of closing it.

import { h } from '../dom.js';

/**
 * @param {{
 *   title: string,
 *   body: (Node|string|null)[],
 *   submitLabel?: string,
 *   submitClass?: string,
 *   onSubmit: (form: HTMLFormElement) => Promise<boolean|void>,
 *   extraActions?: Node[],
 *   wide?: boolean,
 * }} spec
 * @returns {HTMLDialogElement}
 */
export function openDialog(spec) {
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: `button ${spec.submitClass || 'primary'}` }, spec.submitLabel || 'Save');
  const dialog = h('dialog', { class: spec.wide ? 'wide' : null, 'aria-label': spec.title });
  const form = h(
    'form',
    { class: 'dialog-form', novalidate: true },
    h('h2', null, spec.title),
    spec.body,
    error,
    h('div', { class: 'dialog-actions' }, spec.extraActions || [], h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'button', onclick: () => dialog.close() }, 'Cancel'),
      submit),
  );
  let busy = false;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy) return;
    busy = true;
    submit.disabled = true;
    error.textContent = '';
    try {
      const result = await spec.onSubmit(form);
      if (result !== false) dialog.close();
    } catch (err) {
      error.textContent = err.message || String(err);
    } finally {
      busy = false;
      submit.disabled = false;
    }
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  dialog.append(form);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  form.querySelector('[autofocus]')?.focus();
  return dialog;
}

/** A labelled field for dialog forms. */
export function field(label, control, { hint, wide } = {}) {
  return h('label', { class: `field${wide ? ' wide' : ''}` }, h('span', null, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
}
