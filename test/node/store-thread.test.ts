// The store behind the `Db` interface (src/store/db.ts): the embedded store runs PGlite in its own
// thread (src/store/pglite-thread.ts). These checks hold on every backend the suite runs on (the
// embedded thread, and PostgreSQL when DATABASE_URL is set), and the embedded thread is also
// compared with PGlite on the event loop (SVC_PGLITE_THREAD=0).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openDb, type Db } from '../../src/store/db.ts';

const opened: Db[] = [];
after(async () => { for (const db of opened) await db.close().catch(() => {}); });

async function store(): Promise<Db> {
  const url = process.env.DATABASE_URL ?? null;
  const db = await openDb({ databaseUrl: url, dataDir: ':memory:', schema: url ? `t_store_${randomBytes(4).toString('hex')}` : null });
  opened.push(db);
  return db;
}

async function onEventLoop<T>(fn: () => Promise<T>): Promise<T> {
  const before = process.env.SVC_PGLITE_THREAD;
  process.env.SVC_PGLITE_THREAD = '0';
  try { return await fn(); } finally { if (before === undefined) delete process.env.SVC_PGLITE_THREAD; else process.env.SVC_PGLITE_THREAD = before; }
}

test('a transaction that throws leaves nothing; one that returns commits, with its result', async () => {
  const db = await store();
  await db.exec('CREATE TABLE tx_probe (k TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  await assert.rejects(db.tx(async (q) => {
    await q.query('INSERT INTO tx_probe VALUES ($1, $2)', ['a', 1]);
    throw new Error('changed my mind');
  }), /changed my mind/);
  assert.deepEqual(await db.query('SELECT * FROM tx_probe'), []);
  const out = await db.tx(async (q) => {
    await q.query('INSERT INTO tx_probe VALUES ($1, $2)', ['b', 2]);
    return (await q.query<{ n: number }>('SELECT n FROM tx_probe WHERE k = $1', ['b']))[0].n;
  });
  assert.equal(out, 2);
  assert.deepEqual(await db.query('SELECT k, n FROM tx_probe'), [{ k: 'b', n: 2 }]);
});

test('transactions do not interleave: concurrent read-modify-write loses no update', async () => {
  const db = await store();
  await db.exec("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0)");
  await Promise.all(Array.from({ length: 40 }, () => db.tx(async (q) => {
    const [{ n }] = await q.query<{ n: number }>('SELECT n FROM counter WHERE id = 1 FOR UPDATE');
    await new Promise((r) => setImmediate(r));
    await q.query('UPDATE counter SET n = $1 WHERE id = 1', [n + 1]);
  })));
  assert.equal((await db.query<{ n: number }>('SELECT n FROM counter'))[0].n, 40);
});

test('a store error keeps its SQLSTATE code and message across the thread', async () => {
  const db = await store();
  await db.exec('CREATE TABLE uniq (k TEXT PRIMARY KEY)');
  await db.query('INSERT INTO uniq VALUES ($1)', ['x']);
  const dup: any = await db.query('INSERT INTO uniq VALUES ($1)', ['x']).catch((e) => e);
  assert.equal(dup.code, '23505');
  assert.match(dup.message, /duplicate key/);
  assert.ok(dup instanceof Error);
  const nul: any = await db.query('SELECT $1::text', ['a\u0000b']).catch((e) => e);
  assert.match(String(nul.code), /^22/);
  // the store is still usable after errors, inside and outside transactions
  const inTx: any = await db.tx(async (q) => { await q.query('INSERT INTO uniq VALUES ($1)', ['x']); }).catch((e) => e);
  assert.equal(inTx.code, '23505');
  assert.deepEqual(await db.query('SELECT count(*)::int AS n FROM uniq'), [{ n: 1 }]);
});

test('a NOTIFY reaches a listener; a procedure runs in one transaction and refuses unknown names', async () => {
  const db = await store();
  const got: string[] = [];
  await db.listen('store_probe', (p) => got.push(p));
  await db.notify('store_probe', 'hello');
  for (let i = 0; i < 100 && !got.length; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(got, ['hello']);
  await assert.rejects(db.call('no_such_procedure', {}), /no store procedure named no_such_procedure/);
  await assert.rejects(db.call('__proto__', {}), /no store procedure/);
});

test('the embedded thread answers exactly as PGlite on the event loop', { skip: !!process.env.DATABASE_URL && 'embedded only' }, async () => {
  const threaded = await store();
  const inLoop = await onEventLoop(() => store());
  const script = async (db: Db) => {
    await db.exec('CREATE TABLE same (k TEXT PRIMARY KEY, n BIGINT, at TIMESTAMPTZ, j JSONB, b BYTEA)');
    await db.query('INSERT INTO same VALUES ($1, $2, $3, $4, $5)', ['a', 9007199254740991, '2026-11-22T00:00:00Z', { x: [1, 'two'] }, new Uint8Array([1, 2, 255])]);
    return db.query('SELECT k, n, at, j, b FROM same');
  };
  const a = await script(threaded);
  const b = await script(inLoop);
  assert.deepEqual(a, b);
  assert.ok(a[0].at instanceof Date);
});

test('a closed store refuses further work instead of hanging', async () => {
  const db = await openDb({ databaseUrl: null, dataDir: ':memory:' });
  await db.close();
  await assert.rejects(db.query('SELECT 1'));
  await db.close(); // closing twice is harmless
});
