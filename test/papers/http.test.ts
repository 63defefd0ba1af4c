// The request path every adapter shares: retries and backoff, Retry-After (honoured, capped),
// deadlines, refused connections, the body cap, the cache and the politeness limiter.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient, RateLimiter, UpstreamError, parseRetryAfter } from '../../src/papers/http.ts';
import { memoryCache } from '../../src/papers/cache.ts';
import { closedPort, replay, text, type Replay } from './replay.ts';

const servers: Replay[] = [];
after(async () => { for (const s of servers) await s.close(); });

function client(opts: { sleeps?: number[]; limiterWaits?: number[]; cache?: ReturnType<typeof memoryCache>; maxBytes?: number; intervalScale?: number; limiter?: RateLimiter } = {}) {
  return new HttpClient({
    userAgent: 'svc-node/test (+http://node.test; mailto:ops@node.test)',
    // a limiter on a clock that never moves: any wait it imposes is recorded, none is slept
    limiter: opts.limiter ?? new RateLimiter(() => 0, async (ms) => { opts.limiterWaits?.push(ms); }),
    intervalScale: opts.intervalScale ?? 0,
    baseDelayMs: 100,
    retryAfterCapMs: 5000,
    sleep: async (ms, signal) => { opts.sleeps?.push(ms); if (signal.aborted) throw signal.reason; },
    cache: opts.cache ?? null,
    maxBytes: opts.maxBytes,
  });
}

const spec = (url: string, extra: Record<string, unknown> = {}) => ({
  source: 'test', url, signal: AbortSignal.timeout(5000), minIntervalMs: 0, ttlSeconds: 0, parse: (b: string) => JSON.parse(b), ...extra,
});

test('429 with Retry-After: the client waits what the server asked, then retries and succeeds', async () => {
  const s = await replay((_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '2' }, body: '{"message":"Too Many Requests"}' } : text('{"ok":1}', 200)));
  servers.push(s);
  const sleeps: number[] = [];
  const limiterWaits: number[] = [];
  const out = await client({ sleeps, limiterWaits }).get(spec(`${s.url}/x`));
  assert.deepEqual(out, { ok: 1 });
  assert.equal(s.requests.length, 2);
  assert.deepEqual(sleeps, [2000]);
  // and every other request to that source is held back as long (the limiter's slot moved)
  assert.deepEqual(limiterWaits, [2000]);
});

test('429 with a Retry-After beyond the cap is reported as rate-limited, not shortened', async () => {
  const s = await replay(() => ({ status: 429, headers: { 'retry-after': '3600' }, body: '' }));
  servers.push(s);
  const sleeps: number[] = [];
  await assert.rejects(client({ sleeps }).get(spec(`${s.url}/x`)), (e: any) => e instanceof UpstreamError && e.kind === 'rate_limited' && /3600 s/.test(e.message));
  assert.equal(s.requests.length, 1);
  assert.deepEqual(sleeps, []);
});

test('Retry-After as an HTTP-date is understood', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  assert.equal(parseRetryAfter('Sun, 01 Mar 2026 12:00:07 GMT', now), 7000);
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter('soon', now), null);
});

test('5xx: exponential backoff, then success', async () => {
  const s = await replay((_r, n) => (n <= 2 ? text('upstream exploded', n === 1 ? 500 : 503) : text('{"ok":2}', 200)));
  servers.push(s);
  const sleeps: number[] = [];
  assert.deepEqual(await client({ sleeps }).get(spec(`${s.url}/x`)), { ok: 2 });
  assert.deepEqual(sleeps, [100, 200]);
});

test('5xx on every attempt: an http error naming the status and the attempts', async () => {
  const s = await replay(() => text('{"error":"internal"}', 500));
  servers.push(s);
  await assert.rejects(client().get(spec(`${s.url}/x`, { errorMessage: (b: string) => JSON.parse(b).error })),
    (e: any) => e.kind === 'http' && e.status === 500 && /HTTP 500 .*internal.*after 3 attempts/.test(e.message));
  assert.equal(s.requests.length, 3);
});

test('other 4xx are not retried; listed not-found statuses answer null', async () => {
  const s = await replay((r) => (r.path === '/missing' ? text('Resource not found.', 404) : text('{"error":"bad field"}', 400)));
  servers.push(s);
  assert.equal(await client().get(spec(`${s.url}/missing`, { notFoundStatuses: [404] })), null);
  await assert.rejects(client().get(spec(`${s.url}/bad`)), (e: any) => e.kind === 'http' && e.status === 400);
  assert.equal(s.requests.length, 2);
});

