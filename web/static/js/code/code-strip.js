// The code of a project on its page: a link to the Code view of each
// repository linked to it, and the overlaps of their open changes as amber
// cards, read again when the live stream says the code moved.

import { h, replaceChildren } from '../dom.js';
import { isAbort, Latest } from '../api.js';
import { codeHash } from '../router.js';
import { plural } from '../format.js';
import { codeJSON, codePaths, listRepos } from './code-api.js';
import { overlapCards } from './overlap-cards.js';
import { shortId } from './code-model.js';

const LIVE_MS = 40;

export class CodeStrip {
  /**
   * @param {HTMLElement} el the strip's place on the project page
   * @param {import('../app.js').DeskApp} app
   */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.req = new Latest();
    this.timer = 0;
    /** Every repository the page may read; the top bar links the project's first. */
    this.repos = [];
  }

  /** The repositories linked to a project. */
  reposOf(slug) {
    return this.repos.filter((r) => r.project && r.project === slug);
  }

  /** Reads the repositories and the project's overlaps, and draws them. */
  async update() {
    const slug = this.app.slug;
    const req = this.req.begin();
    try {
      const repos = await listRepos({ signal: req.signal });
      const mine = repos.filter((r) => r.project && r.project === slug);
      const overlaps = await Promise.all(mine.map((r) => codeJSON(codePaths.overlaps(r.slug), { signal: req.signal })));
      if (!req.current()) return;
      this.repos = repos;
      this.render(slug, mine, overlaps.map((o) => o.overlaps || []));
      this.app.topBar?.renderNav();
    } catch (err) {
      // A desk that serves no code (501) shows no strip; others keep the last one.
      if (isAbort(err) || !req.current()) return;
      if (err.status === 501) replaceChildren(this.el);
      this.el.hidden = !this.el.firstChild;
    }
  }

  /** Code rows of the live stream. */
  changed() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.update();
    }, LIVE_MS);
  }

  render(slug, repos, overlaps) {
    this.el.hidden = repos.length === 0;
    replaceChildren(this.el, repos.map((r, i) => h('div', { class: 'code-strip-repo', dataset: { repo: r.slug } },
      h('a', { class: 'code-strip-link', href: codeHash({ repo: r.slug }), title: `The code of ${r.slug}: log, files, blame` },
        h('strong', null, 'Code'), ` ${r.slug}`,
        h('span', { class: 'muted' }, r.head ? ` · main ${shortId(r.head)} · ${plural(r.landings, 'landing')}` : ' · nothing landed yet')),
      overlapCards(r.slug, overlaps[i], this.app.projects))));
    this.el.dataset.project = slug || '';
  }
}
