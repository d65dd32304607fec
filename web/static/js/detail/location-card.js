// The location card: every command that takes the owner to one place,
// numbered with its label, each with Copy and Send to game. A sent command
// shows "Waiting for the game…" until a game picks it up, then who took it
// and when. Edit changes the list (add, remove, reorder, label).

import { h, icon, replaceChildren } from '../dom.js';
import { locationCommands, locationFacts } from '../commands.js';
import { getJSON, postJSON, paths } from '../api.js';
import { copyText } from '../clipboard.js';
import { toast, toastError } from '../toast.js';
import { formatClock, timeAgo } from '../format.js';
import { OWNER } from '../enums.js';

// Commands sent from this page, by issue and position, so their state
// survives a re-render of the issue.
/** @type {Map<string, {id: number, state: string, client: string|null, delivered_at: string|null, expires_at: string}>} */
const sends = new Map();
const polling = new Set();

const POLL_FIRST_MS = 600;
const POLL_EVERY_MS = 1000;
// A command expires after ten minutes; a minute more covers clock drift.
const POLL_FOR_MS = 11 * 60 * 1000;

const sendKey = (issueId, index) => `${issueId}#${index}`;

/** Sends the issue's command number `index` (0-based) to the game. */
export async function sendCommand(detail, index) {
  const cmds = locationCommands(detail.location);
  if (!cmds[index]) {
    toast(cmds.length ? `There is no command ${index + 1}.` : `${detail.id} has no location command to send.`, { error: true });
    return null;
  }
  const key = sendKey(detail.id, index);
  try {
    const cmd = await postJSON(paths.queue(detail.project), { issue: detail.id, at: index + 1, author: OWNER });
    sends.set(key, cmd);
    paintState(key);
    watch(key, cmd.id);
    return cmd;
  } catch (err) {
    toastError(err, 'Could not send it to the game');
    return null;
  }
}

/** Copies the issue's command number `index` (0-based). */
export async function copyCommand(detail, index) {
  const cmd = locationCommands(detail.location)[index];
  if (!cmd) {
    toast(`${detail.id} has no location command to copy.`, { error: true });
    return;
  }
  toast((await copyText(cmd.command)) ? `Copied: ${cmd.command}` : 'Could not copy');
}

async function watch(key, id) {
  if (polling.has(key)) return;
  polling.add(key);
  const until = Date.now() + POLL_FOR_MS;
  let delay = POLL_FIRST_MS;
  try {
    while (Date.now() < until) {
      await new Promise((r) => {
        const t = setTimeout(r, delay);
        wakers.set(key, () => {
          clearTimeout(t);
          r();
        });
      });
      delay = POLL_EVERY_MS;
      const current = sends.get(key);
      if (!current || current.id !== id) return; // a newer send replaced it
      try {
        const cmd = await getJSON(paths.command(id));
        sends.set(key, cmd);
        paintState(key);
        if (cmd.state !== 'pending') return;
      } catch {
        // The server is away for a moment; keep waiting.
      }
    }
  } finally {
    polling.delete(key);
    wakers.delete(key);
  }
}

const wakers = new Map();

/** Checks pending commands of an issue now (a live change said something happened to it). */
export function checkPendingSends(issueId) {
  for (const [key, wake] of wakers) if (key.startsWith(`${issueId}#`)) wake();
}

function stateText(cmd) {
  if (!cmd) return '';
  if (cmd.state === 'delivered') {
    const who = cmd.client || 'the game';
    return `Picked up by ${who} at ${formatClock(cmd.delivered_at)}`;
  }
  if (cmd.state === 'expired') return 'Not picked up: it expired after 10 minutes. Is the game running with its console on?';
  return 'Waiting for the game…';
}

function paintState(key) {
  const cmd = sends.get(key);
  for (const el of document.querySelectorAll(`[data-send-key="${CSS.escape(key)}"]`)) {
    el.textContent = stateText(cmd);
    el.dataset.state = cmd?.state || '';
    if (cmd?.delivered_at) el.title = `${timeAgo(cmd.delivered_at)}`;
  }
}

// The last send of each command, from the issue's recent commands, so that
// another tab's send (or one from before a reload) shows its state too.
function adoptRecent(detail, cmds) {
  const recent = detail.commands || [];
  cmds.forEach((c, i) => {
    const key = sendKey(detail.id, i);
    const latest = recent.find((r) => r.command === c.command);
    if (!latest) return;
    const mine = sends.get(key);
    if (!mine || mine.id < latest.id || (mine.id === latest.id && mine.state === 'pending')) {
      sends.set(key, latest);
      if (latest.state === 'pending') watch(key, latest.id);
    }
  });
}

