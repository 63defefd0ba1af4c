// The embedded store's own thread (docs/node.md, "Seal-path throughput"): PGlite is PostgreSQL
// compiled to WebAssembly and runs synchronously wherever it lives; on the event loop it took
// about half of the node's time under sealing load. Here it runs in a worker thread, and the
// event loop only exchanges messages with it (src/store/db.ts, `openPgliteThread`).
//
// Messages in:  {id, op: 'query'|'exec', sql, params?, tx?}   a statement (inside transaction tx)
//               {id, op: 'script', sql}   several statements without parameters, every statement's rows
//               {id, op: 'call', name, args}   a registered store procedure in its own transaction
//               {id, op: 'begin', tx} / {id, op: 'end', tx, commit}   open / close a transaction
//               {id, op: 'checked', check, expect, writes}   a whole optimistic write (db.ts CheckedWrite)
//               {id, op: 'listen'|'unlisten', channel}   {id, op: 'close'}
// Messages out: {id, ok: true, rows?} (rows: a procedure's result) | {id, ok: false, error}   {channel, payload} (a NOTIFY)
// A transaction holds PGlite's transaction lock from 'begin' to 'end': statements outside it wait,
// exactly as they do when PGlite runs in the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { procedure, type Queryable } from './db.ts';
import { collectGarbage } from '../core/memory.ts';

interface Statement { sql: string; params: unknown[] }
interface Msg { id: number; op: string; sql?: string; params?: unknown[]; tx?: number; commit?: boolean; channel?: string; name?: string; args?: unknown; check?: Statement; expect?: string; writes?: Statement[] }

const port = parentPort!;
const init = workerData as { dataDir?: string; template?: ArrayBuffer; seed?: string; procedures: Record<string, string> };
// PostgreSQL's shared buffers live in PGlite's WebAssembly memory and are touched at start-up:
// the default 128 MB was a third of an idle node's RSS. The data files are in the OS page cache
// anyway (PGlite's NODEFS), so a smaller pool costs little (docs/node.md, "Memory").
const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];
// a new data directory starts as a copy of the migrated template when there is one (`seed`: start fast)
const pg = init.template ? new PGlite({ loadDataDir: new Blob([init.template]), startParams })
  : init.seed ? new PGlite(init.dataDir!, { loadDataDir: new Blob([readFileSync(init.seed)]), startParams })
  : new PGlite(init.dataDir!, { startParams });

/** the error fields the node reads (SQLSTATE `code` and PostgreSQL's diagnostics) */
const ERROR_FIELDS = ['name', 'message', 'code', 'severity', 'detail', 'hint', 'position', 'where', 'schema', 'table', 'column', 'dataType', 'constraint'];
function errorOf(e: any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ERROR_FIELDS) if (e && e[k] !== undefined) out[k] = typeof e[k] === 'object' ? String(e[k]) : e[k];
  if (!out.message) out.message = String(e);
  return out;
}

function reply(id: number, p: Promise<unknown[] | undefined>): void {
  p.then(
    (rows) => port.postMessage(rows === undefined ? { id, ok: true } : { id, ok: true, rows }),
    (e) => port.postMessage({ id, ok: false, error: errorOf(e) }),
  );
}

function queryableOf(t: Transaction): Queryable {
  return {
    query: async (sql, params) => (await t.query(sql, params as any[])).rows as any[],
    exec: async (sql) => { await t.exec(sql); },
  };
}

/** statements of an open transaction wait here until the main thread sends them */
class Inbox {
  private items: Msg[] = [];
  private waiter: ((m: Msg) => void) | null = null;
  push(m: Msg): void {
    if (this.waiter) { const w = this.waiter; this.waiter = null; w(m); } else this.items.push(m);
  }
  next(): Promise<Msg> {
    const m = this.items.shift();
    return m ? Promise.resolve(m) : new Promise((r) => { this.waiter = r; });
  }
}
const open = new Map<number, Inbox>();
const ROLLBACK = Symbol('rollback');
const unlisteners = new Map<string, () => Promise<void>>();

