// Starts the desk once the page's modules have loaded.

import { DeskApp } from './app.js';

new DeskApp().start();
