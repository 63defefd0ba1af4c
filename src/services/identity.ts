// Identity (DESIGN §5): demo keys, machines and their keys, recovery.
// Keys are random, shown once, stored only as SHA-256 hashes. The recovery equation is stored
// only as an scrypt hash (RFC 7914) with a per-machine salt.
import { scrypt as scryptCb, randomBytes, timingSafeEqual, randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import { newZid, randomToken, sha256Hex, shortSuffix } from '../core/ids.ts';
import { SvcError } from '../core/errors.ts';
import type { Queryable } from '../store/db.ts';
import type { Caller } from '../core/caller.ts';
import { appendToChain, GENESIS_PREV } from './chain.ts';
import { utcDay } from './seal-batch.ts';
import { announceKeyChange, type KeyCache } from './key-cache.ts';

const scrypt = promisify(scryptCb) as (pw: string, salt: string, len: number, opts: object) => Promise<Buffer>;
export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1, keyLength: 32 };

export const KEY_PREFIX = 'svc_ak_';
export const DEMO_PREFIX = 'svc_ak_demo_';

export function keyPrefixOf(key: string): string {
  return KEY_PREFIX + key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8);
}

export function mintKeyString(demo: boolean): string {
  return (demo ? DEMO_PREFIX : KEY_PREFIX) + randomToken(24);
}

/** Looks up a bearer that looks like an API key. Returns null if unknown, expired or revoked. */
export async function resolveApiKey(q: Queryable, key: string, nowSeconds: number, cache?: KeyCache): Promise<Caller | null> {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const hash = sha256Hex(key);
  const hit = cache?.get(hash);
  if (hit) return hit;
  const rows = await q.query<any>(
    `SELECT k.key_prefix, k.zid, k.kind, k.expires_at, k.revoked_at, m.state
       FROM api_keys k LEFT JOIN machines m ON m.zid = k.zid WHERE k.key_hash = $1`, [hash]);
  if (!rows.length) return null;
  const r = rows[0];
  if (r.revoked_at) return null;
  if (r.expires_at && new Date(r.expires_at).getTime() <= nowSeconds * 1000) return null;
  if (r.kind === 'machine' && (!r.zid || r.state !== 'active')) return null;
  const caller: Caller = { kind: r.kind === 'demo' ? 'demo' : 'machine', zid: r.zid ?? null, keyPrefix: r.key_prefix, keyHash: hash };
  cache?.set(hash, caller, r.expires_at ? new Date(r.expires_at).getTime() : null);
  return caller;
}

export async function mintDemoKey(q: Queryable, tokens: number, nowSeconds: number): Promise<{ apiKey: string; expiresAt: string; tokens: number }> {
  const apiKey = mintKeyString(true);
  const expiresAt = new Date((nowSeconds + 24 * 3600) * 1000).toISOString();
  await q.query(`INSERT INTO api_keys (key_hash, key_prefix, zid, kind, tokens_left, expires_at) VALUES ($1,$2,NULL,'demo',$3,$4)`,
    [sha256Hex(apiKey), keyPrefixOf(apiKey), tokens, expiresAt]);
  return { apiKey, expiresAt, tokens };
}

function slugify(name: string): string {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32);
  return (base || 'machine') + '-' + shortSuffix(6);
}

/** A recovery equation: a small random linear equation a·x + b = c with its solution, e.g.
 * "37*x + 912 = 4319; x = 92.081...". It is secret material shown once, like a password. */
function recoveryEquation(): string {
  const a = randomInt(11, 997), b = randomInt(100, 99999), x = randomInt(1000, 999999);
  const word = randomToken(9);
  return `${a}*x + ${b} = ${a * x + b} | x = ${x} | ${word}`;
}

async function hashRecovery(equation: string, salt: string): Promise<string> {
  const { N, r, p, keyLength } = SCRYPT_PARAMS;
  return (await scrypt(equation, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 })).toString('hex');
}

export interface NewMachine {
  zid: string;
  slug: string;
  displayName: string;
  apiKey: string;
  keyPrefix: string;
  recovery: { equation: string; salt: string };
  tier: 'free';
}

/** `family`: the SHA-256 of the demo key that creates the machine (issue 19: a demo key creates at
 * most a few machines, and their long-lived resources are limited together). */
export async function createMachine(q: Queryable, displayName: string, tokensPerDay: number, nowSeconds: number, family: string | null = null): Promise<NewMachine> {
  const zid = newZid();
  const slug = slugify(displayName);
  const equation = recoveryEquation();
  const salt = randomBytes(16).toString('hex');
  const recoveryHash = await hashRecovery(equation, salt);
  await q.query(
    `INSERT INTO machines (zid, slug, display_name, recovery_hash, recovery_salt, tokens_day, tokens_left, chain_seq, chain_head, family)
     VALUES ($1,$2,$3,$4,$5,$6,$7,0,$8,$9)`,
    [zid, slug, displayName, recoveryHash, salt, utcDay(nowSeconds), tokensPerDay, GENESIS_PREV, family]);
  const apiKey = mintKeyString(false);
  const keyPrefix = keyPrefixOf(apiKey);
  await q.query(`INSERT INTO api_keys (key_hash, key_prefix, zid, kind) VALUES ($1,$2,$3,'machine')`, [sha256Hex(apiKey), keyPrefix, zid]);
  const at = new Date(nowSeconds * 1000).toISOString();
  await appendToChain(q, zid, [{ kind: 'genesis', ref: zid, payload: { zid, slug, displayName, tier: 'free' }, at },
    { kind: 'key.minted', ref: keyPrefix, payload: { keyPrefix }, at }]);
  return { zid, slug, displayName, apiKey, keyPrefix, recovery: { equation, salt }, tier: 'free' };
}

