// The first page of issues that boot.js asked for before any module ran.
// The app takes it when it wants exactly that list.

/** The early response for url, once; null when there is none for it. */
export function takeEarlyList(url) {
  const early = window.deskEarlyList;
  if (!early || early.url !== url) return null;
  window.deskEarlyList = null;
  return early.response;
}
