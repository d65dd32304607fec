// The top bar: project switcher (with New project… and settings), the view
// links, search, New issue, theme and help.

import { h, replaceChildren, icon } from './dom.js';
import { cycleTheme, themeLabel } from './theme.js';
import { codeHash } from './router.js';
import { servesCode } from './api.js';

const SEARCH_DEBOUNCE_MS = 160;

export class TopBar {
  /** @param {import('./app.js').DeskApp} app */
  constructor(app) {
    this.app = app;
    this.menuHost = document.getElementById('project-menu');
    this.nav = document.getElementById('views-nav');
    this.search = document.getElementById('search');
    this.themeButton = document.getElementById('theme-button');

    this.button = h('button', {
      type: 'button',
      class: 'button project-button',
      'aria-haspopup': 'menu',
      'aria-expanded': 'false',
      title: 'Switch project',
      onclick: () => this.toggleMenu(),
    });
    this.menu = h('div', { class: 'menu', role: 'menu', hidden: true, 'aria-label': 'Projects' });
    // What the button and the menu were last drawn from (see render).
    this.buttonName = null;
    this.menuProjects = null;
    this.menuProject = null;
    this.menuHost.append(this.button, this.menu);
    this.menu.addEventListener('keydown', (e) => this.menuKeys(e));
    document.addEventListener('click', (e) => {
      if (!this.menuHost.contains(e.target)) this.closeMenu();
    });

    let timer = 0;
    this.search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => app.setSearch(this.search.value.trim()), SEARCH_DEBOUNCE_MS);
    });
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        this.search.value = '';
        clearTimeout(timer);
        app.setSearch('');
        this.search.blur();
        app.focusList();
      } else if (e.key === 'Enter' || e.key === 'ArrowDown') {
        clearTimeout(timer);
        app.setSearch(this.search.value.trim());
        e.preventDefault();
        app.focusList();
      }
    });

    document.getElementById('new-issue-button').addEventListener('click', () => app.newIssue());
    document.getElementById('help-button').addEventListener('click', () => app.showHelp());
    this.themeButton.addEventListener('click', () => this.cycleTheme());
    this.showTheme();
  }

  cycleTheme() {
    cycleTheme();
    this.showTheme();
  }

  showTheme() {
    const label = `${themeLabel()} (t to change)`;
    this.themeButton.title = label;
    this.themeButton.setAttribute('aria-label', label);
  }

  render() {
    const { projects, project, route } = this.app;
    const current = project || projects.find((p) => p.slug === route.project);
    // What did not change is not rebuilt: opening an issue changes nothing
    // here, and a rebuilt top bar would be a frame to render before the issue.
    const name = current ? current.name : 'Projects';
    if (name !== this.buttonName) {
      this.buttonName = name;
      replaceChildren(this.button, h('span', { class: 'name' }, name), icon('down'));
    }
    // An open menu is left alone, so the focus in it stays where the owner put it.
    if (this.menu.hidden && (projects !== this.menuProjects || project !== this.menuProject)) this.renderMenu();

    this.renderNav();
    if (document.activeElement !== this.search && this.search.value !== this.app.filters.q) this.search.value = this.app.filters.q;
  }

  /** The view links; Agents carries how many sessions wait for the owner. */
  renderNav() {
    const { projects, project, route } = this.app;
    const slug = (project || projects.find((p) => p.slug === route.project))?.slug;
    const waiting = this.app.agents?.attention || 0;
    // Agent changes redraw the links often; unchanged links stay, and so does a focus on them.
    // The Code link opens the project's repository when it has one.
    const repo = slug ? this.app.codeStrip?.reposOf(slug)[0] : null;
    const codeHref = repo ? codeHash({ repo: repo.slug }) : '#/~code';
    const signature = `${slug}|${route.handoff}|${route.pair}|${route.agents}|${route.office}|${Boolean(route.code)}|${codeHref}|${waiting}`;
    if (signature === this.navSignature) return;
    this.navSignature = signature;
    const links = [];
    if (slug) {
      links.push(h('a', { href: `#/${slug}`, 'aria-current': !route.handoff && !route.agents && !route.pair && !route.office && !route.code ? 'page' : null }, 'Issues'));
      links.push(h('a', { href: `#/${slug}/~handoff`, 'aria-current': route.handoff ? 'page' : null }, 'Handoff'));
      links.push(h('a', { href: `#/${slug}/~pair`, 'aria-current': route.pair ? 'page' : null, title: 'The agents pairing on this project' }, 'Pair'));
    }
    const needYou = `${waiting} ${waiting === 1 ? 'needs' : 'need'} you`;
    links.push(h('a', {
      href: '#/~agents',
      'aria-current': route.agents ? 'page' : null,
      title: waiting ? `Agents: ${needYou} (a)` : 'Every agent session on this machine (a)',
    }, 'Agents', waiting ? [h('span', { class: 'nav-count', 'aria-hidden': 'true' }, String(waiting)), h('span', { class: 'visually-hidden' }, `, ${needYou}`)] : null));
    links.push(h('a', { href: '#/~office', 'aria-current': route.office ? 'page' : null, title: 'The agents at work, as an office' }, 'Office'));
    if (servesCode()) links.push(h('a', { href: codeHref, 'aria-current': route.code ? 'page' : null, title: 'The code: log, files, diffs, blame and overlaps' }, 'Code'));
    replaceChildren(this.nav, links);
  }

  renderMenu() {
    const { projects, project } = this.app;
    this.menuProjects = projects;
    this.menuProject = project;
    const items = projects.map((p) => {
      const open = ['to_check', 'auto_check', 'reported', 'failed', 'open', 'in_progress'].reduce((n, s) => n + (p.counts?.[s] || 0), 0);
      return h(
        'button',
        {
          type: 'button',
          class: 'menu-item',
          role: 'menuitem',
          'aria-current': p.slug === project?.slug ? 'true' : null,
          onclick: () => {
            this.closeMenu();
            this.app.switchProject(p.slug);
          },
        },
        h('span', null, p.name),
        h('span', { class: 'count', title: `${open} unfinished` }, String(open)),
      );
    });
    const extra = [h('div', { class: 'menu-sep', role: 'separator' })];
    extra.push(h('button', { type: 'button', class: 'menu-item', role: 'menuitem', onclick: () => { this.closeMenu(); this.app.newProject(); } }, icon('plus'), 'New project…'));
    if (project) {
      extra.push(h('button', { type: 'button', class: 'menu-item', role: 'menuitem', onclick: () => { this.closeMenu(); this.app.projectSettings(); } }, icon('gear'), 'Project settings…'));
    }
    replaceChildren(this.menu, items, extra);
  }

  toggleMenu() {
    if (this.menu.hidden) this.openMenu();
    else this.closeMenu();
  }

  openMenu() {
    this.renderMenu();
    this.menu.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this.menu.querySelector('.menu-item')?.focus();
  }

  closeMenu() {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
  }

  menuKeys(e) {
    const items = [...this.menu.querySelectorAll('.menu-item')];
    const i = items.indexOf(document.activeElement);
    if (e.key === 'ArrowDown') items[(i + 1) % items.length]?.focus();
    else if (e.key === 'ArrowUp') items[(i - 1 + items.length) % items.length]?.focus();
    else if (e.key === 'Escape') {
      this.closeMenu();
      this.button.focus();
    } else return;
    e.preventDefault();
    e.stopPropagation();
  }

  focusSearch() {
    this.search.focus();
    this.search.select();
  }
}
