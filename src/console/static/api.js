// The console's only way to the node: fetch with the machine's key as a bearer header. The key
// is kept in this tab's sessionStorage and nowhere else (never localStorage, never a cookie,
// never the DOM); closing the tab or signing out forgets it.
const KEY_SLOT = 'svc.console.key';

export function storedKey() {
  try { return sessionStorage.getItem(KEY_SLOT); } catch { return null; }
}

export function storeKey(key) {
  sessionStorage.setItem(KEY_SLOT, key);
}

export function forgetKey() {
  try { sessionStorage.removeItem(KEY_SLOT); } catch { /* storage unavailable */ }
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body && typeof body.error === 'string' ? body.error : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code ?? null;
    this.body = body;
  }
}

/** Calls the node. `key` overrides the stored key (sign-in tries a key before storing it);
 * `key: null` sends no credential. GET/DELETE bodies become the query string. */
export async function api(method, path, body, opts = {}) {
  const key = 'key' in opts ? opts.key : storedKey();
  const headers = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  let url = path;
  let payload;
  if (body !== undefined && (method === 'GET' || method === 'DELETE')) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) qs.set(k, String(v));
    const s = qs.toString();
    if (s) url += (url.includes('?') ? '&' : '?') + s;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(url, { method, headers, body: payload, credentials: 'omit', cache: 'no-store', signal: opts.signal });
  const text = await res.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = { error: text.slice(0, 300) }; }
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed;
}

/** Parses a Server-Sent Events byte stream (WHATWG HTML §9.2) into {event, data, id} records.
 * EventSource cannot send an Authorization header, so the console reads the stream with fetch. */
export function createSseParser(onEvent) {
  let buffer = '';
  let data = [];
  let event = '';
  let id = null;
  const dispatch = () => {
    if (data.length) onEvent({ event: event || 'message', data: data.join('\n'), id });
    data = [];
    event = '';
  };
  let skipLf = false; // a chunk ended in CR: a LF opening the next one belongs to that CRLF
  return (chunk) => {
    if (skipLf && chunk.startsWith('\n')) chunk = chunk.slice(1);
    skipLf = false;
    buffer += chunk;
    let nl;
    while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, nl);
      const crlf = buffer[nl] === '\r' && buffer[nl + 1] === '\n';
      if (buffer[nl] === '\r' && nl + 1 === buffer.length) skipLf = true;
      buffer = buffer.slice(nl + (crlf ? 2 : 1));
      if (line === '') { dispatch(); continue; }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id' && !value.includes('\0')) id = value;
    }
  };
}

/** Follows an SSE endpoint with the key, reconnecting (with Last-Event-ID) until `signal` aborts.
 * Calls onState('live' | 'reconnecting' | 'unavailable'). */
export async function followSse(path, { onEvent, onState, signal }) {
  let lastId = null;
  let delayMs = 500;
  while (!signal.aborted) {
    try {
      const headers = { accept: 'text/event-stream' };
      const key = storedKey();
      if (key) headers.authorization = `Bearer ${key}`;
      let url = path;
      if (lastId !== null) {
        headers['last-event-id'] = lastId;
        if (/^\d+$/.test(lastId)) url += (url.includes('?') ? '&' : '?') + `lastEventId=${lastId}`;
      }
      const res = await fetch(url, { headers, credentials: 'omit', cache: 'no-store', signal });
      if (res.status === 404 || res.status === 405) { onState('unavailable'); return false; }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      onState('live');
      delayMs = 500;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parse = createSseParser((ev) => {
        if (ev.id !== null) lastId = ev.id;
        onEvent(ev);
      });
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parse(value);
      }
    } catch (e) {
      if (signal.aborted) return true;
    }
    onState('reconnecting');
    await new Promise((r) => setTimeout(r, delayMs));
    delayMs = Math.min(delayMs * 2, 10_000);
  }
  return true;
}
