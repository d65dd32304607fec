// A full-window view of the images: Esc closes, ← and → step.

import { h, icon, replaceChildren } from './dom.js';

/**
 * @param {{url: string, filename: string}[]} images
 * @param {number} start
 */
export function openLightbox(images, start = 0) {
  if (!images.length) return;
  let index = Math.max(0, Math.min(start, images.length - 1));
  const img = h('img', { class: 'lightbox-image', alt: '' });
  const caption = h('p', { class: 'lightbox-caption' });
  const dialog = h('dialog', { class: 'lightbox', 'aria-label': 'Image viewer' });
  const step = (d) => {
    index = (index + d + images.length) % images.length;
    show();
  };
  const show = () => {
    const im = images[index];
    img.src = im.url;
    img.alt = im.filename;
    replaceChildren(caption, h('a', { href: im.url, target: '_blank', rel: 'noopener' }, im.filename), images.length > 1 ? `  ·  ${index + 1} of ${images.length}` : '');
  };
  const many = images.length > 1;
  dialog.append(
    h('button', { type: 'button', class: 'icon-button lightbox-close', 'aria-label': 'Close (Esc)', onclick: () => dialog.close() }, icon('close')),
    many ? h('button', { type: 'button', class: 'icon-button lightbox-prev', 'aria-label': 'Previous image (←)', onclick: () => step(-1) }, icon('back')) : null,
    img,
    many ? h('button', { type: 'button', class: 'icon-button lightbox-next', 'aria-label': 'Next image (→)', onclick: () => step(1) }, icon('chevron')) : null,
    caption,
  );
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft') step(-1);
    else if (e.key === 'ArrowRight') step(1);
    else return;
    e.preventDefault();
  });
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog.close();
  });
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  show();
  dialog.showModal();
}
