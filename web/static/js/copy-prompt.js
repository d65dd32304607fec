// "Copy as prompt": an issue and its context as Markdown, to paste into a
// coding agent that cannot reach the desk.

import { locationCommands, locationFacts } from './commands.js';
import { statusLabel } from './enums.js';

export function issuePrompt(detail, project) {
  const out = [];
  const name = project ? ` (${project.name})` : '';
  out.push(`# ${detail.id}: ${detail.title}`);
  out.push('');
  out.push(`${detail.kind}, ${statusLabel(detail.status)}, ${detail.priority}${detail.area ? `, area ${detail.area}` : ''}${name}`);
  if (detail.tags?.length) out.push(`Tags: ${detail.tags.join(', ')}`);
  if (detail.milestone) out.push(`Milestone: ${detail.milestone}`);
  if (detail.parent) out.push(`Part of ${detail.parent}`);
  if (detail.body) out.push('', detail.body.trim());
  const cmds = locationCommands(detail.location);
  const facts = locationFacts(detail.location);
  if (cmds.length || facts.length) {
    out.push('', '## Location');
    cmds.forEach((c, i) => out.push(`${i + 1}. \`${c.command}\`${c.label ? ` (${c.label})` : ''}`));
    for (const [k, v] of facts) out.push(`- ${k}: ${v}`);
  }
  const steps = detail.plan?.steps || [];
  if (steps.length) {
    out.push('', '## Plan');
    const mark = { done: 'x', doing: '~', dropped: '-', todo: ' ' };
    for (const s of steps) out.push(`- [${mark[s.state] || ' '}] ${s.text}${s.commit ? ` (${s.commit})` : ''}`);
    if (detail.plan.verification) out.push('', `Verification: ${detail.plan.verification}`);
  }
  const comments = (detail.comments || []).filter((c) => c.text || c.verdict);
  if (comments.length) {
    out.push('', '## Comments');
    for (const c of comments.slice(-10)) {
      const verdict = c.verdict ? ` [${c.verdict === 'passed' ? 'PASSED' : 'STILL BROKEN'}]` : '';
      out.push(`- ${c.author}${verdict}: ${(c.text || '').trim().replace(/\n+/g, ' ')}`);
    }
  }
  return out.join('\n') + '\n';
}
