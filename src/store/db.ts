// One PostgreSQL dialect on two backends (DESIGN §2): PGlite embedded (default) and `pg` when
// DATABASE_URL is set. Repositories see only `Db`/`Queryable`; they never know which it is.
import { readdirSync, readFileSync, mkdirSync, existsSync, writeFileSync, renameSync, copyFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import v8 from 'node:v8';
import { moduleUrl } from '../core/modules.ts';

export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A script of several statements without parameters whose rows are wanted (the job queue
 * library's `BEGIN; … RETURNING …; COMMIT` blocks): every statement's rows, in order. On the
 * embedded store a failed script rolls back what it left open, as a pooled connection would. */
export type ScriptRunner = (sql: string) => Promise<any[]>;

export interface Db extends Queryable {
  readonly backend: 'pglite' | 'postgres';
  /** Runs fn in one transaction; rolls back if it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs a registered store procedure (see `ProcedureModules`) in one transaction, next to the store. */
  call<T>(procedure: string, args: unknown): Promise<T>;
  /** LISTEN on a channel (PostgreSQL only does cross-process; PGlite delivers in-process). */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** see ScriptRunner */
  script: ScriptRunner;
  /** One transaction in one exchange with the store (see `CheckedWrite`). */
  checked(w: CheckedWrite): Promise<{ ok: true } | { ok: false; found: string | null }>;
  close(): Promise<void>;
}

/** A statement with its parameters. */
export interface Statement { sql: string; params: unknown[] }

/** An optimistic write (the seal path, issue 28): in one transaction, `check` runs first (it takes
 * its locks and returns one row with a text column `s`); when `s` equals `expect` the `writes` run
 * in order and the transaction commits, otherwise it rolls back and `found` is what `s` was. On the
 * embedded store's thread this is one message each way, where a `tx` is one per statement. */
export interface CheckedWrite { check: Statement; expect: string; writes: Statement[] }

/** `checked` on any `tx` (PostgreSQL, and PGlite on the event loop). */
const MISMATCH = Symbol('mismatch');
async function checkedByTx(tx: Db['tx'], w: CheckedWrite): Promise<{ ok: true } | { ok: false; found: string | null }> {
  let found: string | null = null;
  try {
    await tx(async (q) => {
      const [r] = await q.query<{ s: string | null }>(w.check.sql, w.check.params);
      if ((r?.s ?? null) !== w.expect) { found = r?.s ?? null; throw MISMATCH; }
      for (const st of w.writes) await q.query(st.sql, st.params);
    });
  } catch (e) {
    if (e === MISMATCH) return { ok: false, found };
    throw e;
  }
  return { ok: true };
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function openDb(opts: { databaseUrl: string | null; dataDir: string; schema?: string | null; procedures?: ProcedureModules }): Promise<Db> {
  const procs = opts.procedures ?? {};
  const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl, opts.schema ?? null, procs) : await openPglite(opts.dataDir, procs);
  await migrate(db);
  return db;
}

async function openPglite(dataDir: string, procs: ProcedureModules): Promise<Db> {
  if (process.env.SVC_PGLITE_THREAD !== '0') return openPgliteThread(dataDir, procs);
  wasmWithoutTierUp();
  const { PGlite } = await import('@electric-sql/pglite');
  let pg: InstanceType<typeof PGlite>;
  if (dataDir === ':memory:') pg = new PGlite({ loadDataDir: await migratedTemplate(PGlite) });
  else {
    mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
    pg = new PGlite(join(dataDir, 'pgdata'));
  }
  await pg.waitReady;
  return {
    backend: 'pglite',
    async query(sql, params) {
      const r = await pg.query(sql, params as any[]);
      return r.rows as any[];
    },
    async exec(sql) { await pg.exec(sql); },
    async tx(fn) {
      return pg.transaction(async (t) => fn({
        query: async (sql, params) => (await t.query(sql, params as any[])).rows as any[],
        exec: async (sql) => { await t.exec(sql); },
      }));
    },
    async call(name, args) {
      const proc = await procedure(procs, name);
      return (this as Db).tx((q) => proc(q, args)) as any;
    },
    async listen(channel, cb) {
      const unsub = await pg.listen(channel, cb);
      return async () => { await unsub(); };
    },
    async notify(channel, payload) {
      await pg.query(`SELECT pg_notify($1, $2)`, [channel, payload]);
    },
    async checked(w) { return checkedByTx((fn) => (this as Db).tx(fn), w); },
    async script(sql) {
      try {
        return (await pg.exec(sql)).flatMap((r) => r.rows ?? []);
      } catch (e) {
        await pg.query('ROLLBACK').catch(() => {});
        throw e;
      }
    },
    async close() { await pg.close(); },
  };
}

/** PGlite is 9 MB of WebAssembly; which of V8's compilers compile it decides both how fast the
 * store starts and how much memory its code takes (docs/node.md, "WebAssembly tiers"). The flags
 * are process-wide and read when a module is compiled, so they are set before PGlite starts.
 * `SVC_WASM_TIERS`:
 *  - `liftoff` (default): V8's baseline compiler only (`--liftoff --no-wasm-tier-up`): each function
 *    compiled once, lazily, in microseconds; start-up is fastest and the code smallest;
 *  - `dynamic`: V8's default, Liftoff first and TurboFan for hot functions (`SVC_PGLITE_LIFTOFF=1`
 *    too, which `npm test` sets): fast start, then the hot functions compiled a second time;
 *  - `turbofan`: TurboFan only (`--no-liftoff`): each function compiled once, optimised, when first
 *    called; the slowest start (every function PostgreSQL touches while starting is optimised). */
export function wasmTiers(env: Record<string, string | undefined> = process.env): 'liftoff' | 'dynamic' | 'turbofan' {
  const t = env.SVC_WASM_TIERS || (env.SVC_PGLITE_LIFTOFF === '1' ? 'dynamic' : 'liftoff');
  if (t !== 'liftoff' && t !== 'dynamic' && t !== 'turbofan') throw new Error(`SVC_WASM_TIERS must be liftoff, dynamic or turbofan, got ${t}`);
  return t;
}
function wasmWithoutTierUp(): void {
  const t = wasmTiers();
  if (t === 'turbofan') v8.setFlagsFromString('--no-liftoff');
  else if (t === 'liftoff') { v8.setFlagsFromString('--liftoff'); v8.setFlagsFromString('--no-wasm-tier-up'); v8.setFlagsFromString('--no-wasm-dynamic-tiering'); }
}

/** the young generation of the store's thread, MB (see openPgliteThread) */
const STORE_THREAD_YOUNG_MB = 16;

/** The embedded store in its own worker thread (src/store/pglite-thread.ts): the same PGlite,
 * reached by messages, so its WebAssembly runs beside the event loop instead of on it. The
 * thread keeps the process alive only while a statement is in flight. `SVC_PGLITE_THREAD=0` runs
 * PGlite on the event loop instead (benchmarks compare the two). */
async function openPgliteThread(dataDir: string, procs: ProcedureModules): Promise<Db> {
  let workerData: { dataDir?: string; template?: ArrayBuffer; seed?: string; procedures: ProcedureModules };
  let transferList: ArrayBuffer[] = [];
  if (dataDir === ':memory:') {
    const { PGlite } = await import('@electric-sql/pglite');
    const bytes = new Uint8Array(await (await migratedTemplate(PGlite)).arrayBuffer());
    workerData = { template: bytes.buffer as ArrayBuffer, procedures: procs };
    transferList = [bytes.buffer as ArrayBuffer];
  } else {
    const pgdata = join(dataDir, 'pgdata');
    // a new data directory: a copy of the migrated template, when the build made one (start fast:
    // no initdb and no migrations at the first start; the template is what they would produce)
    const seed = existsSync(join(pgdata, 'PG_VERSION')) ? null : await existingTemplate();
    mkdirSync(pgdata, { recursive: true });
    workerData = { dataDir: pgdata, procedures: procs, ...(seed ? { seed } : {}) };
  }
  wasmWithoutTierUp();
  // the seal batch runs in this thread too (receipts, canonical JSON, signatures): a young
  // generation left to grow reached ~100 MB under sealing load; a smaller one costs little
  const worker = new Worker(moduleUrl('./pglite-thread.ts', import.meta.url), { workerData, transferList, resourceLimits: { maxYoungGenerationSizeMb: STORE_THREAD_YOUNG_MB } });
  const pending = new Map<number, { resolve: (rows: any) => void; reject: (e: unknown) => void }>();
  const channels = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let nextTx = 1;
  let dead: Error | null = null;
  const fail = (e: Error) => {
    dead ??= e;
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('message', (m: any) => (m.ready ? resolve() : reject(rebuildError(m.error))));
    worker.once('error', reject);
  });
  worker.on('message', (m: any) => {
    if (m.channel !== undefined) { channels.get(m.channel)?.forEach((h) => { try { h(m.payload ?? ''); } catch { /* a listener's bug is its own */ } }); return; }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (!pending.size) worker.unref();
    if (m.ok) p.resolve(m.rows); else p.reject(rebuildError(m.error));
  });
  worker.on('error', (e) => fail(e));
  worker.on('exit', (code) => fail(new Error(`the embedded store's thread exited (code ${code})`)));
  await ready;
  worker.unref();
  const call = (msg: Record<string, unknown>): Promise<any> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (!pending.size) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...msg, id });
    });
  };
  const queryable = (tx?: number): Queryable => ({
    async query(sql, params) { return (await call({ op: 'query', sql, params: params ?? [], tx })) ?? []; },
    async exec(sql) { await call({ op: 'exec', sql, tx }); },
  });
  const top = queryable();
  return {
    backend: 'pglite',
    query: top.query,
    exec: top.exec,
    async tx(fn) {
      const tx = nextTx++;
      await call({ op: 'begin', tx });
      let out;
      try {
        out = await fn(queryable(tx));
      } catch (e) {
        await call({ op: 'end', tx, commit: false }).catch(() => {});
        throw e;
      }
      await call({ op: 'end', tx, commit: true });
      return out;
    },
    async call(name, args) {
      return call({ op: 'call', name, args });
    },
    async listen(channel, cb) {
      let set = channels.get(channel);
      if (!set) {
        set = new Set();
        channels.set(channel, set);
        await call({ op: 'listen', channel });
      }
      set.add(cb);
      return async () => { set!.delete(cb); };
    },
    async notify(channel, payload) {
      await top.query(`SELECT pg_notify($1, $2)`, [channel, payload]);
    },
    async script(sql) { return (await call({ op: 'script', sql })) ?? []; },
    async checked(w) { return call({ op: 'checked', check: w.check, expect: w.expect, writes: w.writes }); },
    async close() {
      if (dead) return;
      await call({ op: 'close' }).catch(() => {});
      dead = new Error('the store is closed');
      await worker.terminate();
    },
  };
}

