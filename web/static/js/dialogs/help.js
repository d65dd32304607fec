// The keyboard help (?): every key of the desk.

import { h } from '../dom.js';
import { STATUSES, statusLabel } from '../enums.js';

export const KEYS = [
  ['Moving', [
    [['j', '↓'], 'next issue (next session in the agents)'],
    [['k', '↑'], 'previous issue (previous session)'],
    [['Enter', 'o'], 'open the issue'],
    [['Esc'], 'close the issue or the session, or clear the selection'],
  ]],
  ['Answering', [
    [['p'], 'passed'],
    [['f'], 'still broken (with what is in the composer, or say what first)'],
    [['c'], 'comment'],
    [['Ctrl', 'Enter'], 'send the comment, save an editor'],
    [['s'], 'send the first location command to the game'],
    [['y'], 'copy the first location command'],
    [['e'], 'edit the description'],
  ]],
  ['Selecting', [
    [['x'], 'select the issue under the cursor'],
    [['Shift', 'click'], 'select a range'],
    [['m'], 'merge the selection'],
  ]],
  ['Views', [
    [['b'], 'triage / backlog'],
    [['h'], 'handoff'],
    [['a'], 'agents: every agent session on this machine (again: back to the issues)'],
    [['n'], 'new issue'],
    [['q'], 'quick add'],
    [['/'], 'search'],
    [['1'], '… ', ['9'], 'show one status'],
    [['0'], 'show every status'],
    [['r'], 'refresh'],
    [['t'], 'theme: system, light, dark'],
    [['?'], 'this help'],
  ]],
];

function keys(list) {
  return list.map((k, i) => [i ? ' ' : '', h('kbd', null, k)]);
}

export function helpDialog() {
  const dialog = h('dialog', { class: 'help-dialog wide', 'aria-label': 'Keyboard' });
  const sections = KEYS.map(([title, rows]) => h('section', null, h('h3', null, title), h('dl', { class: 'keys' }, rows.map((row) => {
    if (row.length === 4) return [h('dt', null, keys(row[0]), row[1], keys(row[2])), h('dd', null, row[3])];
    return [h('dt', null, keys(row[0])), h('dd', null, row[1])];
  }))));
  const statuses = h('p', { class: 'field-hint' }, 'Status keys: ', STATUSES.map((s, i) => `${i + 1} ${statusLabel(s)}`).join(' · '));
  dialog.append(h('div', { class: 'dialog-form' },
    h('h2', null, 'Keyboard'),
    h('div', { class: 'help-grid' }, sections),
    statuses,
    h('div', { class: 'dialog-actions' }, h('button', { type: 'button', class: 'button primary', autofocus: true, onclick: () => dialog.close() }, 'Close'))));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
