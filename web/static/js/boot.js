// The first script of the page, a classic one in <head> that runs before
// any module loads:
//
// - it applies the remembered theme, so a dark desk never flashes light,
//   and the remembered width of the list;
// - it asks for the project's first page of issues at once, so the request
//   runs while the modules are still loading, and reads the answer when it
//   comes (takeEarlyList in api.js hands it to the app).
//
// It cannot import the modules that build the list's address, so it builds
// the same address itself; web/test/boot.test.mjs checks that both agree.
(function () {
  var store;
  try {
    store = window.localStorage;
  } catch (e) {
    // Storage can be off (private windows): system theme, no early request.
    return;
  }
  function read(key) {
    try {
      return JSON.parse(store.getItem('desk.' + key));
    } catch (e) {
      return null;
    }
  }

  var theme = store.getItem('desk.theme');
  if (theme === 'light' || theme === 'dark' || theme === 'system') {
    document.documentElement.setAttribute('data-theme', theme);
  }
  // The list's share of the width, so the panes do not move once the
  // splitter's module arrives (splitter.js keeps it within its limits).
  var split = read('split');
  if (typeof split === 'number' && split >= 22 && split <= 75) {
    document.documentElement.style.setProperty('--list-width', split + '%');
  }

  // The project: the one in the address, or on the start page the last one used.
  var hash = location.hash.replace(/^#\/?/, '');
  var part = hash.split('/')[0];
  var slug = null;
  try {
    part = decodeURIComponent(part);
  } catch (e) {
    part = '';
  }
  if (/^[a-z0-9][a-z0-9-]{0,39}$/.test(part)) slug = part;
  else if (hash === '') slug = read('project');
  if (typeof slug !== 'string' || !slug) return;

  // The same choices as list-query.js: the saved filters, cleaned, and the
  // view, as the first short page of a summary list.
  var FIRST_PAGE = 60;
  var UNFINISHED = ['to_check', 'auto_check', 'reported', 'failed', 'open', 'in_progress'];
  var view = read('view.' + slug);
  if (view !== 'backlog' && view !== 'board') view = 'triage';
  var saved = read('filters.' + slug);
  var f = { statuses: UNFINISHED.slice(), kind: '', priority: '', area: '', sort: '' };
  if (saved && typeof saved === 'object') {
    if (Array.isArray(saved.statuses)) f.statuses = saved.statuses.filter(function (s) { return typeof s === 'string'; });
    ['kind', 'priority', 'area', 'sort'].forEach(function (k) {
      if (typeof saved[k] === 'string') f[k] = saved[k];
    });
  }
  var p = new URLSearchParams();
  if (view === 'backlog') {
    p.set('status', 'open,in_progress');
    p.set('sort', 'backlog');
  } else {
    if (f.statuses.length) p.set('status', f.statuses.join(','));
    if (f.sort) p.set('sort', f.sort);
  }
  p.set('limit', String(FIRST_PAGE));
  if (f.kind) p.set('kind', f.kind);
  if (f.priority) p.set('priority', f.priority);
  if (f.area) p.set('area', f.area);
  p.set('summary', '1');
  var url = '/api/projects/' + encodeURIComponent(slug) + '/issues?' + p.toString();
  var response = fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin', priority: 'high' });
  // The body is read as soon as the answer arrives, while the modules are
  // still loading: when the app asks, the list is parsed already and the
  // rows are drawn in the task that runs the modules, before the browser's
  // first frame, instead of a few tasks later, behind that frame. An error
  // keeps its body for the app, which reports it.
  var answer = response.then(function (res) {
    if (!res.ok) return { response: res };
    return res.json().then(function (data) {
      return { response: res, data: data };
    });
  });
  answer.catch(function () {});
  window.deskEarlyList = { url: url, answer: answer };
})();
