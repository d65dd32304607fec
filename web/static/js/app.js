// The desk in the browser: the state the views draw from, the loading of
// projects, lists and issues, the owner's actions, and live updates.
//
// Views never fetch on their own and never hold state that others need; they
// call the app, and the app redraws them. Every load goes through a Latest,
// so a slow response never replaces a view the owner has since left.
//
// The list is what the owner sees first, so only its modules load before
// the first rows. The rest of the frame (top bar, keys, splitter, the live
// connection) and then the issue view, the handoff, the agents view and the
// dialogs load right after (their files are preloaded at low priority once
// the rows are on screen, see LATER_MODULES); each part draws itself when it
// is there.

import { getJSON, getVersioned, postJSON, patchJSON, paths, isAbort, Latest, takeEarlyList, servesCode } from './api.js';
import { parseRoute, formatRoute } from './router.js';
import { prefs } from './prefs.js';
import { defaultFilters, cleanFilters, listQuery, viewLimit, FIRST_PAGE } from './list-query.js';
import { backlogGroups, boardColumns, navigationOrder, groupKey } from './list-model.js';
import { Selection } from './selection.js';
import { STATUSES, OWNER } from './enums.js';
import { fileToAttachment, filesOf } from './files.js';
import { toast, toastError } from './toast.js';
import { plural } from './format.js';
import { afterPaint, dialogOpen, h, isTyping, installPopoverDismiss } from './dom.js';
import { ListPane } from './list/list-pane.js';

// How long a changed row or timeline entry stays highlighted.
const FRESH_MS = 2600;
// The longest the rest of the page waits for the first rows.
const FIRST_ROWS_WAIT_MS = 400;
// How long an issue read ahead (a press on its row) may wait for the
// click that opens it.
const PREFETCH_MS = 1000;
// How long an issue may take to arrive before the pane shows what the list
// knows of it.
const PENDING_MS = 100;
const PHONE = '(max-width: 760px)';

// Every module the first rows do not need (index.html names those that
// they do). They are preloaded at low priority, all at once, when the app
// starts loading them, so the browser fetches them in parallel rather than
// one level of imports at a time; naming them in index.html instead costs
// the browser that work before the first script runs. page.test.mjs checks
// that the two lists name every module.
const LATER_MODULES = [
  'top-bar.js', 'live-client.js', 'live-updates.js', 'keyboard.js', 'splitter.js', 'theme.js', 'throttle.js',
  'build-controls.js', 'clipboard.js', 'markdown.js', 'timeline-model.js', 'commands.js', 'copy-prompt.js',
  'handoff-view.js', 'diff.js', 'lightbox.js',
  'detail/detail-view.js', 'detail/header.js', 'detail/fields.js', 'detail/location-card.js', 'detail/plan.js',
  'detail/relations.js', 'detail/attachments.js', 'detail/timeline.js', 'detail/composer.js', 'detail/working-agents.js',
  'agents/agents-view.js', 'agents/agent-model.js', 'agents/agent-sessions.js', 'agents/agent-alerts.js',
  'pair/pair-view.js', 'pair/pair-model.js', 'pair/pair-terminals.js',
  'dialogs/dialog.js', 'dialogs/new-issue.js', 'dialogs/new-project.js', 'dialogs/project-settings.js',
  'dialogs/merge.js', 'dialogs/help.js', 'first-run.js',
  'office/office-view.js', 'office/office-api.js', 'office/model.js', 'office/scene.js', 'office/art.js', 'office/renderer.js',
  'office/camera.js', 'office/roster.js', 'office/card.js', 'office/sounds.js', 'office/editor.js',
  'code/code-view.js', 'code/code-strip.js', 'code/code-api.js', 'code/code-model.js', 'code/overlap-cards.js',
  'detail/landings.js',
  'agents/managed-sessions.js', 'agents/managed-view.js', 'terminal/terminal.js', 'terminal/terminal-model.js', 'terminal/csp-styles.js',
];

// An issue no agent session works on.
const NO_AGENTS = Object.freeze([]);

// Fields of a full issue that the list rows carry (summary=1 drops body and plan).
const SUMMARY_DROP = ['body', 'plan', 'comments', 'attachments', 'activity', 'children', 'merged_sources', 'parent_info', 'commands', 'redirected_from', 'agents'];

