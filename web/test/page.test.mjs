// Checks of the page as shipped: what index.html loads, and that nothing in
// the UI needs what the Content Security Policy forbids.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../static/', import.meta.url).pathname;
const html = readFileSync(join(root, 'index.html'), 'utf8');

function files(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p, ext);
    return p.endsWith(ext) ? [p] : [];
  });
}

// Classic scripts: the theme runs before any module, the worker is a worker.
const CLASSIC = new Set(['js/boot.js', 'js/live-worker.js']);

// The modules app.js preloads once the first rows are on screen.
const later = (() => {
  const app = readFileSync(join(root, 'js/app.js'), 'utf8');
  const list = app.match(/const LATER_MODULES = \[([\s\S]*?)\];/);
  assert.ok(list, 'app.js names LATER_MODULES');
  return [...list[1].matchAll(/'([^']+)'/g)].map((m) => `js/${m[1]}`);
})();

// The modules other pages of the desk (the team server's sign-in) load as
// their own entry: index.html never needs them.
const otherPages = readdirSync(root)
  .filter((name) => name.endsWith('.html') && name !== 'index.html')
  .flatMap((name) => [...readFileSync(join(root, name), 'utf8').matchAll(/<script type="module" src="\/([^"]+)">/g)].map((m) => m[1]));

// The modules index.html names as modulepreload hints.
const pagePreloads = [...html.matchAll(/<link rel="modulepreload" href="\/([^"]+)">/g)].map((m) => m[1]);

test('every module is preloaded, by index.html or after the first rows, and every preload exists', () => {
  const modules = files(join(root, 'js'), '.js').map((p) => relative(root, p)).filter((p) => !CLASSIC.has(p) && !otherPages.includes(p));
  const all = [...pagePreloads, ...later];
  assert.deepEqual([...all].sort(), [...modules].sort());
  assert.equal(new Set(all).size, all.length, 'a module is preloaded twice');
});

test('index.html has no inline script, inline style or handler attribute', () => {
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    assert.match(m[1], /\bsrc="/, `inline script: ${m[0].slice(0, 80)}`);
    assert.equal(m[2].trim(), '');
  }
  assert.doesNotMatch(html, /<style\b/);
  assert.doesNotMatch(html, /\sstyle="/);
  assert.doesNotMatch(html, /\son[a-z]+="/);
  assert.ok(html.includes('<meta name="desk-token" content="">'), 'the token placeholder the server replaces');
});

test('no module writes a style attribute or loads anything from another origin', () => {
  for (const p of [...files(join(root, 'js'), '.js'), ...files(join(root, 'css'), '.css')]) {
    const text = readFileSync(p, 'utf8');
    assert.doesNotMatch(text, /style=\\?["']/, `${relative(root, p)} writes a style attribute`);
    assert.doesNotMatch(text, /setAttribute\(\s*['"]style['"]/, `${relative(root, p)} sets a style attribute`);
    assert.doesNotMatch(text, /https?:\/\/(?!www\.w3\.org)/, `${relative(root, p)} names another origin`);
    assert.doesNotMatch(text, /\beval\(|new Function\(/, `${relative(root, p)} evaluates code`);
  }
});

// The modules main.js needs before it runs, following static imports only.
function staticGraph(start) {
  const seen = new Set();
  const visit = (rel) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const text = readFileSync(join(root, rel), 'utf8');
    for (const m of text.matchAll(/^import\s[^'"]*['"](\.[^'"]+)['"]/gm)) {
      visit(relative(root, join(root, rel, '..', m[1])));
    }
  };
  visit(start);
  return seen;
}

test('index.html names exactly the modules the first rows need', () => {
  const low = new Set(later);
  assert.ok(low.size > 10, 'the issue view and the dialogs are deferred');
  for (const rel of staticGraph('js/main.js')) assert.ok(!low.has(rel), `${rel} is deferred but main.js imports it statically`);
  // And the other way round: nothing is named in the page that the first rows do not need.
  const first = staticGraph('js/main.js');
  for (const rel of pagePreloads) assert.ok(first.has(rel), `${rel} is preloaded by the page but the first rows do not need it`);
  assert.doesNotMatch(html, /fetchpriority="low"/, 'a low-priority hint in the page still costs the browser work before the first script');
});
