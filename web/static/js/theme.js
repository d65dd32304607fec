// Light, dark or the system's choice. The CSS does the work; this only
// flips the data-theme attribute and remembers it.

import { prefs } from './prefs.js';

export const THEMES = ['system', 'light', 'dark'];
const LABELS = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' };

export function currentTheme() {
  const t = document.documentElement.dataset.theme;
  return THEMES.includes(t) ? t : 'system';
}

export function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  prefs.setTheme(theme);
  return theme;
}

/** Moves to the next theme: system → light → dark → system. */
export function cycleTheme() {
  const next = THEMES[(THEMES.indexOf(currentTheme()) + 1) % THEMES.length];
  return applyTheme(next);
}

export function themeLabel(theme = currentTheme()) {
  return LABELS[theme];
}
