// One PostgreSQL dialect on two backends (DESIGN §2): PGlite embedded (default) and `pg` when
// DATABASE_URL is set. Repositories see only `Db`/`Queryable`; they never know which it is.
import { readdirSync, readFileSync, mkdirSync, existsSync, writeFileSync, renameSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly backend: 'pglite' | 'postgres';
  /** Runs fn in one transaction; rolls back if it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** LISTEN on a channel (PostgreSQL only does cross-process; PGlite delivers in-process). */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function openDb(opts: { databaseUrl: string | null; dataDir: string; schema?: string | null }): Promise<Db> {
  const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl, opts.schema ?? null) : await openPglite(opts.dataDir);
  await migrate(db);
  return db;
}

async function openPglite(dataDir: string): Promise<Db> {
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
    async listen(channel, cb) {
      const unsub = await pg.listen(channel, cb);
      return async () => { await unsub(); };
    },
    async notify(channel, payload) {
      await pg.query(`SELECT pg_notify($1, $2)`, [channel, payload]);
    },
    async close() { await pg.close(); },
  };
}

async function openPostgres(url: string, schema: string | null): Promise<Db> {
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
    async close() {
      if (listener) await listener.end().catch(() => {});
      await pool.end();
    },
  };
}

/** An in-memory node (tests, `SVC_DATA_DIR=:memory:`) starts from a dump of a freshly migrated
 * database instead of running initdb and every migration again: the dump is made once per set of
 * migrations and PGlite version, kept in the temp directory and shared by every process. */
async function migratedTemplate(PGlite: any): Promise<Blob> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
  const h = createHash('sha256');
  // the PGlite build: its package.json, found above its resolved entry point
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  h.update(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version ?? '');
  for (const f of files) h.update(f).update(readFileSync(join(MIGRATIONS_DIR, f)));
  const path = join(tmpdir(), `svc-pglite-template-${h.digest('hex').slice(0, 16)}.tar`);
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
  const dump: Blob = await fresh.dumpDataDir('none');
  await fresh.close();
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
