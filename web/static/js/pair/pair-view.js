// The Pair view of a project: its pair's task, phase, writer, members,
// tasks, patches and evidence, what keeps the round from closing (with the
// owner's OK for a semi round), and the conversation, which follows the
// live stream while the view is open. It shows in the detail pane, like
// the handoff.

import { h, replaceChildren } from '../dom.js';
import { getJSON, postJSON, isAbort, Latest, pageToken } from '../api.js';
import { timeAgo, formatClock } from '../format.js';
import { toastError, toast } from '../toast.js';
import { PHASES, pickPair, chatEntry, mergeEntries, needsOwnersWord, memberLine } from './pair-model.js';
import { PairTerminals, seated } from './pair-terminals.js';

const enc = encodeURIComponent;
const pairPaths = {
  pairs: (slug) => `/api/projects/${enc(slug)}/pairs`,
  pair: (id) => `/api/pairs/${enc(id)}`,
  transcript: (id, since) => `/api/pairs/${enc(id)}/transcript?limit=500${since ? `&since=${since}` : ''}`,
  ok: (id) => `/api/pairs/${enc(id)}/ok`,
};

// Live rows that arrive together are read together.
const LIVE_MS = 40;

export class PairView {
  /** @param {import('../app.js').DeskApp} app */
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.req = new Latest();
    this.slug = null;
    this.wanted = null;
    this.pairs = [];
    this.pair = null;
    this.entries = [];
    this.next = 0;
    this.timer = 0;
    this.reading = null;
    this.terminals = new PairTerminals();
  }

  get isOpen() {
    return this.slug !== null;
  }

  /** Opens the Pair view of a project, on the pair the address names or the newest live one. */
  open(slug, pairId) {
    if (this.slug !== slug || this.wanted !== pairId) {
      this.pair = null;
      this.entries = [];
      this.next = 0;
    }
    this.slug = slug;
    this.wanted = pairId || null;
    if (!this.pair) replaceChildren(this.el, h('article', { class: 'pair-view loading', 'aria-busy': 'true' }, h('h1', null, 'Pair')));
    return this.load();
  }

  close() {
    this.req.cancel();
    clearTimeout(this.timer);
    this.timer = 0;
    this.slug = null;
    this.terminals.stop();
  }

  /** Pair rows of the live stream: the state and the conversation follow. */
  changed(rows) {
    if (!this.isOpen || !rows.some((r) => r.project === this.slug)) return;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.load();
    }, LIVE_MS);
  }

  async load() {
    const slug = this.slug;
    const req = this.req.begin();
    try {
      const list = await getJSON(pairPaths.pairs(slug), { signal: req.signal });
      if (!req.current()) return;
      this.pairs = list.pairs || [];
      const pick = pickPair(this.pairs, this.wanted);
      if (!pick) {
        this.pair = null;
        this.renderEmpty();
        return;
      }
      if (this.pair?.id !== pick.id) {
        this.entries = [];
        this.next = 0;
      }
      const tr = await getJSON(pairPaths.transcript(pick.id, this.next), { signal: req.signal });
      if (!req.current()) return;
      this.pair = pick;
      this.entries = mergeEntries(this.entries, tr.entries || []);
      this.next = Math.max(this.next, tr.next || 0);
      this.render();
    } catch (err) {
      if (isAbort(err) || !req.current()) return;
      replaceChildren(this.el, h('div', { class: 'empty-state' }, h('h2', null, 'Could not load the pair'), h('p', null, err.message)));
    }
  }

  renderEmpty() {
    replaceChildren(this.el, h('article', { class: 'pair-view' },
      h('h1', null, 'Pair'),
      h('div', { class: 'empty-state' },
        h('h2', null, 'No pair on this project yet'),
        h('p', null, 'Two agents pair on a folder: one writes, the other attacks the work and proposes sealed patches. Make a pair from the repo with'),
        h('pre', null, h('code', null, 'desk pair new --task "fix the retry jitter" --members opencode,codex')),
        h('p', null, 'and start each agent with the DESK_PAIR and DESK_PAIR_ROLE it prints.'))));
  }

  render() {
    const p = this.pair;
    const st = p.state;
    const atBottom = this.chat ? this.chat.scrollHeight - this.chat.scrollTop - this.chat.clientHeight < 40 : true;
    const picker = this.pairs.length > 1
      ? h('select', {
        class: 'pair-picker',
        'aria-label': 'Pair',
        onchange: (e) => this.app.navigate({ project: this.slug, pair: true, pairId: e.target.value }),
      }, this.pairs.map((o) => h('option', { value: o.id, selected: o.id === p.id }, `${o.id} · ${o.status} · ${o.task.slice(0, 40)}`)))
      : null;
    const phaseTrack = h('ol', { class: 'pair-phases', 'aria-label': 'Phases' }, PHASES.map((ph) => h('li', {
      class: ph === st.phase ? 'current' : PHASES.indexOf(ph) < PHASES.indexOf(st.phase) ? 'past' : null,
      'aria-current': ph === st.phase ? 'step' : null,
    }, ph)));
    const okButton = needsOwnersWord(st)
      ? h('button', { type: 'button', class: 'button primary', id: 'pair-ok', onclick: () => this.giveWord() }, `OK round ${st.round}`)
      : null;
    const facts = h('dl', { class: 'pair-facts' },
      h('dt', null, 'Round'), h('dd', null, `${st.round} · ${st.mode} mode · autonomy ${st.autonomy} (from ${p.autonomy_source})`),
      h('dt', null, 'Writer'), h('dd', { class: 'pair-writer' }, st.writer ? [h('strong', null, st.writer), st.writer_rationale ? `: ${st.writer_rationale}` : ''] : 'nobody holds write authority'),
      h('dt', null, 'Folder'), h('dd', null, h('code', null, st.folder)));
    const members = h('ul', { class: 'pair-members' }, st.members.map((m) => h('li', { class: m.writer ? 'writer' : m.left ? 'left' : null },
      h('span', { class: 'pair-role' }, m.role),
      h('span', { class: 'pair-member-state' }, memberLine(m)),
      m.last_seen ? h('span', { class: 'pair-seen', title: m.last_seen }, `seen ${timeAgo(m.last_seen)}`) : null,
      m.session ? h('span', { class: 'pair-session', title: 'managed terminal session' }, `terminal ${m.session}`) : null)));
    const blocking = st.blocking.length
      ? h('ul', { class: 'pair-gates', 'aria-label': 'What keeps the round from closing' }, st.blocking.map((g) => h('li', null, h('span', { class: 'pair-rule' }, g.rule), ` ${g.text}`)))
      : h('p', { class: 'pair-closable' }, st.phase === 'done' ? `Round ${st.round} is closed.` : 'The round can close: the writer advances to done.');
    const section = (title, items, empty) => h('section', { class: 'pair-section' }, h('h2', null, title), items.length ? h('ul', null, items) : h('p', { class: 'muted' }, empty));
    const tasks = section('Open tasks', st.open_tasks.map((t) => h('li', null, `#${t.n} ${t.text}`, h('span', { class: 'muted' }, ` · ${t.added_by}`))), 'None.');
    const patches = section('Patches', st.patches.map((pt) => h('li', { class: `pair-patch ${pt.state}` },
      `#${pt.n} `, h('span', { class: 'pair-patch-state' }, pt.state), ` by ${pt.role}`, pt.files?.length ? `: ${pt.files.join(', ')}` : '',
      pt.sha256 ? h('code', { class: 'pair-seal', title: pt.sha256 }, ` ${pt.sha256.slice(0, 12)}`) : null)), 'None this round.');
    const evidence = section('Evidence', st.evidence.map((e) => h('li', { class: e.passed ? 'passed' : 'failed' },
      h('span', { class: 'pair-evidence-kind' }, e.kind), ` ${e.passed ? 'passed' : 'failed'} · ${e.role}: ${e.text}`)), 'Nothing recorded this round.');

    this.chat = h('ol', { class: 'pair-chat', 'aria-label': 'Conversation', 'aria-live': 'polite' }, this.entries.map((e) => this.entryItem(e)));
    replaceChildren(this.el, h('article', { class: 'pair-view', dataset: { pair: p.id } },
      h('header', { class: 'pair-head' },
        h('div', { class: 'pair-title' }, h('h1', null, `Pair ${p.id}`), h('span', { class: `chip pair-status ${st.status}` }, st.status), picker),
        h('p', { class: 'pair-task' }, st.task),
        phaseTrack),
      h('div', { class: seated(st.members).length && st.status === 'live' ? 'pair-body with-terminals' : 'pair-body' },
        h('div', { class: 'pair-side' }, facts, h('section', { class: 'pair-section' }, h('h2', null, 'Members'), members),
          h('section', { class: 'pair-section' }, h('h2', null, 'Closing the round'), blocking, okButton), tasks, patches, evidence),
        h('section', { class: 'pair-conversation' }, h('h2', null, 'Conversation'), this.chat),
        st.status === 'live' && seated(st.members).length ? this.terminals.show(st.members) : null)));
    if (st.status !== 'live' || !seated(st.members).length) this.terminals.stop();
    if (atBottom) this.chat.scrollTop = this.chat.scrollHeight;
  }

  entryItem(e) {
    const c = chatEntry(e);
    return h('li', { class: `pair-entry ${c.tone}`, dataset: { kind: c.kind, id: String(e.id) } },
      h('span', { class: 'pair-at', title: e.at }, formatClock(e.at)),
      h('span', { class: 'pair-who' }, c.who, c.to ? h('span', { class: 'pair-to' }, ` → ${c.to}`) : null),
      c.tone === 'refusal' ? h('span', { class: 'pair-refused' }, c.rule ? `refused · ${c.rule}` : 'refused') : null,
      h('span', { class: 'pair-text' }, c.text));
  }

  async giveWord() {
    const p = this.pair;
    try {
      await postJSON(pairPaths.ok(p.id), {}, { headers: { 'X-Desk-Token': pageToken() } });
      toast(`Round ${p.state.round} of ${p.id} may close.`);
      this.load();
    } catch (err) {
      toastError(err, 'Could not give the word');
    }
  }
}