/** Store procedures by name: each is a module URL whose `procedure(q, args)` export runs in one
 * transaction next to the store. The app registers them when it opens the store (the seal batch of
 * src/services/seal-batch.ts), so the store imports nothing above it. */
export type ProcedureModules = Record<string, string>;

/** A registered store procedure by name. */
export async function procedure(modules: ProcedureModules, name: string): Promise<(q: Queryable, args: any) => Promise<unknown>> {
  if (!Object.hasOwn(modules, name)) throw new Error(`no store procedure named ${name}`);
  const mod = await import(modules[name]);
  if (typeof mod.procedure !== 'function') throw new Error(`store procedure ${name}: ${modules[name]} exports no procedure`);
  return mod.procedure;
}

/** A store error from the thread, with its SQLSTATE `code` and diagnostics, as PGlite threw it. */
function rebuildError(fields: Record<string, unknown> = {}): Error {
  const e = new Error(String(fields.message ?? 'store error'));
  for (const [k, v] of Object.entries(fields)) if (k !== 'message' && k !== 'stack') (e as any)[k] = v;
  return e;
}

async function openPostgres(url: string, schema: string | null, procs: ProcedureModules): Promise<Db> {
  const pgmod = await import('pg');
  const pgNs: any = (pgmod as any).default ?? pgmod;
  // int8 and numeric as JS numbers where safe: counts and sequence numbers are small.
  pgNs.types.setTypeParser(20, (v: string) => Number(v));
  if (schema) {
    const admin = new pgNs.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
    await admin.end();
  }
  const pool = new pgNs.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path="${schema.replace(/"/g, '')}"` } : {}),
  });
  pool.on('error', () => { /* idle client errors are retried by the pool */ });
  let listener: any = null;
  const handlers = new Map<string, Set<(p: string) => void>>();
  return {
    backend: 'postgres',
    async query(sql, params) {
      const r = await pool.query(sql, params as any[]);
      return r.rows;
    },
    async exec(sql) { await pool.query(sql); },
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({
          query: async (sql, params) => (await client.query(sql, params as any[])).rows,
          exec: async (sql) => { await client.query(sql); },
        });
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    async call(name, args) {
      const proc = await procedure(procs, name);
      return (this as Db).tx((q) => proc(q, args)) as any;
    },
    async listen(channel, cb) {
      if (!listener) {
        listener = new pgNs.Client({ connectionString: url });
        await listener.connect();
        listener.on('notification', (m: any) => handlers.get(m.channel)?.forEach((h) => h(m.payload ?? '')));
        listener.on('error', () => {});
      }
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await listener.query(`LISTEN "${channel.replace(/"/g, '')}"`);
      }
      set.add(cb);
      return async () => { set!.delete(cb); };
    },
    async notify(channel, payload) {
      await pool.query(`SELECT pg_notify($1, $2)`, [channel, payload]);
    },
    async script(sql) {
      const r = await pool.query(sql);
      return (Array.isArray(r) ? r : [r]).flatMap((x: any) => x.rows ?? []);
    },
    async checked(w) { return checkedByTx((fn) => (this as Db).tx(fn), w); },
    async close() {
      if (listener) await listener.end().catch(() => {});
      await pool.end();
    },
  };
}