export class DeskApp {
  constructor() {
    this.route = parseRoute(location.hash);
    this.projects = [];
    this.project = null;
    this.slug = null;
    this.view = 'triage';
    this.filters = defaultFilters();
    this.collapsed = new Set();
    this.list = emptyList();
    this.pages = 1;
    this.listError = null;
    this.model = { issues: [], groups: [], columns: [] };
    this.order = [];
    this.positions = new Map();
    this.cursor = null;
    this.selection = new Selection();
    this.fresh = new Map();
    this.detail = null;
    /** An issue read ahead of its click: {id, answer, at} (see prefetchIssue). */
    this.prefetched = null;
    /** @type {import('./live-updates.js').LiveUpdates|null} */
    this.updates = null;

    this.listReq = new Latest();
    this.detailReq = new Latest();
    this.projectReq = new Latest();
    this.projectsReq = new Latest();

    // Issue ids in markdown link to issues of the same project.
    this.issueHref = (id) => {
      const prefix = this.project?.prefix || this.projects.find((p) => p.slug === this.slug)?.prefix;
      return prefix && id.toUpperCase().startsWith(`${prefix}-`) ? `#/${this.slug}/${id}` : null;
    };

    /** @type {import('./top-bar.js').TopBar|null} */
    this.topBar = null;
    /** @type {import('./live-client.js').LiveClient|null} */
    this.live = null;
    this.listPane = new ListPane(document.getElementById('list-pane'), this);
    this.detailPane = document.getElementById('detail-pane');
    this.agentsPane = document.getElementById('agents-pane');
    this.officePane = document.getElementById('office-pane');
    /** @type {import('./office/office-view.js').OfficeView|null} */
    this.officeView = null;
    this.codePane = document.getElementById('code-pane');
    /** @type {import('./code/code-view.js').CodeView|null} */
    this.codeView = null;
    /** @type {import('./code/code-strip.js').CodeStrip|null} the project's code on its page */
    this.codeStrip = null;
    /** @type {import('./detail/detail-view.js').DetailView|null} */
    this.detailView = null;
    /** @type {import('./handoff-view.js').HandoffView|null} */
    this.handoffView = null;
    /** @type {import('./agents/agents-view.js').AgentsView|null} */
    this.agentsView = null;
    /** @type {import('./pair/pair-view.js').PairView|null} */
    this.pairView = null;
    /** @type {import('./agents/agent-sessions.js').AgentSessions|null} the agent sessions on this machine, live */
    this.agents = null;
    this.workspace = document.getElementById('workspace');

  }

  start() {
    installPopoverDismiss();
    addEventListener('hashchange', () => this.onRoute());
    document.addEventListener('paste', (e) => this.paste(e));
    this.loadProjects();
    this.onRoute();
    // The rest of the page loads once the rows are on screen, so that it
    // does not compete with them; an address that opens an issue, the
    // handoff or the agents needs its view at once.
    const r = this.route;
    const now = r.issue || r.handoff || r.agents || r.pair;
    this.views = now ? this.loadViews() : this.firstRows.then(() => this.loadViews());
    this.chrome = this.firstRows.then(() => this.loadChrome());
    // Says that every part of the page is there (keys, live, the issue view),
    // for whoever drives the page from outside, such as the browser tests.
    Promise.all([this.views, this.chrome]).then(() => {
      document.body.dataset.ready = 'true';
    });
  }

  /** Resolves when the first rows are painted, or a little later at most. */
  get firstRows() {
    if (!this.firstRowsPromise) {
      this.firstRowsPromise = new Promise((resolve) => {
        this.firstRowsDone = resolve;
        setTimeout(resolve, FIRST_ROWS_WAIT_MS);
      });
    }
    return this.firstRowsPromise;
  }

  /** Called by the list view once the first rows have been painted. */
  rowsPainted() {
    this.firstRows;
    this.firstRowsDone();
  }

  // The top bar, the keys, the splitter, the live connection and the agent sessions.
  loadChrome() {
    return Promise.all([
      import('./top-bar.js'),
      import('./live-client.js'),
      import('./live-updates.js'),
      import('./keyboard.js'),
      import('./splitter.js'),
      this.loadAgents(),
    ]).then(([topBar, live, updates, keyboard, splitter]) => {
      this.topBar = new topBar.TopBar(this);
      this.topBar.render();
      keyboard.installKeyboard(this);
      splitter.installSplitter(document.getElementById('splitter'), this.workspace);
      this.updates = new updates.LiveUpdates(this, document.getElementById('live-state'));
      this.live = new live.LiveClient({
        onChange: (changes) => this.updates.receive(changes),
        onRefresh: () => this.refresh({ quiet: true }),
        onResync: () => this.refresh({ quiet: true }),
        onMode: (mode) => {
          this.updates.showMode(mode);
          this.agents?.setMode(mode);
        },
        shownChange: () => this.project?.last_change,
      });
      this.live.follow(this.route.agents || this.route.office || this.route.code ? null : this.slug);
      if (servesCode()) this.loadCodeStrip();
    });
  }

  // The project's code on its page: its repositories and their overlaps.
  loadCodeStrip() {
    this.codeStripLoading ||= Promise.all([import('./code/code-strip.js'), this.codeStyle()]).then(([m]) => {
      this.codeStrip = new m.CodeStrip(this.listPane.codeEl, this);
      if (this.slug) this.codeStrip.update();
    });
    return this.codeStripLoading;
  }

  // The issue view, the handoff and the agents view, with their styles,
  // and every other module the page did not name (preloadLater).
  loadViews() {
    preloadLater();
    return Promise.all([
      // Beside the modules, under the page's versioned prefix.
      loadStyle(new URL('../css/detail.css', import.meta.url).pathname),
      loadStyle(new URL('../css/agents.css', import.meta.url).pathname),
      loadStyle(new URL('../css/pair.css', import.meta.url).pathname),
      import('./detail/detail-view.js'),
      import('./handoff-view.js'),
      import('./agents/agents-view.js'),
      import('./pair/pair-view.js'),
      this.loadAgents(),
    ]).then(([, , , detail, handoff, agents, pairView]) => {
      this.detailView = new detail.DetailView(this.detailPane, this);
      this.handoffView = new handoff.HandoffView(this.detailPane, this);
      this.agentsView = new agents.AgentsView(this.agentsPane, this);
      this.pairView = new pairView.PairView(this.detailPane, this);
      this.showPane();
    });
  }

