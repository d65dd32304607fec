// The files: a gallery with a lightbox for images, and a drop zone
// that attaches files to the issue itself (files dropped anywhere else in
// the issue go to the composer, with the next comment).

import { h, icon } from '../dom.js';
import { formatBytes } from '../format.js';
import { filesOf } from '../files.js';
import { openLightbox } from '../lightbox.js';

/**
 * @param {object} detail
 * @param {import('./detail-view.js').DetailContext} ctx
 */
export function attachmentsSection(detail, ctx) {
  const files = detail.attachments || [];
  const images = files.filter((a) => a.is_image);
  const gallery = h('ul', { class: 'gallery' }, files.map((a) => {
    if (a.is_image) {
      return h('li', null, h('button', {
        type: 'button',
        class: 'thumb',
        title: `${a.filename} (${formatBytes(a.size)})`,
        onclick: () => openLightbox(images, images.indexOf(a)),
      }, h('img', { src: a.url, alt: a.filename, loading: 'lazy' }), a.merged_from ? h('span', { class: 'merged-mark' }, `from ${a.merged_from}`) : null));
    }
    return h('li', null, h('a', { class: 'file', href: a.url, target: '_blank', rel: 'noopener' }, icon('clip'), a.filename, h('span', { class: 'muted' }, ` ${formatBytes(a.size)}`)));
  }));

  const zone = h(
    'section',
    { class: 'card-box attachments', 'aria-label': 'Attachments', 'data-dropzone': 'issue' },
    h('div', { class: 'card-head' }, h('h3', null, `Files ${files.length ? files.length : ''}`.trim()), h('span', { class: 'spacer' }),
      h('label', { class: 'button small' }, icon('clip'), 'Attach…',
        h('input', { type: 'file', multiple: true, class: 'visually-hidden', onchange: (e) => { ctx.app.attachFiles(detail.id, [...e.target.files]); e.target.value = ''; } }))),
    files.length ? gallery : null,
    h('p', { class: 'drop-hint' }, 'Drop files here to attach them to the issue.'),
  );
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('drag');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('drag'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation();
    zone.classList.remove('drag');
    const dropped = filesOf(e.dataTransfer);
    if (dropped.length) ctx.app.attachFiles(detail.id, dropped);
  });
  return zone;
}
