// The alerts when an agent comes to need its owner: a short chime and a
// desktop notification. Both are off until the owner turns them on, and the
// browser is asked for permission to notify only then, never on load.
//
// Every tab of the desk hears the same changes; a claim kept in
// localStorage (under a Web Lock where the browser has them) makes sure
// only one of them rings.

import { prefs } from '../prefs.js';
import { formatRoute } from '../router.js';
import { attentionEntered, alertText } from './agent-model.js';

// Alerts already given, remembered across tabs; the oldest are forgotten.
const REMEMBERED_ALERTS = 64;
// More sessions than this at once get one notification that says how many.
const MAX_NOTIFICATIONS = 3;

export class AgentAlerts {
  constructor() {
    /** @type {AudioContext|null} */
    this.audio = null;
  }

  get sound() {
    return prefs.agentSound();
  }

  /** True when notifications are on and the browser still allows them. */
  get notify() {
    return prefs.agentNotify() && notificationsAllowed();
  }

  /** Whether the browser can show desktop notifications at all. */
  get canNotify() {
    return typeof Notification !== 'undefined';
  }

  /** Turns the chime on or off; turning it on plays it, so the owner hears what it will be. */
  setSound(on) {
    prefs.setAgentSound(on);
    if (on) this.chime();
  }

  /**
   * Turns desktop notifications on (asking the browser's permission now, in
   * the owner's click) or off.
   * @returns {Promise<{on: boolean, message?: string}>}
   */
  async setNotify(on) {
    if (!on) {
      prefs.setAgentNotify(false);
      return { on: false };
    }
    if (!this.canNotify) return { on: false, message: 'This browser cannot show desktop notifications.' };
    let permission = Notification.permission;
    if (permission === 'default') {
      try {
        permission = await Notification.requestPermission();
      } catch {
        permission = 'denied';
      }
    }
    if (permission !== 'granted') {
      prefs.setAgentNotify(false);
      return { on: false, message: 'The browser blocks notifications from the desk; allow them in the site settings, then turn them on again.' };
    }
    prefs.setAgentNotify(true);
    return { on: true };
  }

  /**
   * Compares a new load of the sessions with the one before and alerts
   * about the sessions that came to need their owner.
   * @param {Map<string, {state: string, since: string}>|null} before
   * @param {object[]} sessions
   */
  async check(before, sessions) {
    const sound = this.sound;
    const notify = this.notify;
    if (!sound && !notify) return;
    const entered = [];
    for (const s of attentionEntered(before, sessions)) {
      if (await claim(`${s.id}|${s.state}|${s.since}`)) entered.push(s);
    }
    if (!entered.length) return;
    if (sound) this.chime();
    if (notify) this.notifyAbout(entered, !sound);
  }

  notifyAbout(sessions, withSound) {
    const shown = sessions.length > MAX_NOTIFICATIONS ? [] : sessions;
    try {
      for (const s of shown) {
        const { title, body } = alertText(s);
        const n = new Notification(title, { body, tag: `desk-agent-${s.id}`, silent: !withSound });
        n.onclick = () => {
          window.focus();
          location.hash = formatRoute({ agents: true, agent: s.id });
          n.close();
        };
      }
      if (!shown.length) {
        const n = new Notification(`${sessions.length} agents need you`, { body: 'Open the desk’s Agents view to see them.', tag: 'desk-agents', silent: !withSound });
        n.onclick = () => {
          window.focus();
          location.hash = formatRoute({ agents: true });
          n.close();
        };
      }
    } catch {
      // The browser took the permission back, or refuses notifications here.
    }
  }

  /**
   * Two short rising tones. Browsers let a page make sound only after the
   * owner has interacted with it; before that the chime stays silent
   * rather than fill the console with refusals.
   */
  chime() {
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (!Audio || !hasUserActivation()) return;
    try {
      this.audio ||= new Audio();
      const audio = this.audio;
      if (audio.state === 'suspended') audio.resume().catch(() => {});
      const start = audio.currentTime + 0.01;
      [[0, 880], [0.16, 1318.5]].forEach(([offset, frequency]) => {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = 'sine';
        osc.frequency.value = frequency;
        const at = start + offset;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.18, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.38);
        osc.connect(gain);
        gain.connect(audio.destination);
        osc.start(at);
        osc.stop(at + 0.4);
      });
    } catch {
      // No audio device, or the browser refused: the alert is only visual.
    }
  }
}

function notificationsAllowed() {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted';
}

function hasUserActivation() {
  // Browsers without the API decide for themselves; the chime is then attempted.
  return navigator.userActivation ? navigator.userActivation.hasBeenActive : true;
}

/** Claims the alert named key for this tab; false when another tab gave it already. */
function claim(key) {
  const take = () => {
    const given = prefs.agentAlerted();
    if (given.includes(key)) return false;
    given.push(key);
    prefs.setAgentAlerted(given.slice(-REMEMBERED_ALERTS));
    return true;
  };
  if (navigator.locks?.request) return navigator.locks.request('desk-agent-alerts', take).catch(() => take());
  return Promise.resolve(take());
}
