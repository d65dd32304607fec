// "Only the newest request counts." Each view that loads something keeps a
// Latest: starting a request aborts the one before, and a response that
// arrives after a newer request started is recognised as stale and dropped,
// so a slow answer never replaces the view the owner has since chosen.

export class Latest {
  constructor() {
    this.seq = 0;
    this.controller = null;
  }

  /** Starts a request: returns its abort signal and a check that it is still the newest. */
  begin() {
    this.controller?.abort();
    this.controller = new AbortController();
    const id = ++this.seq;
    return { signal: this.controller.signal, current: () => id === this.seq };
  }

  /** Drops whatever is in flight. */
  cancel() {
    this.controller?.abort();
    this.controller = null;
    this.seq++;
  }
}