  // The agent sessions of the machine: the Agents view lists them, rows and
  // the open issue show who works on what, and the alerts follow them.
  loadAgents() {
    this.agentsLoading ||= import('./agents/agent-sessions.js').then((m) => {
      this.agents = new m.AgentSessions({ onChange: () => this.agentsChanged() });
      if (this.live) this.agents.setMode(this.live.mode);
      this.agents.start();
    });
    return this.agentsLoading;
  }

  /** The agent sessions changed: every place that shows them follows. */
  agentsChanged() {
    this.listPane.view.refresh();
    this.detailView?.updateAgents();
    this.agentsView?.update();
    this.officeView?.update();
    this.topBar?.renderNav();
  }

  /** The row markers of the sessions working on an issue (see issueMark). */
  agentMarks(id) {
    return this.agents?.marks(id) || NO_AGENTS;
  }

  /**
   * The live sessions on an issue: from the page's live list once it is
   * loaded, else as the issue's detail listed them (fallback).
   */
  agentsOnIssue(id, fallback) {
    return this.agents?.loaded ? this.agents.onIssue(id) : fallback || NO_AGENTS;
  }

  // ---- Routing ------------------------------------------------------------

  // Routes change through the History API and are drawn at once: waiting
  // for the hashchange event would cost the owner a frame on every click.
  // Back and forward still arrive as hashchange.
  navigate(route, { replace = false } = {}) {
    const hash = formatRoute(route);
    if (hash !== location.hash) {
      if (replace) history.replaceState(null, '', hash);
      else history.pushState(null, '', hash);
    }
    this.onRoute();
  }

  onRoute() {
    const route = parseRoute(location.hash);
    this.route = route;
    this.workspace.classList.toggle('agents', route.agents);
    // Set only when it changes: the same value written again still has
    // the browser restyle the pane, on every click on a row.
    if (this.agentsPane.hidden !== !route.agents) this.agentsPane.hidden = !route.agents;
    if (!route.agents) this.agentsView?.hide();
    this.workspace.classList.toggle('office', route.office);
    if (this.officePane.hidden !== !route.office) this.officePane.hidden = !route.office;
    if (route.office) this.showOffice();
    else this.officeView?.hide();
    this.workspace.classList.toggle('code', Boolean(route.code));
    if (this.codePane.hidden !== !route.code) this.codePane.hidden = !route.code;
    if (route.code) this.showCode();
    else this.codeView?.hide();
    document.body.classList.toggle('detail-open', Boolean(route.issue || route.handoff || route.pair));
    if (route.agents || route.office || route.code) {
      this.live?.follow(null);
    } else if (!route.project) {
      this.chooseProject();
      return;
    } else if (route.project !== this.slug) {
      this.enterProject(route.project);
    } else if (this.live && this.live.project !== this.slug) {
      // Back from the Agents view, which follows every project.
      this.live.follow(this.slug);
    }
    // The issue is asked for first. An issue on its way moves the list's
    // cursor when it is drawn (see loadDetail).
    const loading = this.showPane();
    if (!route.issue) this.listPane.view.refresh();
    else if (!loading) this.setCursor(route.issue, { reveal: true });
    this.topBar?.render();
  }

  // The office view (office/office-view.js), loaded when it is first opened.
  showOffice() {
    if (!this.officeLoading) {
      // What it draws is asked for first; then its modules, all at once,
      // rather than one level of imports at a time.
      const data = Promise.all([import('./office/office-api.js').then((m) => m.prefetch()), this.loadAgents()]);
      loadStyle(new URL('../css/office.css', import.meta.url).pathname);
      const now = LATER_MODULES.filter((m) => m.startsWith('office/') || m.startsWith('agents/') || m === 'throttle.js');
      for (const m of now) document.head.append(h('link', { rel: 'modulepreload', href: new URL(m, import.meta.url).pathname }));
      this.officeLoading = Promise.all([import('./office/office-view.js'), data]).then(([m]) => {
        this.officeView = new m.OfficeView(this.officePane, this);
      });
    }
    this.officeLoading.then(
      () => this.route.office && this.officeView.show(),
      (err) => toastError(err, 'Could not load the office'),
    );
  }

  /** The style of the Code view and of the project's code, loaded once. */
  codeStyle() {
    this.codeStyleLoading ||= loadStyle(new URL('../css/code.css', import.meta.url).pathname);
    return this.codeStyleLoading;
  }

  // The Code view (code/code-view.js), loaded when it is first opened.
  showCode() {
    this.codeLoading ||= Promise.all([import('./code/code-view.js'), this.codeStyle()]).then(([m]) => {
      this.codeView = new m.CodeView(this.codePane, this);
    });
    this.codeLoading.then(
      () => this.route.code && this.codeView.show(this.route.code),
      (err) => toastError(err, 'Could not load the code'),
    );
  }

