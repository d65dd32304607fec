// A reload that many changes may ask for at once. Twenty agents each
// reporting several events a second must not turn into a request per
// event: requests that come together run once, a little later, never more
// often than every `gap` ms, and never two at the same time. A request made
// while one runs is kept, and runs once that one is over.

export class Throttle {
  /**
   * @param {() => Promise<unknown>|unknown} task what to run
   * @param {{wait?: number, gap?: number}} timing wait: how long the first request waits for
   *   others to join it; gap: the least time between two starts
   */
  constructor(task, { wait = 30, gap = 250 } = {}) {
    this.task = task;
    this.wait = wait;
    this.gap = gap;
    this.timer = 0;
    this.running = false;
    this.again = false;
    this.lastStart = -Infinity;
  }

  /** Asks for a run soon. */
  request() {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    const delay = Math.max(this.wait, this.lastStart + this.gap - Date.now());
    this.timer = setTimeout(() => this.run(), delay);
  }

  /** Runs now, unless a run is under way (then once after it). */
  async run() {
    clearTimeout(this.timer);
    this.timer = 0;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.again = false;
    this.lastStart = Date.now();
    try {
      await this.task();
    } finally {
      this.running = false;
      if (this.again) this.request();
    }
  }

  cancel() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.again = false;
  }
}
