// Starts the desk once the page's first modules have loaded.

import { DeskApp } from './app.js';
import { earlyListRead } from './api.js';

// How long the app waits for the list boot.js asked for before it starts
// without it.
const EARLY_LIST_WAIT_MS = 150;

// When the modules the list needs were ready (for the benchmark's breakdown).
performance.mark('desk:start');
// The app starts with the list boot.js asked for when it is on its way.
// Started without it, the app draws the empty desk, the browser styles,
// lays out and paints all of it, and the rows come a frame later, behind
// that work. While the app waits, the browser paints at most the page's
// static frame (the top bar and empty panes), which costs little. A list
// slower than EARLY_LIST_WAIT_MS is not waited for.
await earlyListRead(EARLY_LIST_WAIT_MS);
new DeskApp().start();
