// State and helpers shared by the console's sections.
import { ApiError } from './api.js';
import { $, status } from './dom.js';

export const session = { me: null, observer: null, onUnauthorized: null };

export function flash(text, kind = 'error') {
  const el = $('flash');
  el.textContent = text;
  el.className = `flash ${kind}`;
  el.hidden = !text;
}

/** Runs an action, turning failures into a visible message (and a refused key into sign-out). */
export async function guarded(fn, statusEl) {
  try {
    return await fn();
  } catch (e) {
    if (e?.name === 'AbortError') return undefined;
    if (e instanceof ApiError && e.status === 401 && session.me && session.onUnauthorized) {
      session.onUnauthorized('The node refused your key (revoked, or the machine was recovered). Sign in again.');
      return undefined;
    }
    const text = e instanceof ApiError ? `${e.message}${e.code ? ` (${e.code})` : ''}` : `Something went wrong: ${e?.message ?? e}`;
    if (statusEl) status(statusEl, text, 'bad');
    else flash(text);
    return undefined;
  }
}

/** Switches to a section (hash route). */
export function go(view) {
  if (location.hash === `#${view}`) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = view;
}

/** A download link's target for a JSON value (the previous object URL is released). */
const urls = new WeakMap();
export function setJsonDownload(a, value, filename) {
  const old = urls.get(a);
  if (old) URL.revokeObjectURL(old);
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2) + '\n'], { type: 'application/json' }));
  urls.set(a, url);
  a.href = url;
  a.download = filename;
}