function begin(m: Msg): void {
  const inbox = new Inbox();
  open.set(m.tx!, inbox);
  let endId = -1;
  pg.transaction(async (t) => {
    port.postMessage({ id: m.id, ok: true });
    for (;;) {
      const s = await inbox.next();
      if (s.op === 'end') {
        endId = s.id;
        if (!s.commit) throw ROLLBACK;
        return;
      }
      reply(s.id, s.op === 'exec' ? t.exec(s.sql!).then(() => undefined) : t.query(s.sql!, s.params as any[]).then((r) => r.rows));
      // the next statement is sent only after this one answered, so they run in order
    }
  }).then(
    () => port.postMessage({ id: endId, ok: true }),
    (e) => {
      if (endId >= 0) port.postMessage(e === ROLLBACK ? { id: endId, ok: true } : { id: endId, ok: false, error: errorOf(e) });
      else port.postMessage({ id: m.id, ok: false, error: errorOf(e) }); // BEGIN itself failed
    },
  ).finally(() => open.delete(m.tx!));
}

port.on('message', (m: Msg) => {
  switch (m.op) {
    case 'query':
    case 'exec': {
      if (m.tx !== undefined) {
        const inbox = open.get(m.tx);
        if (!inbox) { port.postMessage({ id: m.id, ok: false, error: { message: 'the transaction has ended' } }); return; }
        inbox.push(m);
        return;
      }
      reply(m.id, m.op === 'exec' ? pg.exec(m.sql!).then(() => undefined) : pg.query(m.sql!, m.params as any[]).then((r) => r.rows));
      return;
    }
    case 'script': {
      // a script with its own BEGIN … COMMIT: a failure leaves its transaction open, so roll it back
      reply(m.id, pg.exec(m.sql!).then((rs) => rs.flatMap((r) => r.rows ?? []), async (e) => { await pg.query('ROLLBACK').catch(() => {}); throw e; }) as Promise<unknown[]>);
      return;
    }
    case 'begin': begin(m); return;
    case 'checked': {
      // the check, then the writes, in one transaction and one message each way (db.ts CheckedWrite)
      let found: string | null = null;
      reply(m.id, pg.transaction(async (t) => {
        const r = (await t.query<{ s: string | null }>(m.check!.sql, m.check!.params as any[])).rows[0];
        if ((r?.s ?? null) !== m.expect) { found = r?.s ?? null; throw ROLLBACK; }
        for (const w of m.writes!) await t.query(w.sql, w.params as any[]);
      }).then(() => ({ ok: true }), (e) => { if (e === ROLLBACK) return { ok: false, found }; throw e; }) as Promise<any>);
      return;
    }
    case 'call': {
      reply(m.id, procedure(init.procedures, m.name!).then((proc) => pg.transaction((t) => proc(queryableOf(t), m.args))) as Promise<any>);
      return;
    }
    case 'end': {
      const inbox = open.get(m.tx!);
      if (!inbox) { port.postMessage({ id: m.id, ok: true }); return; }
      inbox.push(m);
      return;
    }
    case 'listen': {
      const channel = m.channel!;
      reply(m.id, (async () => {
        if (!unlisteners.has(channel)) unlisteners.set(channel, await pg.listen(channel, (payload) => port.postMessage({ channel, payload })));
        return undefined;
      })());
      return;
    }
    case 'close': {
      reply(m.id, pg.close().then(() => undefined));
      return;
    }
    default:
      port.postMessage({ id: m.id, ok: false, error: { message: `unknown store operation ${m.op}` } });
  }
});

pg.waitReady.then(
  () => {
    // a fresh data directory ran initdb in a second PGlite instance in this thread: its memory
    // (a 128 MB+ WebAssembly heap) is garbage now, and an idle thread would keep it; the
    // migrations that follow add more, so collect again once they are likely done
    collectGarbage();
    setTimeout(collectGarbage, 5000).unref();
    port.postMessage({ ready: true });
  },
  (e) => port.postMessage({ ready: false, error: errorOf(e) }),
);
