// A cache of resolved API keys. Revocation stays exact: every revocation runs
// `pg_notify('svc_keys', zid)` inside its transaction, PostgreSQL delivers it at commit to every
// node listening on the database (and PGlite to this process), and each node drops that
// machine's entries. Entries also expire after a short TTL as a second line of defence.
import type { Caller } from '../core/caller.ts';
import type { Db, Queryable } from '../store/db.ts';

export const KEYS_CHANNEL = 'svc_keys';
const TTL_MS = 5000;
const MAX = 10_000;

export class KeyCache {
  private entries = new Map<string, { caller: Caller; until: number }>();

  get(keyHash: string): Caller | null {
    const e = this.entries.get(keyHash);
    if (!e) return null;
    if (e.until < Date.now()) { this.entries.delete(keyHash); return null; }
    return e.caller;
  }

  set(keyHash: string, caller: Caller, expiresAtMs: number | null): void {
    if (this.entries.size >= MAX) this.entries.clear();
    this.entries.set(keyHash, { caller, until: Math.min(Date.now() + TTL_MS, expiresAtMs ?? Infinity) });
  }

  invalidateZid(zid: string): void {
    for (const [k, e] of this.entries) if (e.caller.zid === zid) this.entries.delete(k);
  }

  invalidateAll(): void { this.entries.clear(); }

  async listen(db: Db): Promise<() => Promise<void>> {
    return db.listen(KEYS_CHANNEL, (zid) => { if (zid) this.invalidateZid(zid); else this.invalidateAll(); });
  }
}

/** Call inside the transaction that revokes keys of a machine. */
export async function announceKeyChange(q: Queryable, zid: string): Promise<void> {
  await q.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, zid]);
}
