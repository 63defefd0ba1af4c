// The store-backed response cache (migration 400_paper_cache) on the node's own store (PGlite,
// or PostgreSQL when DATABASE_URL is set): a body is served until its TTL runs out on the node's
// clock, a later body replaces an earlier one, and expired rows are purged every 200 writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { storeCache } from '../../src/papers/cache.ts';
import { HttpClient, RateLimiter } from '../../src/papers/http.ts';
import { replay, text, type Replay } from './replay.ts';

const clock = fixedClock(1_790_000_000);
let node: TestNode;
let server: Replay;
before(async () => {
  node = await testNode({ clock });
  server = await replay((_r, n) => text(`{"n":${n}}`, 200, 'application/json'));
});
after(async () => {
  await server?.close();
  await node?.close();
});

const count = async () => (await node.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM paper_cache'))[0].n;

test('a cached body is served until its TTL passes on the node clock, then it is asked for again', async () => {
  const cache = storeCache(node.app.db, clock);
  const http = new HttpClient({ userAgent: 't', cache, limiter: new RateLimiter(), intervalScale: 0 });
  const get = () => http.get({ source: 'test', url: `${server.url}/works?q=1`, signal: AbortSignal.timeout(5000), minIntervalMs: 0, ttlSeconds: 3600, parse: (b: string) => JSON.parse(b) });
  assert.deepEqual(await get(), { n: 1 });
  clock.advance(3599);
  assert.deepEqual(await get(), { n: 1 }, 'within the TTL: from the store');
  assert.equal(server.requests.length, 1);
  clock.advance(2);
  assert.deepEqual(await get(), { n: 2 }, 'after the TTL: upstream again');
  assert.equal(server.requests.length, 2);
  assert.deepEqual(await get(), { n: 2 }, 'and the new body is cached in place of the old');
  assert.equal(server.requests.length, 2);
});

test('expired rows are never read and are purged on every 200th write', async () => {
  const cache = storeCache(node.app.db, clock);
  await node.app.db.query('DELETE FROM paper_cache');
  await cache.put('s:old', 'old', 10);
  clock.advance(11);
  assert.equal(await cache.get('s:old'), null);
  assert.equal(await count(), 1, 'still stored until a purge');
  for (let i = 1; i < 199; i++) await cache.put(`s:${i}`, 'x', 3600);
  assert.equal(await count(), 199);
  await cache.put('s:199', 'x', 3600); // the 200th write of this cache purges
  assert.equal(await count(), 199);
  assert.equal(await cache.get('s:199'), 'x');
});
