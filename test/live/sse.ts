// A small Server-Sent Events reader over fetch streaming (test helper, not a test file).
export interface SseEvent { id: number; event: string; data: any; raw: string; at: number }

export async function readSse(url: string, key: string, opts: { headers?: Record<string, string>; stopAfter?: number; signal?: AbortSignal } = {}): Promise<{ events: SseEvent[]; status: number; contentType: string | null }> {
  const ac = new AbortController();
  opts.signal?.addEventListener('abort', () => ac.abort(), { once: true });
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...opts.headers }, signal: ac.signal });
  const events: SseEvent[] = [];
  if (!res.body || res.status !== 200) return { events, status: res.status, contentType: res.headers.get('content-type') };
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let cut: number;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (!line || line.startsWith(':')) continue;
          const i = line.indexOf(':');
          fields[line.slice(0, i)] = line.slice(i + 1).replace(/^ /, '');
        }
        if (fields.id === undefined) continue;
        events.push({ id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data), raw: fields.data, at: performance.now() });
        if (opts.stopAfter !== undefined && events.length >= opts.stopAfter) { ac.abort(); return { events, status: res.status, contentType: res.headers.get('content-type') }; }
      }
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  }
  return { events, status: res.status, contentType: res.headers.get('content-type') };
}
