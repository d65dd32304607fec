// The bar that appears while issues are selected: Merge into… (m),
// Group under…, and Clear (Esc).

import { h, replaceChildren } from '../dom.js';
import { plural } from '../format.js';

export class SelectionBar {
  /** @param {import('../app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
  }

  render() {
    const n = this.app.selection.size;
    this.el.hidden = n === 0;
    if (n === 0) return;
    replaceChildren(
      this.el,
      h('strong', null, `${plural(n, 'issue')} selected`),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'button small', disabled: n < 2, title: 'Fold the others into one (m)', onclick: () => this.app.mergeSelection() }, 'Merge into…'),
      h('button', { type: 'button', class: 'button small', disabled: n < 2, title: 'Make them parts of one parent', onclick: () => this.app.groupSelection() }, 'Group under…'),
      h('button', { type: 'button', class: 'button small ghost', title: 'Clear the selection (Esc)', onclick: () => this.app.clearSelection() }, 'Clear'),
    );
  }
}
