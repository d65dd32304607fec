// A windowed list: of thousands of rows, only those in view (plus a small
// buffer) exist in the DOM. Rows have fixed heights, so every row's top is
// known without measuring, and a scroll only moves the window.
//
// Rows are kept by key. A row is rebuilt only when its stamp changes, so a
// live edit of one issue touches one row and leaves the others (and the
// owner's place in the list) alone.
//
// Drawing never reads the layout: the scroll offset comes from scroll
// events and the height from a ResizeObserver, so a redraw after a data
// change costs no forced layout of the page.

/** Prefix sums of item heights: tops[i] is where item i starts. */
export function computeTops(items) {
  const tops = new Float64Array(items.length + 1);
  for (let i = 0; i < items.length; i++) tops[i + 1] = tops[i] + items[i].height;
  return tops;
}

/** The index of the item that covers y (binary search over tops). */
export function indexAt(tops, y) {
  const count = tops.length - 1;
  if (count <= 0) return 0;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (tops[mid] <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The half-open index range to render for a viewport, with overscan rows on each side. */
export function visibleRange(tops, scrollTop, viewport, overscan) {
  const count = tops.length - 1;
  if (count <= 0) return [0, 0];
  const first = indexAt(tops, Math.max(0, scrollTop));
  const last = indexAt(tops, Math.max(0, scrollTop + viewport - 1));
  return [Math.max(0, first - overscan), Math.min(count, last + 1 + overscan)];
}

/**
 * @typedef {{key: string, height: number, kind: string}} WindowItem
 * @typedef {{
 *   render: (item: WindowItem) => HTMLElement,
 *   stamp: (item: WindowItem) => string,
 *   overscan?: number,
 *   sticky?: (item: WindowItem) => boolean,
 *   renderSticky?: (item: WindowItem) => HTMLElement,
 *   onPaint?: () => void,
 * }} WindowOptions
 */

export class ListWindow {
  /**
   * @param {HTMLElement} scroller the element that scrolls
   * @param {WindowOptions} options
   */
  constructor(scroller, options) {
    this.scroller = scroller;
    this.options = { overscan: 6, ...options };
    this.items = [];
    this.tops = computeTops([]);
    this.indexByKey = new Map();
    /** @type {Map<string, HTMLElement>} rendered rows by key */
    this.nodes = new Map();
    this.stats = { created: 0, updated: 0, removed: 0 };

    this.sticky = document.createElement('div');
    this.sticky.className = 'window-sticky';
    this.host = document.createElement('div');
    this.host.className = 'window-host';
    scroller.append(this.sticky, this.host);

    // Known without asking the layout: the scroll offset as of the last
    // scroll event (or our own write), the height as of the last resize.
    // Until the first resize, the height is the window's outer height, at
    // least the list's and known without a layout: window.innerHeight
    // would force a style and layout of the whole page in the middle of
    // drawing the first rows, all of it done again for the frame.
    this.top = 0;
    this.height = window.outerHeight || screen.availHeight;
    this.measured = false;

    this.frame = 0;
    this.onScroll = () => {
      this.top = scroller.scrollTop;
      this.schedule();
    };
    scroller.addEventListener('scroll', this.onScroll, { passive: true });
    // The observer reports after the frame's layout and before its paint.
    // A taller list than thought is drawn at once, so that frame shows no
    // gap below the rows; a shorter one keeps its extra rows until the
    // next frame.
    this.resize = new ResizeObserver((entries) => {
      const height = entries[entries.length - 1].contentRect.height || this.height;
      const taller = height > this.height;
      this.height = height;
      this.measured = true;
      if (taller) this.paint();
      else this.schedule();
    });
    this.resize.observe(scroller);
  }

  scrollTo(top) {
    this.top = Math.max(0, top);
    this.scroller.scrollTop = this.top;
  }

  /**
   * Replaces the items. When the owner has scrolled, the first row in view
   * stays where it is even if rows above it came or went (a live re-sort).
   */
  setItems(items) {
    const anchor = this.top > 0 ? this.anchor() : null;
    this.items = items;
    this.tops = computeTops(items);
    this.indexByKey = new Map(items.map((item, i) => [item.key, i]));
    this.host.style.height = `${this.tops[items.length]}px`;
    if (anchor && this.indexByKey.has(anchor.key)) {
      const top = this.tops[this.indexByKey.get(anchor.key)];
      if (Math.abs(top + anchor.offset - this.top) >= 1) this.scrollTo(top + anchor.offset);
    }
    // A shorter list moves the scroll back, as the browser will.
    const most = Math.max(0, this.tops[items.length] - this.height);
    if (this.top > most) this.top = most;
    this.paint();
  }

  anchor() {
    const i = indexAt(this.tops, this.top);
    const item = this.items[i];
    return item ? { key: item.key, offset: this.top - this.tops[i] } : null;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  /** Forces every rendered row to be rebuilt on the next paint. */
  invalidate() {
    for (const node of this.nodes.values()) node.deskStamp = null;
    this.schedule();
  }

  paint() {
    const { render, stamp } = this.options;
    // The rows in view by the first guess at the height cover the list and
    // more: the buffer rows would only add to the first frame's work.
    const overscan = this.measured ? this.options.overscan : 0;
    const [start, end] = visibleRange(this.tops, this.top, this.height, overscan);
    // Rows that left the window go first. Were they still in the host, the
    // rows that stay would sit behind them and each would be moved to keep
    // the order, and a moved node is restyled and laid out again: every row
    // of the window on every scrolled frame instead of the few new ones.
    const keep = new Set();
    for (let i = start; i < end; i++) keep.add(this.items[i].key);
    for (const [key, node] of this.nodes) {
      if (!keep.has(key)) {
        node.remove();
        this.nodes.delete(key);
        this.stats.removed++;
      }
    }
    let previous = null;
    for (let i = start; i < end; i++) {
      const item = this.items[i];
      const s = stamp(item);
      let node = this.nodes.get(item.key);
      if (!node) {
        node = render(item);
        node.deskStamp = s;
        this.nodes.set(item.key, node);
        this.stats.created++;
      } else if (node.deskStamp !== s) {
        const fresh = render(item);
        fresh.deskStamp = s;
        const hadFocus = node.contains(document.activeElement);
        node.replaceWith(fresh);
        this.nodes.set(item.key, fresh);
        node = fresh;
        this.stats.updated++;
        if (hadFocus) node.focus({ preventScroll: true });
      }
      const top = this.tops[i];
      if (node.deskTop !== top) {
        node.style.transform = `translateY(${top}px)`;
        node.deskTop = top;
      }
      // Keep DOM order equal to list order, for tab order and screen readers.
      const want = previous ? previous.nextSibling : this.host.firstChild;
      if (want !== node) this.host.insertBefore(node, want);
      previous = node;
    }
    this.paintSticky();
    this.options.onPaint?.();
  }

  // The group a scrolled list is in stays visible at its top.
  paintSticky() {
    const { sticky, renderSticky } = this.options;
    if (!sticky || !renderSticky) return;
    const top = this.top;
    let header = null;
    if (top > 0) {
      for (let i = indexAt(this.tops, top); i >= 0; i--) {
        if (sticky(this.items[i])) {
          header = this.items[i];
          break;
        }
      }
    }
    const key = header ? `${header.key}|${this.options.stamp(header)}` : '';
    if (this.sticky.deskKey === key) return;
    this.sticky.deskKey = key;
    this.sticky.replaceChildren(...(header ? [renderSticky(header)] : []));
  }

  /** The rendered row of a key, if it is in the window. */
  nodeFor(key) {
    return this.nodes.get(key) || null;
  }

  has(key) {
    return this.indexByKey.has(key);
  }

  /** Scrolls just enough to show the row of key. */
  reveal(key) {
    const i = this.indexByKey.get(key);
    if (i === undefined) return;
    const top = this.tops[i];
    const bottom = this.tops[i + 1];
    // The sticky group header covers the top of the list.
    const cover = this.sticky.firstChild ? this.options.stickyHeight || 0 : 0;
    if (top - cover < this.top) this.scrollTo(top - cover);
    else if (bottom > this.top + this.height) this.scrollTo(bottom - this.height);
    this.paint();
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.scroller.removeEventListener('scroll', this.onScroll);
    this.resize.disconnect();
    this.sticky.remove();
    this.host.remove();
    this.nodes.clear();
  }
}
