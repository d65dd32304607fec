// Location commands as the desk shows, copies and sends them. A /goto only
// lands right in the same generated world, so the location's seed is added
// to the first /goto statement that names none (the server does the same).

/** Adds " seed N" to the first /goto statement of cmd (statements are separated by ';'). */
export function seedCommand(cmd, seed) {
  if (seed === null || seed === undefined || seed === '') return cmd;
  const parts = String(cmd).split(';');
  for (let i = 0; i < parts.length; i++) {
    if (/^\s*\/goto\b/.test(parts[i])) {
      if (!/\bseed\b/i.test(parts[i])) {
        const trimmed = parts[i].replace(/[ \t]+$/, '');
        parts[i] = `${trimmed} seed ${seed}${parts[i].slice(trimmed.length)}`;
      }
      break;
    }
  }
  return parts.join(';');
}

/** The location's commands in order, each {command, label} with its seed applied. */
export function locationCommands(location) {
  const loc = location || {};
  let list = Array.isArray(loc.commands) ? loc.commands : [];
  if (list.length === 0 && loc.command) list = [{ command: loc.command }];
  return list
    .filter((c) => c && c.command)
    .map((c) => ({ command: seedCommand(c.command, loc.seed), label: c.label || '' }));
}

/** Short facts of a location other than its commands: place, seed, coordinates, time, weather. */
export function locationFacts(location) {
  const loc = location || {};
  const facts = [];
  if (loc.place) facts.push(['Place', loc.place]);
  const coords = ['x', 'y', 'z'].map((k) => loc[k]).filter((v) => v !== undefined && v !== null);
  if (coords.length) facts.push(['Position', coords.join(', ')]);
  if (loc.yaw !== undefined && loc.yaw !== null) facts.push(['Yaw', String(loc.yaw)]);
  if (loc.pitch !== undefined && loc.pitch !== null) facts.push(['Pitch', String(loc.pitch)]);
  if (loc.seed !== undefined && loc.seed !== null) facts.push(['Seed', String(loc.seed)]);
  if (loc.time) facts.push(['Time', loc.time]);
  if (loc.weather) facts.push(['Weather', loc.weather]);
  if (loc.action) facts.push(['Action', loc.action]);
  for (const [k, v] of Object.entries(loc.extra || {})) {
    facts.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
  }
  return facts;
}
