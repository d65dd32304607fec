// What this browser remembers between visits. Everything goes through here
// so the keys are in one place, and a browser with storage switched off
// simply forgets.

const PREFIX = 'desk.';

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

// A write is passed on to the browser's storage process and to every other
// tab of the desk, so a value that did not change is not written again.
function write(key, value) {
  try {
    if (value === undefined || value === null) {
      localStorage.removeItem(PREFIX + key);
      return;
    }
    const raw = JSON.stringify(value);
    if (localStorage.getItem(PREFIX + key) !== raw) localStorage.setItem(PREFIX + key, raw);
  } catch {
    // Full or disabled storage: the setting lasts for this page only.
  }
}

export const prefs = {
  // The theme is stored as a bare word because boot.js reads it before any module runs.
  theme: () => {
    try {
      return localStorage.getItem(PREFIX + 'theme') || 'system';
    } catch {
      return 'system';
    }
  },
  setTheme: (t) => {
    try {
      localStorage.setItem(PREFIX + 'theme', t);
    } catch {
      // ignored, as above
    }
  },
  split: () => read('split', null),
  setSplit: (ratio) => write('split', ratio),
  lastProject: () => read('project', null),
  setLastProject: (slug) => write('project', slug),
  filters: (slug) => read(`filters.${slug}`, null),
  setFilters: (slug, f) => write(`filters.${slug}`, f),
  view: (slug) => read(`view.${slug}`, 'triage'),
  setView: (slug, v) => write(`view.${slug}`, v),
  collapsed: (slug) => new Set(read(`collapsed.${slug}`, [])),
  setCollapsed: (slug, set) => write(`collapsed.${slug}`, [...set]),
  // The Agents view: its filters and the alerts the owner turned on (both off by default).
  agentFilters: () => read('agents.filters', null),
  setAgentFilters: (f) => write('agents.filters', f),
  agentSound: () => read('agents.sound', false) === true,
  setAgentSound: (on) => write('agents.sound', on ? true : null),
  agentNotify: () => read('agents.notify', false) === true,
  setAgentNotify: (on) => write('agents.notify', on ? true : null),
  // The alerts already given, so that two tabs never both ring for one change.
  agentAlerted: () => {
    const list = read('agents.alerted', []);
    return Array.isArray(list) ? list : [];
  },
  setAgentAlerted: (list) => write('agents.alerted', list),
  // The office's sounds (off by default).
  officeSound: () => read('office.sound', false) === true,
  setOfficeSound: (on) => write('office.sound', on ? true : null),
};