  /**
   * Draws the right pane (or the agents view) for the route, once its
   * modules are loaded.
   * @returns {boolean} true when the route's issue is being loaded
   */
  showPane() {
    const route = this.route;
    if (!this.detailView) return false;
    if (route.agents) {
      this.agentsView.show(route.agent);
      return false;
    }
    if (!route.project) return false;
    if (route.handoff) {
      this.pairView.close();
      this.detailReq.cancel();
      this.detail = null;
      this.detailView.reset();
      this.handoffView.open(this.slug);
      return false;
    }
    this.handoffView.close();
    if (route.pair) {
      this.detailReq.cancel();
      this.detail = null;
      this.detailView.reset();
      this.pairView.open(this.slug, route.pairId);
      return false;
    }
    this.pairView.close();
    if (route.issue) {
      if (this.detail?.id === route.issue && this.detailView.current?.id === route.issue) return false;
      this.loadDetail(route.issue);
      return true;
    } else {
      this.detailReq.cancel();
      this.detail = null;
      this.detailView.showEmpty();
    }
    return false;
  }

  /** The start page: the last project used, else the first, else an invitation to create one. */
  async chooseProject() {
    if (!this.projectsLoaded) await this.loadProjects();
    if (parseRoute(location.hash).project) return; // the owner went somewhere meanwhile
    const last = prefs.lastProject();
    const pick = this.projects.find((p) => p.slug === last) || this.projects[0];
    if (pick) {
      this.navigate({ project: pick.slug }, { replace: true });
      return;
    }
    this.slug = null;
    this.project = null;
    document.body.classList.add('desk-empty');
    this.listPane.render();
    const { firstRunPanel } = await import('./first-run.js');
    if (!this.slug) this.listPane.showMessage(firstRunPanel(this));
    this.detailView?.showEmpty();
    this.topBar?.render();
  }

  enterProject(slug) {
    document.body.classList.remove('desk-empty');
    this.slug = slug;
    this.project = this.projects.find((p) => p.slug === slug) || null;
    prefs.setLastProject(slug);
    this.filters = cleanFilters(prefs.filters(slug));
    this.view = ['triage', 'backlog', 'board'].includes(prefs.view(slug)) ? prefs.view(slug) : 'triage';
    this.collapsed = prefs.collapsed(slug);
    this.list = emptyList();
    this.pages = 1;
    this.listError = null;
    this.model = { issues: [], groups: [], columns: [] };
    this.order = [];
    this.positions = new Map();
    this.cursor = null;
    this.selection.clear();
    this.fresh.clear();
    this.detail = null;
    this.listPane.view.clear();
    this.listPane.view.firstPaint = false;
    if (this.topBar) this.topBar.search.value = this.filters.q;
    this.loadList();
    this.loadProject();
    this.live?.follow(slug);
    this.codeStrip?.update();
  }

  switchProject(slug) {
    this.navigate({ project: slug });
  }

  // ---- Loading ------------------------------------------------------------

  async loadProjects() {
    const req = this.projectsReq.begin();
    try {
      const data = await getJSON(paths.projects(), { signal: req.signal });
      if (!req.current()) return;
      this.projects = data.projects || [];
      this.projectsLoaded = true;
      if (!this.project && this.slug) this.project = this.projects.find((p) => p.slug === this.slug) || null;
      this.topBar?.render();
      // The Agents view names sessions' projects, the Code view links intents to them.
      this.agentsView?.update();
      this.codeView?.projectsLoaded();
    } catch (err) {
      if (!isAbort(err) && req.current()) toastError(err, 'Could not load the projects');
    }
  }

  async loadProject() {
    const slug = this.slug;
    if (!slug) return;
    const req = this.projectReq.begin();
    try {
      const project = await getJSON(paths.project(slug), { signal: req.signal });
      if (!req.current() || slug !== this.slug) return;
      const first = !this.project;
      this.project = project;
      this.listPane.filters.render();
      if (!this.list.loaded) this.listPane.render();
      // An issue drawn before the project was known gets its issue links now.
      if (first && this.detail && !this.detailView.isEditing()) this.showDetail(this.detail);
      this.topBar?.render();
      if (!this.route.issue && !this.route.handoff && !this.route.agents) this.detailView?.showEmpty();
    } catch (err) {
      if (isAbort(err) || !req.current()) return;
      if (err.status === 404) {
        toast(`There is no project “${slug}”.`, { error: true });
        prefs.setLastProject(null);
        this.slug = null;
        this.navigate({ project: null }, { replace: true });
      } else {
        toastError(err, 'Could not load the project');
      }
    }
  }