/** the job queue's schema on the embedded store (src/jobs/queue.ts bossSchema) */
export const EMBEDDED_QUEUE_SCHEMA = 'pgboss';

/** Where the migrated template of this build lives (its name keys the migrations, the PGlite version
 * and the job queue's schema): the temp directory (tests make it there), and node_modules/.cache
 * (the build makes it there: scripts/build.mjs). */
async function templatePaths(): Promise<{ key: string; bossSql: string; paths: string[] }> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
  const h = createHash('sha256');
  // the PGlite build: its package.json, found above its resolved entry point
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  h.update(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version ?? '');
  for (const f of files) h.update(f).update(readFileSync(join(MIGRATIONS_DIR, f)));
  // the job queue's tables (pg-boss, in its schema `pgboss`: src/jobs/queue.ts) are in the
  // template too, so an in-memory node does not build them at every start
  const boss = await import('pg-boss');
  const bossSql = boss.getConstructionPlans(EMBEDDED_QUEUE_SCHEMA);
  h.update(bossSql);
  const key = h.digest('hex').slice(0, 16);
  const name = `svc-pglite-template-${key}.tar`;
  const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
  return { key, bossSql, paths: [join(tmpdir(), name), join(cache, name)] };
}

/** The template file if one exists for this build (else null: the store runs initdb and migrates). */
async function existingTemplate(): Promise<string | null> {
  try {
    for (const p of (await templatePaths()).paths) if (existsSync(p)) return p;
  } catch { /* no template: initdb */ }
  return null;
}

