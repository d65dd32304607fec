// How times, sizes and counts read on the desk.

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date for older times. */
export function timeAgo(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((now - t) / 1000);
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 14) return `${d} d ago`;
  return formatDate(iso);
}

// One formatter each: making an Intl formatter per call costs more than the
// formatting, and a timeline formats hundreds of times.
const dateTime = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const dateOnly = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

function format(formatter, iso) {
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? '' : formatter.format(t);
}

/** The date and time in the owner's locale, e.g. for tooltips. */
export function formatDateTime(iso) {
  return format(dateTime, iso);
}

export function formatDate(iso) {
  return format(dateOnly, iso);
}

/** The clock time only, for "picked up at 14:02". */
export function formatClock(iso) {
  return format(clock, iso);
}

export function formatBytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "3/6" for a plan's progress, "" when there is no plan. */
export function progressText(p) {
  return p && p.total ? `${p.done}/${p.total}` : '';
}

/** "1 comment", "3 comments". */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