  /**
   * Loads the list for the current filters and view. A project that has
   * nothing on screen yet gets a short first page (fast to fetch and draw),
   * and the full page right after it.
   * @param {{live?: boolean}} opts live: a change from elsewhere; changed rows light up
   */
  async loadList({ live = false } = {}) {
    const slug = this.slug;
    if (!slug) return;
    const full = viewLimit(this.view, this.pages);
    const limit = this.list.loaded ? full : Math.min(full, FIRST_PAGE);
    const url = paths.issues(slug, listQuery(this.filters, this.view, limit));
    const req = this.listReq.begin();
    const sameQuery = this.list.url === url;
    if (!live) this.listPane.setLoading(true);
    try {
      const res = await (takeEarlyList(url) || getVersioned(url, sameQuery ? this.list.etag : null, { signal: req.signal }));
      if (!req.current() || slug !== this.slug) return;
      this.listPane.setLoading(false);
      const partial = limit < full && Boolean(res.data) && res.data.total > limit;
      if (!res.unchanged) this.applyList(res.data, url, res.etag, live && sameQuery, partial);
      // The rest of the page once the short one is on screen: asked for
      // earlier, its answer (some 750 kB for 1,000 issues) is built by the
      // server and read by the page while the first rows wait for their
      // frame. A newer load of the list makes it moot.
      if (partial) this.firstRows.then(() => req.current() && this.loadList({ live: true }));
    } catch (err) {
      if (isAbort(err) || !req.current()) return;
      this.listPane.setLoading(false);
      this.listError = `Could not load the issues: ${err.message}`;
      this.listPane.render();
    }
  }

  applyList(data, url, etag, markFresh, partial = false) {
    const before = this.list.loaded ? new Map(this.list.issues.map((i) => [i.id, i])) : null;
    if (markFresh && before) {
      const until = Date.now() + FRESH_MS;
      for (const issue of data.issues) {
        const old = before.get(issue.id);
        if (!old || old.updated_at !== issue.updated_at || old.comment_count !== issue.comment_count) this.fresh.set(issue.id, until);
      }
    }
    this.list = {
      url,
      etag,
      loaded: true,
      issues: data.issues || [],
      total: data.total ?? (data.issues || []).length,
      counts: data.counts || null,
      search: data.search || null,
      // The short first page, while the rest of the page is on its way.
      partial,
    };
    this.listError = null;
    this.rebuildModel();
    this.listPane.render();
    this.topBar?.render();
    if (!performance.getEntriesByName('desk:list-drawn').length) performance.mark('desk:list-drawn');
  }

  rebuildModel() {
    this.workspace.classList.toggle('board', this.view === 'board');
    const issues = this.list.issues;
    const groups = this.view === 'backlog' ? backlogGroups(issues) : [];
    const columns = this.view === 'board' ? boardColumns(issues, this.filters.statuses) : [];
    this.model = { issues, groups, columns };
    this.order = navigationOrder(this.view, issues, groups, columns);
    this.positions = new Map(this.order.map((id, i) => [id, i]));
    this.byId = new Map(issues.map((i) => [i.id, i]));
    this.selection.retain(this.positions);
    if (this.cursor && !this.positions.has(this.cursor) && this.route.issue !== this.cursor) this.cursor = null;
  }

  positionOf(id) {
    return this.positions.get(id) ?? -1;
  }

  issueById(id) {
    return this.byId?.get(id) || (this.detail?.id === id ? this.detail : null);
  }

  /** Highlights an issue's row for a moment: it just changed. */
  markFresh(id) {
    this.fresh.set(id, Date.now() + FRESH_MS);
  }

  isFresh(id) {
    const until = this.fresh.get(id);
    if (!until) return false;
    if (until > Date.now()) return true;
    this.fresh.delete(id);
    return false;
  }

  /**
   * Starts reading an issue that the owner is about to open (a press on
   * its row); loadDetail takes the answer when the click opens it.
   */
  prefetchIssue(id) {
    if (this.route.issue === id) return;
    const answer = getJSON(paths.issue(id));
    // Its error is reported by the load that takes it, if one does.
    answer.catch(() => {});
    this.prefetched = { id, answer, at: performance.now() };
  }

  async loadDetail(id) {
    const req = this.detailReq.begin();
    this.redirect = null;
    // Ask first (or take the answer a press on the row asked for).
    const ahead = this.prefetched;
    this.prefetched = null;
    const fresh = ahead?.id === id && performance.now() - ahead.at < PREFETCH_MS;
    const answer = fresh ? ahead.answer : getJSON(paths.issue(id), { signal: req.signal });
    // Nothing on screen changes until the issue is drawn: then the list's
    // cursor moves too, in the same frame. Changed at once, the page would
    // have the browser render a frame for the click first, and the answer,
    // there by then, would wait behind it. Only a slow answer has the pane
    // show what the list knows of the issue first. Whatever the pane still
    // shows meanwhile no longer takes the keys.
    this.detailView.reset();
    const drawn = (draw) => {
      draw();
      if (this.route.issue) this.setCursor(this.route.issue, { reveal: true });
    };
    const summary = this.byId?.get(id);
    const pending = summary ? setTimeout(() => req.current() && drawn(() => this.detailView.showPending(summary)), PENDING_MS) : 0;
    try {
      const detail = await answer;
      clearTimeout(pending);
      if (!req.current() || this.route.issue !== id) return;
      if (detail.redirected_from || detail.id !== id) {
        // A merged id leads to its target; the address follows.
        history.replaceState(null, '', formatRoute({ project: this.slug, issue: detail.id }));
        this.route = parseRoute(location.hash);
        toast(`${id} was merged into ${detail.id}`);
      }
      drawn(() => this.showDetail(detail));
    } catch (err) {
      clearTimeout(pending);
      if (isAbort(err) || !req.current()) return;
      this.detail = null;
      drawn(() => this.detailView.showError(id, err.status === 404 ? `There is no issue ${id}.` : err.message));
    }
  }