/** Makes the migrated template where the build keeps it (scripts/build.mjs), unless it exists. */
export async function buildTemplate(): Promise<string> {
  const { paths } = await templatePaths();
  if (existsSync(paths[1])) return paths[1];
  mkdirSync(dirname(paths[1]), { recursive: true });
  if (existsSync(paths[0])) { copyFileSync(paths[0], paths[1]); return paths[1]; }
  const { PGlite } = await import('@electric-sql/pglite');
  await migratedTemplate(PGlite, paths[1]);
  return paths[1];
}

/** An in-memory node (tests, `SVC_DATA_DIR=:memory:`) starts from a dump of a freshly migrated
 * database instead of running initdb and every migration again: the dump is made once per set of
 * migrations and PGlite version, kept in the temp directory and shared by every process. */
async function migratedTemplate(PGlite: any, at?: string): Promise<Blob> {
  const t = await templatePaths();
  const bossSql = t.bossSql;
  const path = at ?? t.paths[0];
  if (existsSync(path)) return new Blob([readFileSync(path)]);
  const fresh = new PGlite();
  await fresh.waitReady;
  const q = {
    backend: 'pglite' as const,
    query: async (sql: string, params?: unknown[]) => (await fresh.query(sql, params as any[])).rows as any[],
    exec: async (sql: string) => { await fresh.exec(sql); },
    tx: (fn: any) => fresh.transaction((t: any) => fn({ query: async (sql: string, params?: unknown[]) => (await t.query(sql, params)).rows, exec: async (sql: string) => { await t.exec(sql); } })),
  };
  await migrate(q as unknown as Db);
  await fresh.exec(bossSql);
  const dump: Blob = await fresh.dumpDataDir('none');
  await fresh.close();
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, path);
  return dump;
}

/** Applies every migrations/*.sql not yet applied, in file-name order, each in its own
 * transaction. On PostgreSQL an advisory lock keeps concurrent nodes from racing. */
export async function migrate(db: Db): Promise<void> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
  await db.tx(async (q) => {
    if (db.backend === 'postgres') await q.query('SELECT pg_advisory_xact_lock(872461287)');
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const done = new Set((await q.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    for (const f of files) {
      if (done.has(f)) continue;
      await q.exec(readFileSync(join(MIGRATIONS_DIR, f), 'utf8'));
      await q.query('INSERT INTO schema_migrations(name) VALUES ($1)', [f]);
    }
  });
}
