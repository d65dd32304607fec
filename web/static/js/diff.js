// Reads a unified diff (as the handoff diff route returns it) into lines
// the handoff view colours.

/** @returns {{type: 'add'|'del'|'ctx'|'hunk'|'meta', text: string}[]} */
export function parseUnifiedDiff(text) {
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => {
    if (line.startsWith('+++') || line.startsWith('---')) return { type: 'meta', text: line };
    if (line.startsWith('@@')) return { type: 'hunk', text: line };
    if (line.startsWith('+')) return { type: 'add', text: line.slice(1) };
    if (line.startsWith('-')) return { type: 'del', text: line.slice(1) };
    if (line.startsWith('\\')) return { type: 'meta', text: line };
    return { type: 'ctx', text: line.startsWith(' ') ? line.slice(1) : line };
  });
}

/** Counts added and removed lines. */
export function diffStats(lines) {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.type === 'add') added++;
    else if (l.type === 'del') removed++;
  }
  return { added, removed };
}