  showDetail(detail) {
    // "MG-9 was merged into MG-3" stays while MG-3, reached through MG-9, is open.
    if (detail.redirected_from) this.redirect = { from: detail.redirected_from, id: detail.id };
    else if (this.redirect?.id === detail.id) detail = { ...detail, redirected_from: this.redirect.from };
    // A live echo of the owner's own write brings nothing new: keep the DOM (and the focus).
    const text = JSON.stringify(detail);
    if (this.detail?.id === detail.id && this.detailText === text && this.detailView.current?.id === detail.id) return;
    this.detailText = text;
    this.detail = detail;
    this.detailView.show(detail);
    // When the issue was in the DOM, and when it had been painted (for the benchmark).
    performance.mark(`desk:drawn:${detail.id}`);
    afterPaint(() => performance.mark(`desk:detail:${detail.id}`));
  }

  /** Reloads the open issue (after a live change); waits while the owner edits it. */
  async refreshDetail() {
    const id = this.detail?.id;
    if (!id || this.route.issue !== id) return;
    if (this.detailView.isEditing()) {
      this.detailView.deferRefresh();
      return;
    }
    const req = this.detailReq.begin();
    try {
      const detail = await getJSON(paths.issue(id), { signal: req.signal });
      if (!req.current() || this.route.issue !== id) return;
      if (this.detailView.isEditing()) {
        this.detailView.deferRefresh();
        return;
      }
      this.showDetail(detail);
    } catch (err) {
      if (isAbort(err) || !req.current()) return;
      if (err.status === 404) this.detailView.showError(id, `${id} was deleted.`);
    }
  }

  /** Reloads everything on screen (r, or after the live stream was down). */
  refresh({ quiet = false } = {}) {
    this.agents?.refresh.request();
    if (this.route.agents) this.agentsView?.refreshSession();
    if (!this.slug) {
      this.loadProjects();
      return;
    }
    this.loadProjects();
    this.loadProject();
    this.loadList({ live: quiet });
    if (this.route.issue) this.refreshDetail();
    if (this.route.handoff) this.handoffView?.changed();
    if (!quiet) toast('Refreshed');
  }

  // ---- Filters and views ---------------------------------------------------

  saveFilters() {
    if (this.slug) prefs.setFilters(this.slug, { ...this.filters, q: '' });
  }

  filtersChanged() {
    this.saveFilters();
    this.pages = 1;
    this.loadList();
    this.listPane.filters.render();
  }

  setFilter(key, value) {
    this.filters[key] = value;
    this.filtersChanged();
  }

  setSearch(q) {
    if (q === this.filters.q) return;
    this.filters.q = q;
    this.filtersChanged();
  }

  toggleStatus(status, only) {
    const set = new Set(this.filters.statuses);
    if (only) {
      this.filters.statuses = [status];
    } else {
      if (set.has(status)) set.delete(status);
      else set.add(status);
      this.filters.statuses = STATUSES.filter((s) => set.has(s));
    }
    this.leaveBacklog();
    this.filtersChanged();
  }

  // Status chips belong to triage and the board; choosing one leaves the backlog.
  leaveBacklog() {
    if (this.view !== 'backlog') return;
    this.view = 'triage';
    prefs.setView(this.slug, 'triage');
  }

  showOnlyStatus(status) {
    if (!this.slug) return;
    this.toggleStatus(status, true);
  }

  showAllStatuses() {
    if (!this.slug) return;
    this.filters.statuses = [...STATUSES];
    this.leaveBacklog();
    this.filtersChanged();
  }

  resetFilters() {
    this.filters = defaultFilters();
    if (this.topBar) this.topBar.search.value = '';
    this.filtersChanged();
  }

  setView(view) {
    if (!this.slug || view === this.view) return;
    this.view = view;
    prefs.setView(this.slug, view);
    this.pages = 1;
    // The loaded issues still fit the new view's frame until the new list arrives.
    this.rebuildModel();
    this.listPane.render();
    this.loadList();
  }

  toggleBacklog() {
    this.setView(this.view === 'backlog' ? 'triage' : 'backlog');
  }

  toggleGroup(key) {
    if (this.collapsed.has(key)) this.collapsed.delete(key);
    else this.collapsed.add(key);
    prefs.setCollapsed(this.slug, this.collapsed);
    this.listPane.view.render();
  }

  showMore() {
    this.pages++;
    this.loadList();
  }

  // ---- Cursor, selection ---------------------------------------------------

  setCursor(id, { reveal = true } = {}) {
    if (!id) return;
    this.cursor = id;
    if (this.view === 'backlog') this.unfoldFor(id);
    if (reveal) this.listPane.view.reveal(id);
    this.listPane.view.refresh();
  }

  // Keyboard movement reaches issues in collapsed groups by opening them.
  unfoldFor(id) {
    const group = this.model.groups.find((g) => g.issues.some((i) => i.id === id));
    if (group && this.collapsed.has(groupKey(group.area))) {
      this.collapsed.delete(groupKey(group.area));
      prefs.setCollapsed(this.slug, this.collapsed);
      this.listPane.view.render();
    }
  }

