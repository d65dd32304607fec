// The Code view: the repositories, and for one of them its log (each
// landing with the issues it is for, linked), its files at main or at any
// change, a file's blame, a change with its diff, and the open changes of
// two work folders on the same files as amber cards. It follows the live
// stream: a new landing shows at the top of the log without a reload.

import { h, replaceChildren } from '../dom.js';
import { isAbort, Latest, servesCode } from '../api.js';
import { codeHash } from '../router.js';
import { timeAgo, formatDateTime, formatBytes, plural } from '../format.js';
import { codeJSON, codeBytes, codePaths, listRepos } from './code-api.js';
import { overlapCards, intentLinks } from './overlap-cards.js';
import {
  shortId, firstLine, authorName, diffFiles, blameRuns, crumbs, parentPath, sortEntries, textOf, numberedLines,
} from './code-model.js';

// Live rows that arrive together are read together (the live updates
// batch them already; this joins the batches of one task).
const LIVE_MS = 0;
// How long a landing that arrived live stays highlighted.
const FRESH_MS = 2600;
// The most lines of one file's diff drawn, and of a whole diff; the rest
// is counted (a merge of a long-lived branch can touch thousands of files).
const DIFF_LINES = 2000;
const DIFF_TOTAL_LINES = 20000;
// The most lines of a file drawn in the browser; the rest is counted.
const FILE_LINES = 20000;

