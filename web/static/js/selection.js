// The owner's selection of issues for Merge into… and Group under…. Keys are
// issue ids; ranges follow the order of the current view.

export class Selection {
  constructor() {
    this.keys = new Set();
    /** The last key clicked or toggled: one end of a shift-click range. */
    this.anchor = null;
  }

  get size() {
    return this.keys.size;
  }

  has(key) {
    return this.keys.has(key);
  }

  toggle(key) {
    if (this.keys.has(key)) this.keys.delete(key);
    else this.keys.add(key);
    this.anchor = key;
  }

  /** Selects every key between the anchor and key (inclusive) in order. */
  extendTo(key, order) {
    const from = this.anchor === null ? -1 : order.indexOf(this.anchor);
    const to = order.indexOf(key);
    if (to < 0) return;
    if (from < 0) {
      this.toggle(key);
      return;
    }
    const [lo, hi] = from < to ? [from, to] : [to, from];
    for (let i = lo; i <= hi; i++) this.keys.add(order[i]);
    this.anchor = key;
  }

  clear() {
    this.keys.clear();
    this.anchor = null;
  }

  /**
   * Forgets keys no longer in the view (after a merge or a filter change).
   * @param {{has: (key: string) => boolean}} valid a Set of keys, or a Map keyed by them
   */
  retain(valid) {
    for (const k of [...this.keys]) if (!valid.has(k)) this.keys.delete(k);
    if (this.anchor !== null && !valid.has(this.anchor)) this.anchor = null;
  }

  /** The selected keys in view order. */
  ordered(order) {
    return order.filter((k) => this.keys.has(k));
  }
}

/** Orders issue ids oldest first (lowest number), the default merge target. */
export function oldestFirst(ids) {
  const num = (id) => Number(String(id).split('-').pop());
  return [...ids].sort((a, b) => num(a) - num(b));
}