  moveCursor(delta) {
    if (!this.order.length) return;
    const at = this.cursor ? this.positionOf(this.cursor) : -1;
    const next = at < 0 ? (delta > 0 ? 0 : this.order.length - 1) : Math.max(0, Math.min(this.order.length - 1, at + delta));
    const id = this.order[next];
    this.setCursor(id);
    // With an issue open on a wide screen, the open issue follows the cursor.
    if (this.route.issue && !matchMedia(PHONE).matches && id !== this.route.issue) {
      this.navigate({ project: this.slug, issue: id }, { replace: true });
    }
  }

  openCursor() {
    if (this.cursor) this.openIssue(this.cursor);
    else if (this.order.length) this.openIssue(this.order[0]);
  }

  openIssue(id) {
    if (!this.slug) return;
    this.navigate({ project: this.slug, issue: id });
  }

  closeDetail() {
    if (!this.slug) return;
    const id = this.route.issue;
    this.navigate({ project: this.slug });
    this.focusList();
    if (id) this.setCursor(id);
  }

  escape() {
    if (this.selection.size) this.clearSelection();
    else if (this.route.issue || this.route.handoff) this.closeDetail();
  }

  toggleSelect(id) {
    this.selection.toggle(id);
    this.selectionChanged();
  }

  selectRange(id) {
    this.selection.extendTo(id, this.order);
    this.cursor = id;
    this.selectionChanged();
  }

  toggleSelectCursor() {
    if (this.cursor) this.toggleSelect(this.cursor);
  }

  clearSelection() {
    this.selection.clear();
    this.selectionChanged();
  }

  selectionChanged() {
    this.listPane.selectionBar.render();
    this.listPane.view.refresh();
  }

  mergeSelection() {
    const ids = this.selection.ordered(this.order);
    if (ids.length < 2) {
      toast('Select two or more issues to merge (x or the row boxes).');
      return;
    }
    import('./dialogs/merge.js').then((m) => m.mergeDialog(this, ids));
  }

  groupSelection() {
    const ids = this.selection.ordered(this.order);
    if (ids.length < 2) return;
    import('./dialogs/merge.js').then((m) => m.groupDialog(this, ids));
  }

  // ---- Writes --------------------------------------------------------------

  /** Shows a changed issue in its row at once; the live reload confirms it. */
  patchRow(detail) {
    this.patchRows([detail]);
  }

  /** Shows changed issues (full or as list rows) in their rows, with one redraw. */
  patchRows(issues) {
    const at = new Map(this.list.issues.map((x, i) => [x.id, i]));
    const wanted = issues.filter((issue) => at.has(issue.id));
    if (!wanted.length) return;
    this.list.issues = [...this.list.issues];
    for (const issue of wanted) {
      const i = at.get(issue.id);
      const row = { ...this.list.issues[i] };
      for (const [k, v] of Object.entries(issue)) if (!SUMMARY_DROP.includes(k)) row[k] = v;
      this.list.issues[i] = row;
    }
    this.rebuildModel();
    this.listPane.view.render();
  }

  /**
   * Saves issue fields; shows the result or the server's message.
   * @returns {Promise<boolean>}
   */
  async updateIssue(id, fields, onError) {
    try {
      const detail = await patchJSON(paths.issue(id), { ...fields, actor: OWNER });
      this.patchRow(detail);
      if (this.detail?.id === detail.id) this.showDetail(detail);
      return true;
    } catch (err) {
      if (onError) onError(err);
      toastError(err, `Could not save ${id}`);
      return false;
    }
  }

  async updateStep(id, n, patch) {
    try {
      const detail = await patchJSON(paths.step(id, n), { ...patch, actor: OWNER });
      this.patchRow(detail);
      if (this.detail?.id === detail.id) this.showDetail(detail);
    } catch (err) {
      toastError(err, `Could not change step ${n}`);
      this.refreshDetail();
    }
  }

  async createIssue(fields, files = []) {
    try {
      const attachments = await Promise.all(files.map(fileToAttachment));
      const detail = await postJSON(paths.issues(this.slug), { ...fields, author: OWNER, source: 'owner', attachments });
      this.markFresh(detail.id);
      toast(`${detail.id} created`);
      this.loadList({ live: true });
      return detail;
    } catch (err) {
      toastError(err, 'Could not create the issue');
      return null;
    }
  }

  async quickAdd(parsed, files) {
    const fields = { title: parsed.title, tags: parsed.tags };
    if (parsed.priority) fields.priority = parsed.priority;
    if (parsed.kind) fields.kind = parsed.kind;
    if (parsed.area) fields.area = parsed.area;
    return Boolean(await this.createIssue(fields, files));
  }

  /**
   * The owner's answer on an issue: a comment, with a verdict or not, and
   * files. After Passed the next item of the current view opens.
   */
  async answer(id, { text, verdict, files }) {
    const next = verdict === 'passed' ? this.nextAfter(id) : null;
    try {
      const attachments = await Promise.all(files.map(fileToAttachment));
      const body = { author: OWNER, text };
      if (verdict) body.verdict = verdict;
      if (attachments.length) body.attachments = attachments;
      const res = await postJSON(paths.comments(id), body);
      if (res?.issue) this.patchRow(res.issue);
      toast(verdict === 'passed' ? `${id} passed` : verdict === 'failed' ? `${id} is still broken` : 'Comment added');
      if (next) this.openIssue(next);
      else if (res?.issue && this.detail?.id === res.issue.id) this.showDetail(res.issue);
      else this.refreshDetail();
      return true;
    } catch (err) {
      toastError(err, 'Could not send it');
      return false;
    }
  }

