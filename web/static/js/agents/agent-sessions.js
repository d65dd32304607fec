// The agent sessions this page knows: one list from GET /api/agents, which
// the Agents view, the issues' rows, the open issue and the alerts all draw
// from. It is read again when the live stream reports an agent change
// (requests that come together are merged, see Throttle), and polled only
// while the stream is down.

import { getJSON, paths } from '../api.js';
import { Throttle } from '../throttle.js';
import { AgentAlerts } from './agent-alerts.js';
import { issueIndex, issueMark, stateSnapshot, attentionCount, durationSince } from './agent-model.js';

// A burst of agent changes is read once, this long after its first change,
// and never more often than every REFRESH_GAP_MS.
const REFRESH_WAIT_MS = 30;
const REFRESH_GAP_MS = 250;
// While the office is open its characters follow within a frame or two.
const QUICK_WAIT_MS = 0;
const QUICK_GAP_MS = 40;
// How often the list is read while the live stream is down.
const POLL_MS = 5000;
// How often the durations on screen ("for 3m 04s") count up.
const TICK_MS = 1000;

const NONE = Object.freeze([]);

export class AgentSessions {
  /** @param {{onChange: () => void}} handlers onChange runs after every load that changed something */
  constructor({ onChange }) {
    this.onChange = onChange;
    /** @type {object[]} in the server's order: the ones that need their owner first */
    this.sessions = [];
    this.byId = new Map();
    this.onIssueIndex = new Map();
    this.marksByIssue = new Map();
    this.loaded = false;
    this.failed = null;
    this.mode = 'connecting';
    this.text = '';
    this.pollTimer = 0;
    this.alerts = new AgentAlerts();
    this.refresh = new Throttle(() => this.load(), { wait: REFRESH_WAIT_MS, gap: REFRESH_GAP_MS });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && this.mode === 'polling') this.refresh.request();
    });
  }

  start() {
    this.refresh.run();
    setInterval(tickDurations, TICK_MS);
  }

  /** Reads changes sooner (the office is open) or at the usual pace. */
  setQuick(on) {
    this.refresh.wait = on ? QUICK_WAIT_MS : REFRESH_WAIT_MS;
    this.refresh.gap = on ? QUICK_GAP_MS : REFRESH_GAP_MS;
  }

  /** Live agent rows arrived: read the list again soon. */
  changed() {
    this.refresh.request();
  }

  /**
   * Follows the live connection: polling while it is down, nothing while
   * it is up but one read when it comes back, for what it missed.
   * @param {'live'|'polling'|'connecting'} mode
   */
  setMode(mode) {
    const was = this.mode;
    this.mode = mode;
    clearTimeout(this.pollTimer);
    this.pollTimer = 0;
    if (mode === 'polling') this.schedulePoll();
    else if (mode === 'live' && was === 'polling') this.refresh.request();
  }

  schedulePoll() {
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = 0;
      if (this.mode !== 'polling') return;
      if (document.visibilityState === 'visible') this.refresh.request();
      else this.schedulePoll();
    }, POLL_MS);
  }

  async load() {
    let data;
    try {
      data = await getJSON(paths.agents());
    } catch (err) {
      // The server is away: the live state in the footer says so already.
      this.failed = err;
      if (this.mode === 'polling') this.schedulePoll();
      return;
    }
    if (this.mode === 'polling') this.schedulePoll();
    this.failed = null;
    const sessions = Array.isArray(data?.agents) ? data.agents : [];
    const text = JSON.stringify(sessions);
    if (this.loaded && text === this.text) return;
    const before = this.loaded ? stateSnapshot(this.sessions) : null;
    this.text = text;
    this.sessions = sessions;
    this.byId = new Map(sessions.map((s) => [s.id, s]));
    this.onIssueIndex = issueIndex(sessions);
    this.marksByIssue = new Map([...this.onIssueIndex].map(([key, list]) => [key, list.map(issueMark)]));
    this.loaded = true;
    this.alerts.check(before, sessions);
    this.onChange();
  }

  /** The live sessions that touched an issue, the ones that need their owner first. */
  onIssue(key) {
    return this.onIssueIndex.get(key) || NONE;
  }

  /** The row markers of an issue (see issueMark). */
  marks(key) {
    return this.marksByIssue.get(key) || NONE;
  }

  get attention() {
    return attentionCount(this.sessions);
  }
}

// Every duration on the page counts up in place: a second passing is no
// reason to redraw a list.
function tickDurations() {
  if (document.visibilityState !== 'visible') return;
  const now = Date.now();
  for (const el of document.querySelectorAll('.agent-since[data-since]')) {
    const text = durationSince(el.dataset.since, now);
    if (el.textContent !== text) el.textContent = text;
  }
}
