// Starts the desk once the page's first modules have loaded.

import { DeskApp } from './app.js';

// When the modules the list needs were ready (for the benchmark's breakdown).
performance.mark('desk:start');
new DeskApp().start();