  // The item after this one in the current view (or before it, at the end).
  nextAfter(id) {
    const i = this.positionOf(id);
    if (i < 0) return null;
    return this.order[i + 1] || this.order[i - 1] || null;
  }

  async attachFiles(id, files) {
    if (!files.length) return;
    try {
      const attachments = await Promise.all(files.map(fileToAttachment));
      await postJSON(paths.attachments(id), { attachments, author: OWNER });
      toast(`${plural(files.length, 'file')} attached to ${id}`);
      this.refreshDetail();
    } catch (err) {
      toastError(err, 'Could not attach');
    }
  }

  async merge(target, sources) {
    const res = await postJSON(paths.merge(target), { sources, actor: OWNER });
    toast(`Merged ${sources.join(', ')} into ${target}`);
    this.selection.clear();
    this.selectionChanged();
    this.loadList({ live: true });
    this.openIssue(res.target || target);
    if (this.detail?.id === (res.target || target) && res.issue) this.showDetail(res.issue);
  }

  async group(parent, children) {
    for (const child of children) {
      await postJSON(paths.parent(child), { parent, actor: OWNER });
    }
    toast(`${plural(children.length, 'issue')} grouped under ${parent}`);
    this.selection.clear();
    this.selectionChanged();
    this.loadList({ live: true });
  }

  async unmerge(id) {
    try {
      const res = await postJSON(paths.unmerge(id), { actor: OWNER });
      toast(`${res.source || id} is its own issue again`);
      if (res.issue && this.detail?.id === res.issue.id) this.showDetail(res.issue);
      this.loadList({ live: true });
    } catch (err) {
      toastError(err, `Could not unmerge ${id}`);
    }
  }

  // ---- Keys and small actions ---------------------------------------------

  verdictKey(verdict) {
    const composer = this.detailView?.composer();
    if (!composer) {
      toast('Open an issue first (Enter).');
      return;
    }
    if (verdict === 'failed' && composer.empty) composer.focus('failed');
    else composer.send(verdict);
  }

  commentKey() {
    this.detailView?.composer()?.focus(null);
  }

  sendFirstCommand() {
    const detail = this.detail;
    if (detail) import('./detail/location-card.js').then((m) => m.sendCommand(detail, 0));
  }

  copyFirstCommand() {
    const detail = this.detail;
    if (detail) import('./detail/location-card.js').then((m) => m.copyCommand(detail, 0));
  }

  editDescription() {
    if (this.detail) this.detailView.editDescription();
  }

  /** The a key: the Agents view, or back to the issues from it. */
  toggleAgents() {
    if (!this.route.agents) this.navigate({ agents: true });
    else if (this.slug) this.navigate({ project: this.slug });
    else this.navigate({ project: null });
  }

  openHandoff() {
    if (this.slug) this.navigate({ project: this.slug, handoff: true });
  }

  newIssue() {
    if (this.slug) import('./dialogs/new-issue.js').then((m) => m.newIssueDialog(this));
    else this.newProject();
  }

  newProject() {
    import('./dialogs/new-project.js').then((m) => m.newProjectDialog(this));
  }

  projectSettings() {
    import('./dialogs/project-settings.js').then((m) => m.projectSettingsDialog(this));
  }

  showHelp() {
    import('./dialogs/help.js').then((m) => m.helpDialog());
  }

  cycleTheme() {
    this.topBar?.cycleTheme();
  }

  focusQuickAdd() {
    this.listPane.focusQuickAdd();
  }

  focusSearch() {
    this.topBar?.focusSearch();
  }

  focusList() {
    this.listPane.view.focus();
  }

  // Ctrl+V anywhere on the open issue (outside a text field) adds the
  // screenshot to the composer; the quick-add field keeps its own pastes.
  paste(e) {
    if (!this.detail || dialogOpen()) return;
    const files = filesOf(e.clipboardData);
    if (!files.length) return;
    if (isTyping(e.target) && !this.detailPane.contains(e.target)) return;
    e.preventDefault();
    this.detailView?.composer()?.addFiles(files);
    toast(`${plural(files.length, 'screenshot')} added to the answer`);
  }
}

/** Asks for the modules of LATER_MODULES at low priority, beside this one. */
function preloadLater() {
  for (const m of LATER_MODULES) {
    document.head.append(h('link', { rel: 'modulepreload', href: new URL(m, import.meta.url).pathname, fetchpriority: 'low' }));
  }
}

// Adds a stylesheet to the page; resolves when it applies (or failed, so
// that a missing style never keeps the issue view away).
function loadStyle(href) {
  return new Promise((resolve) => {
    const link = h('link', { rel: 'stylesheet', href });
    link.addEventListener('load', resolve);
    link.addEventListener('error', resolve);
    document.head.append(link);
  });
}

function emptyList() {
  return { url: null, etag: null, loaded: false, issues: [], total: 0, counts: null, search: null };
}