test('a server that never answers ends at the deadline as a timeout', async () => {
  const s = await replay(() => ({ hang: true }));
  servers.push(s);
  await assert.rejects(client().get(spec(`${s.url}/x`, { signal: AbortSignal.timeout(150) })), (e: any) => e.kind === 'timeout');
});

test('a refused connection fails at once (no retry) with a clear message', async () => {
  const url = await closedPort();
  const sleeps: number[] = [];
  await assert.rejects(client({ sleeps }).get(spec(`${url}/x`)), (e: any) => e.kind === 'network' && /connection refused/.test(e.message));
  assert.deepEqual(sleeps, []);
});

test('a dropped connection is retried', async () => {
  const s = await replay((_r, n) => (n === 1 ? { destroy: true } : text('{"ok":3}', 200)));
  servers.push(s);
  assert.deepEqual(await client().get(spec(`${s.url}/x`)), { ok: 3 });
});

test('a body that does not parse is "malformed"; an oversize body is refused', async () => {
  const s = await replay((r) => (r.path === '/big' ? text('x'.repeat(5000), 200) : text('<html>proxy error</html>', 200)));
  servers.push(s);
  await assert.rejects(client().get(spec(`${s.url}/html`)), (e: any) => e.kind === 'malformed');
  await assert.rejects(client({ maxBytes: 1000 }).get(spec(`${s.url}/big`, { parse: (b: string) => b })), (e: any) => e.kind === 'malformed' && /larger than 1000/.test(e.message));
});

test('cache: a parsed 2xx body is kept for its TTL; secrets stay out of the key; failures are not cached', async () => {
  let n = 0;
  const s = await replay((r) => { n++; return r.path === '/fail' ? text('no', 500) : text(JSON.stringify({ n, key: r.query.get('api_key') }), 200); });
  servers.push(s);
  const cache = memoryCache();
  const c = client({ cache });
  const a = await c.get(spec(`${s.url}/x?q=1`, { ttlSeconds: 60, secretParams: { api_key: 'SECRET' } }));
  const b = await c.get(spec(`${s.url}/x?q=1`, { ttlSeconds: 60, secretParams: { api_key: 'SECRET' } }));
  assert.deepEqual(a, { n: 1, key: 'SECRET' });
  assert.deepEqual(b, a);
  assert.equal(s.requests.length, 1);
  assert.equal(cache.size(), 1);
  await assert.rejects(c.get(spec(`${s.url}/fail`, { ttlSeconds: 60 })));
  assert.equal(cache.size(), 1);
});

test('requests carry the User-Agent with a contact', async () => {
  const s = await replay(() => text('{}', 200));
  servers.push(s);
  await client().get(spec(`${s.url}/x`));
  assert.match(String(s.requests[0].headers['user-agent']), /^svc-node\/test \(.*mailto:ops@node\.test\)$/);
});

test('rate limiter: one source at one origin gets requests spaced by its interval; a Retry-After pushes the next slot', async () => {
  let now = 1000;
  const waits: number[] = [];
  const lim = new RateLimiter(() => now, async (ms) => { waits.push(ms); now += ms; });
  const sig = new AbortController().signal;
  await lim.acquire('arxiv@a', 3000, sig); // free
  await lim.acquire('arxiv@a', 3000, sig); // waits 3000
  await lim.acquire('other@a', 3000, sig); // another key: free
  now += 500;
  await lim.acquire('arxiv@a', 3000, sig); // booked slot at 7000, now 4500 → waits 2500
  lim.blockFor('s2@b', 10000);
  await lim.acquire('s2@b', 0, sig);
  assert.deepEqual(waits, [3000, 2500, 10000]);
});

test('the limiter is honoured by the client (interval scale 1)', async () => {
  const s = await replay(() => text('{}', 200));
  servers.push(s);
  let now = 0;
  const waits: number[] = [];
  const lim = new RateLimiter(() => now, async (ms) => { waits.push(ms); now += ms; });
  const c = client({ limiter: lim, intervalScale: 1 });
  await c.get(spec(`${s.url}/a`, { minIntervalMs: 350 }));
  await c.get(spec(`${s.url}/b`, { minIntervalMs: 350 }));
  assert.deepEqual(waits, [350]);
});
