// The Agents view: every agent session on this machine with its live state.
// This is its place in the desk (the nav link, the route #/~agents and the
// pane); the sessions themselves arrive with the agent support of desk.

import { h, replaceChildren } from '../dom.js';

export class AgentsView {
  /** @param {HTMLElement} el the pane */
  constructor(el) {
    this.el = el;
  }

  show() {
    replaceChildren(this.el, h('div', { class: 'empty-state agents-empty' },
      h('h2', null, 'Agents'),
      h('p', null, 'Agent sessions on this machine will show here with what each one is doing.'),
      h('p', null, 'None are reported yet.')));
  }

  /** Called for live changes of type "agent"; nothing to redraw yet. */
  changed() {}

  hide() {}
}
