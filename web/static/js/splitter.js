// The splitter between the list and the detail: drag it, or focus it and
// use ←/→ (Shift for bigger steps); double-click, Home or Enter restores
// the default. The ratio is remembered in this browser.

import { prefs } from './prefs.js';

export const DEFAULT_RATIO = 42;
const MIN = 22;
const MAX = 75;

export function clampRatio(r) {
  return Math.min(MAX, Math.max(MIN, Math.round(r * 10) / 10));
}

export function installSplitter(splitter, workspace) {
  let ratio = clampRatio(prefs.split() ?? DEFAULT_RATIO);
  const apply = (r, remember = true) => {
    ratio = clampRatio(r);
    // A custom property set through the CSSOM, which the style-src policy
    // allows; on the root, where boot.js puts the remembered one.
    document.documentElement.style.setProperty('--list-width', `${ratio}%`);
    splitter.setAttribute('aria-valuenow', String(Math.round(ratio)));
    splitter.setAttribute('aria-valuetext', `list ${Math.round(ratio)}% of the width`);
    if (remember) prefs.setSplit(ratio);
  };
  apply(ratio, false);
  splitter.setAttribute('aria-valuemin', String(MIN));
  splitter.setAttribute('aria-valuemax', String(MAX));

  splitter.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    splitter.setPointerCapture(e.pointerId);
    splitter.classList.add('dragging');
    const box = workspace.getBoundingClientRect();
    const move = (ev) => apply(((ev.clientX - box.left) / box.width) * 100, false);
    const up = () => {
      splitter.classList.remove('dragging');
      splitter.removeEventListener('pointermove', move);
      splitter.removeEventListener('pointerup', up);
      splitter.removeEventListener('pointercancel', up);
      apply(ratio);
    };
    splitter.addEventListener('pointermove', move);
    splitter.addEventListener('pointerup', up);
    splitter.addEventListener('pointercancel', up);
  });
  splitter.addEventListener('dblclick', () => apply(DEFAULT_RATIO));
  splitter.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 8 : 2;
    if (e.key === 'ArrowLeft') apply(ratio - step);
    else if (e.key === 'ArrowRight') apply(ratio + step);
    else if (e.key === 'Home' || e.key === 'Enter') apply(DEFAULT_RATIO);
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  return { get ratio() { return ratio; }, apply };
}
