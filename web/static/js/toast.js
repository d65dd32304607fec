// Short messages at the bottom of the page: what just happened, or what went
// wrong and what to do about it.

const host = () => document.getElementById('toasts');

export function toast(message, { error = false, ms = error ? 6000 : 2600 } = {}) {
  const el = document.createElement('div');
  el.className = error ? 'toast error' : 'toast';
  el.setAttribute('role', error ? 'alert' : 'status');
  el.textContent = message;
  host()?.append(el);
  setTimeout(() => el.remove(), ms);
  return el;
}

/** Shows an error from the API (or anything thrown) as a toast. */
export function toastError(err, what) {
  const detail = err?.message || String(err);
  return toast(what ? `${what}: ${detail}` : detail, { error: true });
}