/** Revokes every key of a machine and mints a new one, if the equation and salt match. */
export async function recoverMachine(q: Queryable, zid: string, equation: string, salt: string, nowSeconds?: number): Promise<{ apiKey: string; keyPrefix: string } | null> {
  const rows = await q.query<{ recovery_hash: string; recovery_salt: string }>('SELECT recovery_hash, recovery_salt FROM machines WHERE zid = $1 FOR UPDATE', [zid]);
  if (!rows.length) return null;
  const { recovery_hash, recovery_salt } = rows[0];
  const saltOk = salt.length === recovery_salt.length && timingSafeEqual(Buffer.from(salt), Buffer.from(recovery_salt));
  const given = await hashRecovery(equation, recovery_salt);
  const eqOk = timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(recovery_hash, 'hex'));
  if (!saltOk || !eqOk) return null;
  return rotateMachineKeys(q, zid, 'key.recovered', nowSeconds);
}

/** `nowSeconds`: the node's clock (DESIGN §6) for the chain entry's time; wall time if omitted. */
export async function rotateMachineKeys(q: Queryable, zid: string, kind: string, nowSeconds?: number): Promise<{ apiKey: string; keyPrefix: string }> {
  await q.query(`UPDATE api_keys SET revoked_at = now() WHERE zid = $1 AND revoked_at IS NULL`, [zid]);
  await announceKeyChange(q, zid);
  const apiKey = mintKeyString(false);
  const keyPrefix = keyPrefixOf(apiKey);
  await q.query(`INSERT INTO api_keys (key_hash, key_prefix, zid, kind) VALUES ($1,$2,$3,'machine')`, [sha256Hex(apiKey), keyPrefix, zid]);
  await appendToChain(q, zid, [{ kind, ref: keyPrefix, payload: { keyPrefix }, ...(nowSeconds !== undefined ? { at: new Date(nowSeconds * 1000).toISOString() } : {}) }]);
  return { apiKey, keyPrefix };
}

export async function revokeMachineKeys(q: Queryable, zid: string, nowSeconds?: number): Promise<number> {
  const rows = await q.query(`UPDATE api_keys SET revoked_at = now() WHERE zid = $1 AND revoked_at IS NULL RETURNING key_prefix`, [zid]);
  if (rows.length) await appendToChain(q, zid, [{ kind: 'key.revoked', ref: zid, payload: { count: rows.length }, ...(nowSeconds !== undefined ? { at: new Date(nowSeconds * 1000).toISOString() } : {}) }]);
  await announceKeyChange(q, zid);
  return rows.length;
}

/** Sliding-window rate limit kept in the store (works across nodes): refuses with RATE_LIMITED
 * when `max` events of `bucket` happened within the window, else records one. */
export async function rateLimit(q: Queryable, bucket: string, max: number, windowSeconds: number): Promise<void> {
  await assertUnderLimit(q, bucket, max, windowSeconds);
  await recordEvent(q, bucket);
}

/** Refuses with RATE_LIMITED when `max` events of `bucket` happened within the window, without
 * recording one (limits that count only failures record them with `recordEvent`). */
export async function assertUnderLimit(q: Queryable, bucket: string, max: number, windowSeconds: number, message?: string): Promise<void> {
  if (windowSeconds > RATE_EVENT_RETENTION_SECONDS) throw new Error(`a rate window of ${windowSeconds} s is longer than events are kept`);
  const rows = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM rate_events WHERE bucket = $1 AND at > now() - make_interval(secs => $2)`, [bucket, windowSeconds]);
  if (Number(rows[0].n) >= max) {
    throw new SvcError('RATE_LIMITED', message ?? `too many requests: at most ${max} per ${windowSeconds} s`, { details: { retryAfterSeconds: windowSeconds } });
  }
}

/** How long a rate event is kept: longer than every window a limit counts over (the longest is
 * an hour). Older events can no longer refuse anything and are deleted as new ones are written,
 * so the table stays bounded by the traffic of one day, whoever floods it. */
export const RATE_EVENT_RETENTION_SECONDS = 86_400;

export async function recordEvent(q: Queryable, bucket: string): Promise<void> {
  await q.query('INSERT INTO rate_events (bucket) VALUES ($1)', [bucket]);
  await q.query('DELETE FROM rate_events WHERE at < now() - make_interval(secs => $1)', [RATE_EVENT_RETENTION_SECONDS]);
}

export function assertMachineCaller(caller: Caller | null): { zid: string; keyPrefix: string } {
  if (!caller || !caller.zid) throw new SvcError('UNAUTHORIZED', 'a machine key is required');
  return { zid: caller.zid, keyPrefix: caller.keyPrefix };
}
