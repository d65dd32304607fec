// The office in words: a visually hidden list beside the canvas with one
// item per character, its session, state, seat, area and label, kept in
// step with what is drawn. A screen reader says it; a test reads it.

import { sessionLabel } from './model.js';

export class Roster {
  /** @param {HTMLUListElement} list #office-roster */
  constructor(list) {
    this.list = list;
    /** @type {Map<string, {li: HTMLLIElement, text: string, attrs: Record<string, string>}>} */
    this.items = new Map();
  }

  /**
   * Brings the list to the characters: new items, changed ones, gone ones.
   * @param {import('./scene.js').Scene} scene
   * @param {(ch: object) => ({x: number, y: number}|null)} where a character's point on the canvas, in CSS pixels
   */
  update(scene, now, where) {
    const areas = scene.layout.areas || [];
    const seen = new Set();
    const chars = [...scene.characters.values()].sort((a, b) => a.order - b.order);
    let before = null;
    for (let i = chars.length - 1; i >= 0; i--) {
      const ch = chars[i];
      seen.add(ch.id);
      const s = ch.session || { id: ch.id, state: ch.state };
      const areaIndex = ch.seat ? ch.seat.area : ch.tile >= 0 ? scene.derived.areaOf[ch.tile] : -1;
      const p = ch.walking ? null : where(ch);
      const pose = ch.leaving ? 'leave' : ch.pose(now).pose;
      const bubble = ch.bubble(now);
      const attrs = {
        session: ch.id,
        state: ch.leaving ? 'ended' : ch.state,
        seat: ch.seat ? ch.seat.id : '',
        area: areaIndex >= 0 ? areas[areaIndex]?.id || '' : '',
        pose,
        bubble: bubble ? bubble.kind : '',
        small: ch.small ? 'true' : 'false',
      };
      if (p) {
        attrs.x = String(Math.round(p.x));
        attrs.y = String(Math.round(p.y));
      }
      const text = sessionLabel({ ...s, state: attrs.state });
      let item = this.items.get(ch.id);
      if (!item) {
        const li = document.createElement('li');
        item = { li, text: '', attrs: {} };
        this.items.set(ch.id, item);
      }
      for (const [k, v] of Object.entries(attrs)) {
        if (item.attrs[k] !== v) {
          item.li.dataset[k] = v;
          item.attrs[k] = v;
        }
      }
      if (item.text !== text) {
        item.li.textContent = text;
        item.text = text;
      }
      // In the characters' order, moving only what is out of place.
      if (item.li.nextSibling !== before || item.li.parentNode !== this.list) this.list.insertBefore(item.li, before);
      before = item.li;
    }
    for (const [id, item] of this.items) {
      if (!seen.has(id)) {
        item.li.remove();
        this.items.delete(id);
      }
    }
  }
}
