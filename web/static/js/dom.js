// A few helpers for building DOM from script. Text always goes in as text
// nodes, so nothing here can turn data into markup; and no style attribute
// is ever written, which the page's Content Security Policy would refuse.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text (for the few places that build HTML text, such as list rows) for use in HTML content and quoted attribute values. */
export function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/**
 * Creates an element.
 *   h('button', {class: 'primary', onclick: fn, 'aria-label': 'Close'}, 'Close')
 * Props: class, text, dataset (object), on<event> handlers, hidden/disabled/
 * checked/value/... as properties, anything else as attributes. Children are
 * nodes, strings, numbers, arrays, or null/false (skipped).
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

function setProps(el, props) {
  if (!props) return;
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key in PROPERTIES) el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

const PROPERTIES = { value: 1, checked: 1, disabled: 1, hidden: 1, selected: 1, indeterminate: 1, open: 1, htmlFor: 1 };

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function replaceChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** True when keys typed now belong to a text field, not to the desk's shortcuts. */
export function isTyping(target) {
  if (!target || !(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(target.type);
}

// A document with no window, for building selects (see select).
let inert = null;

/**
 * A <select> with options given as [value, label] pairs or plain values.
 *
 * Its options are chosen in a document with no window and the select is
 * then moved into the page. Chosen in the page within a few seconds of a
 * click, an option counts for Chromium's autofill as the owner's choice:
 * it reads the page's form fields (a style and layout of the whole page in
 * a task of its own) before the next frame, and then follows the select,
 * so that removing it costs another layout. An issue opened by a click
 * draws five selects.
 */
export function select(props, options, current) {
  inert ||= document.implementation.createHTMLDocument('');
  const el = inert.createElement('select');
  for (const opt of options) {
    const [value, label] = Array.isArray(opt) ? opt : [opt, opt];
    const option = inert.createElement('option');
    option.value = value;
    option.defaultSelected = value === current;
    option.append(String(label));
    el.append(option);
  }
  el.value = current ?? '';
  document.adoptNode(el);
  setProps(el, props);
  return el;
}

/** A small inline SVG icon from the sprite in index.html. */
export function icon(name, label) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', `icon icon-${name}`);
  if (label) {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', label);
  } else {
    svg.setAttribute('aria-hidden', 'true');
  }
  const use = document.createElementNS('http://www.w3.org/2000/svg', 'use');
  use.setAttribute('href', `#i-${name}`);
  svg.append(use);
  return svg;
}

/** Closes any open .popover when the owner clicks elsewhere or presses Esc. Installed once. */
export function installPopoverDismiss() {
  const closeAll = (except) => {
    for (const pop of document.querySelectorAll('.popover:not([hidden])')) {
      if (except && pop.parentElement.contains(except)) continue;
      pop.hidden = true;
      pop.parentElement.querySelector('[aria-expanded]')?.setAttribute('aria-expanded', 'false');
    }
  };
  document.addEventListener('click', (e) => closeAll(e.target));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && document.querySelector('.popover:not([hidden])')) {
      closeAll(null);
      e.stopPropagation();
    }
  }, true);
}

/** True while any dialog is open: the desk's keys and pastes stay quiet then. */
export function dialogOpen() {
  return Boolean(document.querySelector('dialog[open]'));
}

/**
 * Calls fn once the next frame has been rendered: a task posted from the
 * frame's animation callback runs after its style, layout and paint.
 * @param {() => void} fn
 */
export function afterPaint(fn) {
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => fn();
    channel.port2.postMessage(null);
  });
}