/**
 * @param {object} detail
 * @param {import('./detail-view.js').DetailContext} ctx
 */
export function locationCard(detail, ctx) {
  const cmds = locationCommands(detail.location);
  const facts = locationFacts(detail.location);
  adoptRecent(detail, cmds);
  const box = h('section', { class: 'card-box location-card', 'aria-label': 'Location' });

  const show = () => {
    const list = h('ol', { class: 'commands' }, cmds.map((c, i) => {
      const key = sendKey(detail.id, i);
      const cmd = sends.get(key);
      return h(
        'li',
        { class: 'command' },
        h('div', { class: 'command-head' },
          h('span', { class: 'command-number', 'aria-hidden': 'true' }, String(i + 1)),
          h('span', { class: 'command-label' }, c.label || (cmds.length > 1 ? `Place ${i + 1}` : 'The place')),
          h('span', { class: 'spacer' }),
          h('button', { type: 'button', class: 'button small', title: i === 0 ? 'Copy (y)' : 'Copy', onclick: () => copyCommand(detail, i) }, icon('copy'), 'Copy'),
          h('button', { type: 'button', class: 'button small primary', title: i === 0 ? 'Send to game (s)' : 'Send to game', onclick: () => sendCommand(detail, i) }, icon('send'), 'Send to game')),
        h('pre', { class: 'command-text' }, c.command),
        h('p', { class: 'send-state', 'data-send-key': key, 'data-state': cmd?.state || '', role: 'status' }, stateText(cmd)),
      );
    }));
    replaceChildren(
      box,
      h('div', { class: 'card-head' },
        h('h3', null, 'Location'),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'button small ghost', onclick: edit }, 'Edit')),
      cmds.length ? list : h('p', { class: 'muted' }, 'No command yet. Edit adds the game command that takes you there.'),
      facts.length ? h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])) : null,
    );
  };

  const edit = () => {
    ctx.beginEdit();
    const raw = (detail.location?.commands?.length ? detail.location.commands : detail.location?.command ? [{ command: detail.location.command }] : [])
      .map((c) => ({ command: c.command, label: c.label || '' }));
    const rows = h('ol', { class: 'command-editor' });
    const error = h('p', { class: 'form-error', role: 'alert' });
    const draw = () => {
      replaceChildren(rows, raw.map((c, i) => h('li', null,
        h('input', { type: 'text', class: 'mono', value: c.command, 'aria-label': `Command ${i + 1}`, placeholder: '/goto 1240 12 -380 yaw 90', oninput: (e) => { c.command = e.target.value; } }),
        h('input', { type: 'text', value: c.label, 'aria-label': `Label of command ${i + 1}`, placeholder: 'label, e.g. the harbor', maxlength: '80', oninput: (e) => { c.label = e.target.value; } }),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': `Move command ${i + 1} up`, disabled: i === 0, onclick: () => { [raw[i - 1], raw[i]] = [raw[i], raw[i - 1]]; draw(); } }, icon('up')),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': `Move command ${i + 1} down`, disabled: i === raw.length - 1, onclick: () => { [raw[i + 1], raw[i]] = [raw[i], raw[i + 1]]; draw(); } }, icon('down')),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove command ${i + 1}`, onclick: () => { raw.splice(i, 1); draw(); } }, icon('close')))));
    };
    draw();
    const close = () => {
      ctx.endEdit();
      show();
    };
    const save = async () => {
      const commands = raw.map((c) => ({ command: c.command.trim(), label: c.label.trim() })).filter((c) => c.command);
      const ok = await ctx.app.updateIssue(detail.id, { commands }, (err) => {
        error.textContent = err.message;
      });
      if (ok) ctx.endEdit();
    };
    replaceChildren(
      box,
      h('div', { class: 'card-head' }, h('h3', null, 'Location commands')),
      h('p', { class: 'field-hint' }, 'One place per command: one teleport, plus time or weather for that place.'),
      rows,
      error,
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'button small', onclick: () => { raw.push({ command: '', label: '' }); draw(); rows.querySelector('li:last-child input')?.focus(); } }, icon('plus'), 'Add command'),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'button small', onclick: close }, 'Cancel'),
        h('button', { type: 'button', class: 'button small primary', onclick: save }, 'Save')),
    );
    rows.querySelector('input')?.focus();
  };

  show();
  return box;
}
