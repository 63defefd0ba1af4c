// Response cache for the literature adapters, in the node's store (migration 400_paper_cache).
// Best effort by design: a failing cache never fails a search (HttpClient swallows its errors).
import type { Clock } from '../core/clock.ts';
import type { Queryable } from '../store/db.ts';
import type { PaperCache } from './http.ts';

const PURGE_EVERY = 200;

export function storeCache(db: Queryable, clock: Clock): PaperCache {
  let puts = 0;
  return {
    async get(key) {
      const rows = await db.query<{ body: string }>('SELECT body FROM paper_cache WHERE key = $1 AND expires_at > $2', [key, clock.now()]);
      return rows[0]?.body ?? null;
    },
    async put(key, body, ttlSeconds) {
      const now = clock.now();
      await db.query(
        `INSERT INTO paper_cache (key, body, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body, expires_at = EXCLUDED.expires_at`,
        [key, body, now + ttlSeconds],
      );
      if (++puts % PURGE_EVERY === 0) await db.query('DELETE FROM paper_cache WHERE expires_at <= $1', [now]);
    },
  };
}

/** In-process cache with the same contract (tests, and a node without a store). */
export function memoryCache(now: () => number = () => Date.now() / 1000): PaperCache & { size(): number } {
  const m = new Map<string, { body: string; exp: number }>();
  return {
    async get(key) { const e = m.get(key); return e && e.exp > now() ? e.body : null; },
    async put(key, body, ttl) { m.set(key, { body, exp: now() + ttl }); },
    size: () => m.size,
  };
}