export class CodeView {
  /** @param {import('../app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.req = new Latest();
    this.liveReq = new Latest();
    /** @type {import('../router.js').CodeRoute|null} */
    this.route = null;
    this.repos = [];
    this.log = null;
    this.overlaps = [];
    this.timer = 0;
    this.fresh = new Set();
  }

  get isOpen() {
    return this.route !== null;
  }

  /** Shows the part of the Code view an address names. */
  show(code) {
    const same = this.route && JSON.stringify(this.route) === JSON.stringify(code);
    this.route = code;
    if (same) return;
    // Another part of the code starts at its top.
    this.el.scrollTop = 0;
    if (!servesCode()) {
      replaceChildren(this.el, this.frame(h('div', { class: 'empty-state' }, h('h2', null, 'This desk serves no code'),
        h('p', null, 'It runs with no object store for code. The desk on this machine (desk serve) keeps code in its data folder.'))));
      return;
    }
    if (!code.repo) {
      this.loadRepos();
      return;
    }
    if (this.log?.repo !== code.repo) this.log = null;
    this.load();
  }

  /**
   * The page's projects arrived: a part drawn before them, whose intents
   * could not yet name their issues' projects, is drawn again.
   */
  projectsLoaded() {
    if (this.isOpen && this.drawnWithoutProjects) {
      if (this.route.repo) this.load();
      else this.renderRepos();
    }
  }

  hide() {
    this.req.cancel();
    this.liveReq.cancel();
    clearTimeout(this.timer);
    this.timer = 0;
    this.route = null;
  }

  /** Code rows of the live stream: a landing, or an open change sent. */
  changed(rows) {
    if (!this.isOpen || !rows.length || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.follow();
    }, LIVE_MS);
  }

  // ---- The repositories -----------------------------------------------------

  async loadRepos() {
    const req = this.req.begin();
    if (!this.el.firstChild) this.el.append(this.frame([]));
    try {
      const repos = await listRepos({ signal: req.signal });
      if (!req.current()) return;
      this.repos = repos;
      this.drawnWithoutProjects = !this.app.projectsLoaded;
      this.renderRepos();
    } catch (err) {
      if (!isAbort(err) && req.current()) this.showError('Could not load the repositories', err);
    }
  }

  renderRepos() {
    const projects = this.app.projects;
    const body = this.repos.length
      ? h('ul', { class: 'code-repos' }, this.repos.map((r) => {
        const p = projects.find((x) => x.slug === r.project);
        return h('li', null,
          h('a', { class: 'code-repo', href: codeHash({ repo: r.slug }) }, r.slug),
          p ? h('span', { class: 'muted' }, ' · ', h('a', { href: `#/${p.slug}` }, p.name)) : null,
          h('span', { class: 'code-repo-head muted' }, r.head ? ` · main ${shortId(r.head)} · ${plural(r.landings, 'landing')}` : ' · nothing landed yet'));
      }))
      : h('div', { class: 'empty-state' },
        h('h2', null, 'No repository yet'),
        h('p', null, 'Make one and bring its history from git, or land into it from a work folder:'),
        h('pre', null, h('code', null, 'desk repo create acme/game --project mygame\ndesk repo import acme/game --git .')));
    replaceChildren(this.el, this.frame([h('h1', null, 'Code'), body]));
  }

  // ---- One repository ---------------------------------------------------------

  // Reads what the address shows, and the repository's head and overlaps beside it.
  async load() {
    const code = this.route;
    const req = this.req.begin();
    if (!this.el.querySelector(`[data-repo="${CSS.escape(code.repo)}"]`)) {
      replaceChildren(this.el, this.frame(this.header(code, null), h('div', { class: 'code-body loading', 'aria-busy': 'true' })));
    }
    try {
      const [repo, overlaps, body] = await Promise.all([
        this.readRepo(code.repo, req.signal),
        codeJSON(codePaths.overlaps(code.repo), { signal: req.signal }),
        this.readBody(code, req.signal),
      ]);
      if (!req.current()) return;
      this.overlaps = overlaps.overlaps || [];
      this.shownHead = repo.head;
      this.drawnWithoutProjects = !this.app.projectsLoaded;
      replaceChildren(this.el, this.frame(this.header(code, repo), this.overlapBox(code.repo), body));
    } catch (err) {
      if (isAbort(err) || !req.current()) return;
      replaceChildren(this.el, this.frame(this.header(code, null), this.errorBox(err)));
    }
  }

  async readRepo(slug, signal) {
    this.repos = await listRepos({ signal });
    const repo = this.repos.find((r) => r.slug === slug);
    if (!repo) throw Object.assign(new Error(`There is no repository ${slug}.`), { status: 404 });
    return repo;
  }

  // The view's own part, as a node.
  readBody(code, signal) {
    switch (code.view) {
      case 'files':
        return this.readFiles(code, signal);
      case 'blame':
        return this.readBlame(code, signal);
      case 'change':
        return this.readChange(code, signal);
      case 'history':
        return this.readHistory(code, signal);
      case 'search':
        return this.readSearch(code, signal);
      default:
        return this.readLog(code, signal);
    }
  }

  // The live stream said the code moved: the head, the overlaps and, on the
  // log, the new landings are read again; the rest stays as it is.
  async follow() {
    const code = this.route;
    if (!code) return;
    if (!code.repo) {
      this.loadRepos();
      return;
    }
    const req = this.liveReq.begin();
    try {
      // The log's newest page is read beside the head: one round trip.
      const onLog = code.view === 'log' && this.log;
      const [repo, overlaps, page] = await Promise.all([
        this.readRepo(code.repo, req.signal),
        codeJSON(codePaths.overlaps(code.repo), { signal: req.signal }),
        onLog ? codeJSON(codePaths.log(code.repo), { signal: req.signal }) : null,
      ]);
      const entries = page && repo.head !== this.log.head ? page.entries || [] : null;
      if (!req.current() || this.route !== code) return;
      // A file or a blame at main reads main again once it moved.
      if ((code.view === 'files' || code.view === 'blame') && code.at === 'main' && repo.head !== this.shownHead) {
        this.load();
        return;
      }
      this.overlaps = overlaps.overlaps || [];
      this.el.querySelector('.code-head')?.replaceWith(this.header(code, repo));
      this.el.querySelector('.code-overlaps')?.replaceWith(this.overlapBox(code.repo));
      if (entries) this.addLanded(entries, repo.head);
    } catch (err) {
      // The next row or a reload tries again.
      if (!isAbort(err)) console.debug('code: live read failed', err);
    }
  }

  frame(...children) {
    return h('article', { class: 'code-view', dataset: { repo: this.route?.repo || '' } }, children);
  }

  header(code, repo) {
    const project = repo && this.app.projects.find((p) => p.slug === repo.project);
    const tab = (view, label) => h('a', {
      href: codeHash({ repo: code.repo, view, at: 'main' }),
      'aria-current': code.view === view || (view === 'files' && ['blame', 'history', 'search'].includes(code.view)) ? 'page' : null,
    }, label);
    return h('header', { class: 'code-head' },
      h('div', { class: 'code-title' },
        h('a', { class: 'muted', href: '#/~code' }, 'Code'), ' / ',
        h('h1', null, code.repo),
        project ? h('a', { class: 'code-project', href: `#/${project.slug}`, title: 'The project this repository is linked to' }, project.name) : null),
      repo ? h('p', { class: 'code-summary muted' },
        repo.head ? ['main ', h('code', null, shortId(repo.head)), ` · ${plural(repo.landings, 'landing')}`] : 'Nothing has landed yet.') : null,
      h('nav', { class: 'code-tabs', 'aria-label': 'Code' }, tab('log', 'Log'), tab('files', 'Files'),
        this.searchForm(code)));
  }

  // Plain text (never a pattern) looked for in the text files of the
  // snapshot shown, or of main.
  searchForm(code) {
    const at = ['files', 'blame', 'search'].includes(code.view) ? code.at : 'main';
    const input = h('input', { type: 'search', name: 'q', class: 'code-search', placeholder: 'Search the files', 'aria-label': `Search the files at ${at === 'main' ? 'main' : shortId(at)}`, value: code.q || '' });
    return h('form', {
      role: 'search',
      onsubmit: (e) => {
        e.preventDefault();
        const q = input.value;
        if (q.trim()) this.app.navigate({ code: { repo: code.repo, view: 'search', at, path: '', change: null, q } });
      },
    }, input);
  }

  overlapBox(repo) {
    const cards = overlapCards(repo, this.overlaps, this.app.projects);
    return h('section', { class: 'code-overlaps', 'aria-label': 'Overlapping open changes', hidden: !cards }, cards);
  }

  errorBox(err) {
    if (err.status === 401) {
      // The page token counts only on the machine the desk runs on.
      return h('div', { class: 'empty-state' }, h('h2', null, 'The code opens on the desk’s own machine'),
        h('p', null, 'desk’s page reads the code as its owner only from the machine desk serves on. From another machine, use a token: desk login, then desk log or desk checkout.'));
    }
    return h('div', { class: 'empty-state' }, h('h2', null, err.status === 404 ? 'Not found' : 'Could not load it'), h('p', null, err.message));
  }

  showError(title, err) {
    replaceChildren(this.el, this.frame(err.status === 401 ? this.errorBox(err) : h('div', { class: 'empty-state' }, h('h2', null, title), h('p', null, err.message))));
  }

  // ---- The log ------------------------------------------------------------------

  async readLog(code, signal) {
    const page = await codeJSON(codePaths.log(code.repo), { signal });
    const entries = page.entries || [];
    this.log = { repo: code.repo, path: '', head: entries[0]?.change || null, entries, next: page.next };
    return this.logBody();
  }

  // The landings that changed a file or folder: the log of a path.
  async readHistory(code, signal) {
    const page = await codeJSON(codePaths.log(code.repo, { path: code.path }), { signal });
    this.log = { repo: code.repo, path: code.path, head: null, entries: page.entries || [], next: page.next };
    const body = this.logBody();
    body.prepend(this.where({ ...code, view: 'history', at: 'main' }),
      h('p', { class: 'muted' }, `The landings that changed ${code.path}, newest first${page.truncated ? ' (the oldest were not read: the history is longer than one read goes)' : ''}.`));
    return body;
  }

  logBody() {
    const log = this.log;
    if (!log.entries.length && log.path) return h('div', { class: 'code-body' }, h('p', { class: 'muted' }, 'No landing changed it.'));
    if (!log.entries.length) {
      return h('div', { class: 'code-body empty-state' }, h('h2', null, 'Nothing has landed yet'),
        h('p', null, 'Land a change from a work folder (desk checkout, desk change, desk land), or import a git history.'));
    }
    this.list = h('ol', { class: 'code-log', 'aria-label': 'Landings, newest first' }, log.entries.map((e) => this.entry(e)));
    const more = log.next
      ? h('button', { type: 'button', class: 'button small', onclick: (ev) => this.older(ev.currentTarget) }, 'Older landings')
      : null;
    return h('div', { class: 'code-body' }, this.list, more);
  }

  entry(e) {
    const repo = this.log.repo;
    return h('li', { class: `code-entry${this.fresh.has(e.seq) ? ' fresh' : ''}`, dataset: { seq: String(e.seq), change: e.change } },
      h('span', { class: 'code-seq muted', title: `Landing ${e.seq} of ${repo}` }, `#${e.seq}`),
      h('a', { class: 'code-change', href: codeHash({ repo, view: 'change', change: e.change }), title: e.change }, shortId(e.change)),
      h('span', { class: 'code-msg' }, firstLine(e.message)),
      e.intents?.length ? h('span', { class: 'code-intents' }, intentLinks(e.intents, this.app.projects)) : null,
      e.rebased ? h('span', { class: 'badge', title: 'main had moved: the server merged it onto main as a new change' }, 'merged on main') : null,
      h('span', { class: 'code-meta muted' },
        h('span', { class: 'code-author', title: e.author }, authorName(e.author)), ' · ',
        // The change's own time: an imported history lands all at once.
        h('time', { datetime: e.time, title: `written ${formatDateTime(e.time)}, landed ${formatDateTime(e.landed_at)} by ${e.landed_by}` }, timeAgo(e.time))));
  }

  async older(button) {
    const log = this.log;
    button.disabled = true;
    try {
      const page = await codeJSON(codePaths.log(log.repo, { before: log.next, path: log.path }));
      if (this.log !== log) return;
      log.entries.push(...(page.entries || []));
      log.next = page.next;
      this.list.append(...(page.entries || []).map((e) => this.entry(e)));
      if (log.next) button.disabled = false;
      else button.remove();
    } catch (err) {
      button.disabled = false;
      console.debug('code: older landings failed', err);
    }
  }

  // New landings at the top of the log, lit up for a moment.
  addLanded(entries, head) {
    const log = this.log;
    const known = new Set(log.entries.map((e) => e.seq));
    const added = entries.filter((e) => !known.has(e.seq));
    log.head = head;
    if (!added.length) return;
    log.entries = [...added, ...log.entries];
    for (const e of added) this.fresh.add(e.seq);
    if (this.list?.isConnected) this.list.prepend(...added.map((e) => this.entry(e)));
    else this.el.querySelector('.code-body')?.replaceWith(this.logBody());
    setTimeout(() => {
      for (const e of added) {
        this.fresh.delete(e.seq);
        this.el.querySelector(`.code-entry[data-seq="${e.seq}"]`)?.classList.remove('fresh');
      }
    }, FRESH_MS);
  }

  // ---- Files ---------------------------------------------------------------------

  async readFiles(code, signal) {
    const { bytes, headers } = await codeBytes(codePaths.files(code.repo, code.at, code.path), { signal });
    const where = this.where(code);
    if (headers.get('X-Desk-Mode') === '40000') {
      const dir = JSON.parse(new TextDecoder().decode(bytes));
      return h('div', { class: 'code-body' }, where, this.folder(code, dir));
    }
    return h('div', { class: 'code-body' }, where, this.file(code, bytes, headers.get('X-Desk-Mode')));
  }

  // The crumbs of the path, and the snapshot it is read at.
  where(code) {
    const parts = crumbs(code.path);
    return h('div', { class: 'code-where' },
      h('nav', { class: 'code-crumbs', 'aria-label': 'Path' }, parts.map((c, i) => [
        i ? h('span', { class: 'muted' }, ' / ') : null,
        i === parts.length - 1 && code.view === 'files'
          ? h('strong', null, c.name)
          : h('a', { href: codeHash({ repo: code.repo, view: 'files', at: code.at, path: c.path }) }, c.name),
      ])),
      h('span', { class: 'code-at muted' }, 'at ', code.at === 'main'
        ? h('code', null, 'main')
        : h('a', { class: 'code-change', href: codeHash({ repo: code.repo, view: 'change', change: code.at }) }, shortId(code.at))));
  }

  folder(code, dir) {
    const entries = sortEntries(dir.entries);
    const rows = entries.map((e) => {
      const path = code.path ? `${code.path}/${e.name}` : e.name;
      const isDir = e.type === 'tree';
      return h('li', { class: `code-entry-file${isDir ? ' dir' : ''}` },
        h('a', { href: codeHash({ repo: code.repo, view: 'files', at: code.at, path }) }, isDir ? `${e.name}/` : e.name),
        e.mode === '100755' ? h('span', { class: 'muted' }, ' executable') : e.mode === '120000' ? h('span', { class: 'muted' }, ' link') : null);
    });
    const history = code.path
      ? h('div', { class: 'code-file-head' }, h('span', { class: 'muted' }, plural(entries.length, 'entry', 'entries')),
        h('a', { class: 'button small', href: codeHash({ repo: code.repo, view: 'history', path: code.path }) }, 'History'))
      : null;
    if (code.path) {
      rows.unshift(h('li', { class: 'code-entry-file dir' }, h('a', { href: codeHash({ repo: code.repo, view: 'files', at: code.at, path: parentPath(code.path) }) }, '../')));
    }
    return [history, h('ul', { class: 'code-folder', 'aria-label': `Folder ${code.path || 'root'}` }, rows)];
  }

  file(code, bytes, mode) {
    const text = textOf(bytes);
    const head = h('div', { class: 'code-file-head' },
      h('span', { class: 'muted' }, formatBytes(bytes.length), mode === '100755' ? ' · executable' : mode === '120000' ? ' · link' : ''),
      h('span', { class: 'code-file-actions' },
        h('a', { class: 'button small', href: codeHash({ repo: code.repo, view: 'history', path: code.path }) }, 'History'),
        text !== null ? h('a', { class: 'button small', href: codeHash({ repo: code.repo, view: 'blame', at: code.at, path: code.path }) }, 'Blame') : null));
    if (text === null) return h('div', { class: 'code-file' }, head, h('p', { class: 'muted' }, 'A binary file: not shown.'));
    const lines = numberedLines(text);
    const shown = lines.slice(0, FILE_LINES);
    return h('div', { class: 'code-file' }, head,
      h('div', { class: 'code-text', role: 'region', 'aria-label': code.path },
        h('pre', { class: 'ln', 'aria-hidden': 'true' }, shown.map((l) => l.n).join('\n')),
        h('pre', { class: 'src' }, h('code', null, shown.map((l) => l.text).join('\n')))),
      lines.length > shown.length ? h('p', { class: 'muted' }, `${lines.length - shown.length} more lines not shown.`) : null);
  }

  // ---- Search --------------------------------------------------------------------

  async readSearch(code, signal) {
    const found = await codeJSON(codePaths.search(code.repo, code.at, code.q), { signal });
    const matches = found.matches || [];
    const rows = matches.map((m) => h('li', null,
      h('a', { href: codeHash({ repo: code.repo, view: 'files', at: code.at, path: m.path }) }, h('code', null, `${m.path}:${m.line}`)),
      ' ', h('code', { class: 'code-match' }, m.text)));
    return h('div', { class: 'code-body' },
      h('p', { class: 'muted' }, `${plural(matches.length, 'line')} holding “${code.q}” at ${code.at === 'main' ? 'main' : shortId(code.at)}`,
        found.truncated ? ' (the search stopped at its limit: narrow the text)' : ''),
      matches.length ? h('ol', { class: 'code-matches' }, rows) : null);
  }

  // ---- Blame ---------------------------------------------------------------------

  async readBlame(code, signal) {
    const blame = await codeJSON(codePaths.blame(code.repo, code.at, code.path), { signal });
    const runs = blameRuns(blame.lines);
    const rows = runs.map((r) => h('tr', { dataset: { change: r.change } },
      h('td', { class: 'blame-who' },
        h('a', { class: 'code-change', href: codeHash({ repo: code.repo, view: 'change', change: r.change }), title: r.change }, shortId(r.change)),
        h('span', { class: 'muted', title: r.author }, ` ${authorName(r.author)}`),
        h('time', { class: 'muted', datetime: r.time, title: formatDateTime(r.time) }, ` ${timeAgo(r.time)}`)),
      h('td', { class: 'ln', 'aria-hidden': 'true' }, h('pre', null, r.lines.map((l) => l.line).join('\n'))),
      h('td', { class: 'src' }, h('pre', null, h('code', null, r.lines.map((l) => l.text).join('\n'))))));
    return h('div', { class: 'code-body' }, this.where(code),
      h('div', { class: 'code-file-head' },
        h('span', { class: 'muted' }, `Blame: ${plural(runs.length, 'run')} of lines, each with the change that made it`),
        h('a', { class: 'button small', href: codeHash({ repo: code.repo, view: 'files', at: code.at, path: code.path }) }, 'The file')),
      h('table', { class: 'code-blame', 'aria-label': `Blame of ${code.path}` }, h('tbody', null, rows)),
      blame.truncated ? h('p', { class: 'muted' }, 'The history is longer than blame reads: the oldest lines name the oldest change it reached.') : null);
  }

  // ---- A change ------------------------------------------------------------------

  async readChange(code, signal) {
    const ch = await codeJSON(codePaths.change(code.repo, code.change), { signal });
    const parent = ch.parents?.[0];
    let diff = null;
    let root = null;
    if (parent) {
      const { bytes } = await codeBytes(codePaths.diff(code.repo, parent, ch.id), { signal });
      diff = diffFiles(new TextDecoder().decode(bytes));
    } else {
      // A first change has nothing to compare with: its root folder instead.
      root = await codeJSON(codePaths.files(code.repo, ch.id, ''), { signal });
    }
    const repo = code.repo;
    const [subject, ...rest] = String(ch.message || '').split('\n');
    const body = rest.join('\n').trim();
    const card = h('section', { class: 'code-change-card', dataset: { change: ch.id } },
      h('h2', null, subject.trim() || '(no message)'),
      body ? h('pre', { class: 'code-message' }, body) : null,
      h('dl', { class: 'code-facts' },
        h('dt', null, 'Change'), h('dd', null, h('code', null, ch.id)),
        h('dt', null, 'Author'), h('dd', null, ch.author),
        h('dt', null, 'Time'), h('dd', null, h('time', { datetime: ch.time }, formatDateTime(ch.time))),
        ch.intents?.length ? [h('dt', null, 'For'), h('dd', { class: 'code-intents' }, intentLinks(ch.intents, this.app.projects))] : null,
        h('dt', null, ch.parents?.length > 1 ? 'Parents' : 'Parent'),
        h('dd', null, ch.parents?.length
          ? ch.parents.map((p, i) => [i ? ', ' : null, h('a', { class: 'code-change', href: codeHash({ repo, view: 'change', change: p }) }, shortId(p))])
          : 'none: the first change')),
      h('a', { class: 'button small', href: codeHash({ repo, view: 'files', at: ch.id }) }, 'Browse the files at this change'));
    return h('div', { class: 'code-body' }, card,
      diff ? this.diffBox(diff, repo, ch.id) : null,
      root ? h('section', { class: 'code-diff', 'aria-label': 'The files of the first change' },
        h('p', { class: 'muted' }, 'The first change: every file is new. Its root folder:'),
        this.folder({ repo, view: 'files', at: ch.id, path: '' }, root)) : null);
  }

  diffBox(files, repo, at) {
    if (!files.length) return h('p', { class: 'muted' }, 'No file differs from the first parent.');
    const added = files.reduce((n, f) => n + f.added, 0);
    const removed = files.reduce((n, f) => n + f.removed, 0);
    let budget = DIFF_TOTAL_LINES;
    return h('section', { class: 'code-diff', 'aria-label': 'The diff against the first parent' },
      h('p', { class: 'muted' }, `${plural(files.length, 'file')} changed, +${added} −${removed} against the first parent`),
      files.map((f) => h('section', { class: `diff-file diff-${f.status}`, dataset: { path: f.path } },
        h('h3', null,
          f.status === 'deleted' ? h('code', null, f.path) : h('a', { href: codeHash({ repo, view: 'files', at, path: f.path }) }, h('code', null, f.path)),
          h('span', { class: 'muted' }, ` ${f.status === 'modified' ? '' : f.status + ' · '}`),
          h('span', { class: 'diff-add' }, `+${f.added}`), ' ', h('span', { class: 'diff-del' }, `−${f.removed}`)),
        f.binary ? h('p', { class: 'muted' }, 'A binary file.') : this.diffTable(f, () => {
          const n = Math.max(0, Math.min(DIFF_LINES, f.lines.length, budget));
          budget -= n;
          return n;
        }))));
  }

  // A file's lines: as many as take() allows of what is left to draw.
  diffTable(f, take) {
    const shown = f.lines.slice(0, take());
    const sign = { add: '+', del: '-', ctx: ' ' };
    return [
      h('table', { class: 'diff-lines' }, h('tbody', null, shown.map((l) => (l.type === 'hunk'
        ? h('tr', { class: 'hunk' }, h('td', { colspan: '3' }, l.text))
        : h('tr', { class: l.type },
          h('td', { class: 'ln' }, l.old ?? ''),
          h('td', { class: 'ln' }, l.new ?? ''),
          h('td', { class: 'src' }, h('code', null, sign[l.type] + l.text))))))),
      f.lines.length > shown.length ? h('p', { class: 'muted' }, `${f.lines.length - shown.length} more lines not shown.`) : null,
    ];
  }
}
