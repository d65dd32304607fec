import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, renderInline, safeUrl, isLocalImage } from '../static/js/markdown.js';
import { escapeHtml } from '../static/js/dom.js';

const issueHref = (id) => (id.startsWith('MG-') ? `#/mygame/${id}` : null);

test('every HTML tag in the source is escaped', () => {
  const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> **b**');
  assert.ok(!html.includes('<script'), html);
  assert.ok(!html.includes('<img src=x'), html);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), html);
  assert.ok(html.includes('<strong>b</strong>'), html);
});

test('attributes cannot be broken out of through a link or an image', () => {
  const html = renderMarkdown('[x](/a"onmouseover="alert(1)) ![y](/b"onerror="alert(2))');
  assert.ok(!/"\s*onmouseover=/.test(html), html);
  assert.ok(!/"\s*onerror=/.test(html), html);
});

test('unsafe link schemes become plain text', () => {
  for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x', 'vbscript:x']) {
    assert.equal(safeUrl(url), null, url);
    const html = renderInline(`[click](${url})`);
    assert.ok(!html.includes('<a'), `${url}: ${html}`);
  }
  assert.equal(safeUrl('https://example.org/x'), 'https://example.org/x');
  assert.equal(safeUrl('/api/attachments/3'), '/api/attachments/3');
  assert.equal(safeUrl('#/mygame/MG-1'), '#/mygame/MG-1');
});

test('images load only from the desk; others become links', () => {
  assert.ok(isLocalImage('/api/attachments/4'));
  assert.ok(!isLocalImage('https://evil.example/x.png'));
  assert.ok(!isLocalImage('//evil.example/x.png'));
  const local = renderInline('![shot](/api/attachments/4)');
  assert.match(local, /<img src="\/api\/attachments\/4" alt="shot"/);
  const remote = renderInline('![shot](https://evil.example/x.png)');
  assert.ok(!remote.includes('<img'), remote);
  assert.match(remote, /<a href="https:\/\/evil.example\/x.png"[^>]*>shot<\/a>/);
});

test('headings, lists, task lists, code, quotes, rules and tables', () => {
  const md = [
    '## Where work stopped',
    '',
    '- one',
    '- two',
    '  - nested',
    '',
    '1. first',
    '2. second',
    '',
    '- [x] done step',
    '- [ ] open step',
    '',
    '```go',
    'if a < b { return "<x>" }',
    '```',
    '',
    '> quoted **text**',
    '',
    '---',
    '',
    '| a | b |',
    '|:--|--:|',
    '| 1 | 2 |',
  ].join('\n');
  const html = renderMarkdown(md);
  assert.match(html, /<h2>Where work stopped<\/h2>/);
  assert.match(html, /<ul><li>one<\/li><li>two\n?<ul><li>nested<\/li><\/ul><\/li><\/ul>/);
  assert.match(html, /<ol><li>first<\/li><li>second<\/li><\/ol>/);
  assert.match(html, /<ul class="task-list"><li class="task"><input type="checkbox" disabled checked> done step<\/li><li class="task"><input type="checkbox" disabled> open step<\/li><\/ul>/);
  assert.match(html, /<pre><code class="lang-go">if a &lt; b \{ return &quot;&lt;x&gt;&quot; \}<\/code><\/pre>/);
  assert.match(html, /<blockquote><p>quoted <strong>text<\/strong><\/p><\/blockquote>/);
  assert.match(html, /<hr>/);
  assert.match(html, /<th>a<\/th><th class="al-right">b<\/th>/);
  assert.match(html, /<td>1<\/td><td class="al-right">2<\/td>/);
  assert.ok(!html.includes('style='), 'no inline styles under the CSP');
});

test('issue references link within the project, code spans stay literal', () => {
  const html = renderInline('see MG-3 and XX-4, not `MG-5`', { issueHref });
  assert.match(html, /<a href="#\/mygame\/MG-3" class="issue-ref">MG-3<\/a>/);
  assert.ok(html.includes('XX-4') && !html.includes('XX-4</a>'));
  assert.match(html, /<code>MG-5<\/code>/);
});

test('emphasis leaves snake_case and arithmetic alone', () => {
  assert.equal(renderInline('in_progress and a*b*c'), 'in_progress and a*b*c');
  assert.equal(renderInline('*em* _em_ ~~gone~~'), '<em>em</em> <em>em</em> <del>gone</del>');
});

test('bare URLs and paragraphs with line breaks', () => {
  const html = renderMarkdown('see https://example.org/a_b.\nnext line');
  assert.match(html, /<a href="https:\/\/example.org\/a_b" target="_blank" rel="noopener noreferrer">https:\/\/example.org\/a_b<\/a>\./);
  assert.match(html, /<br>/);
});

test('hostile nesting does not overflow the stack', () => {
  const deep = '>'.repeat(5000) + ' x';
  assert.doesNotThrow(() => renderMarkdown(deep));
  const list = Array.from({ length: 400 }, (_, i) => ' '.repeat(i * 2) + '- x').join('\n');
  assert.doesNotThrow(() => renderMarkdown(list));
});

test('escapeHtml covers quotes', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
});
