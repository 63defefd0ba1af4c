// The job queue engine (docs/jobs.md, "Why pg-boss"): pg-boss 12 on the node's own store. pg-boss
// takes a `db` adapter (`executeSql(text, values)`), so one code path serves the embedded store
// (PGlite in its own thread, src/store/pglite-thread.ts) and PostgreSQL: parameterised statements
// go through `Db.query`; its parameterless scripts (`BEGIN; … RETURNING …; COMMIT`) through
// `Db.script`, which returns every statement's rows; LISTEN through `Db.listen` (cross-process on
// PostgreSQL, in-process on PGlite). pg-boss keeps its tables in its own schema, next to ours.
import { PgBoss } from 'pg-boss';
import { EMBEDDED_QUEUE_SCHEMA, type Db, type Queryable } from '../store/db.ts';

/** the one queue every job and sweep run goes through */
export const QUEUE = 'svc-jobs';
/** the pg-boss group tier of a sweep's runs (their own cluster-wide limit per machine) */
export const SWEEP_TIER = 'sweep';

type Adapter = { executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>; listen?: any };

/** pg-boss's view of the node's store.
 *
 * pg-boss claims a job in one statement that counts the group's active jobs and activates the next
 * ones (`groupConcurrency`). On PostgreSQL two such statements running at once (two workers of a
 * node, or two nodes) each take their snapshot before the other commits: both see the group idle
 * and both claim, so a machine limited to one job ran two (seen in CI). The claims of one queue
 * schema are therefore serialised by a transaction-scoped advisory lock: the second claim's
 * statement starts after the first committed, and counts its job. A claim lasts milliseconds. On
 * the embedded store statements already run one at a time. */
export function bossAdapter(db: Db, schema: string): Adapter {
  const serialiseClaims = db.backend !== 'pglite';
  return {
    executeSql: async (text, values) => {
      if (serialiseClaims && values?.length && text.includes('group_ranking')) {
        return {
          rows: await db.tx(async (q) => {
            await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.claim`]);
            return q.query(text, values);
          }),
        };
      }
      return { rows: values?.length ? await db.query(text, values) : await db.script(text) };
    },
    listen: async (channel: string, onPayload: (p: string) => void, onReconnect: () => void) => {
      const stop = await db.listen(channel, onPayload);
      onReconnect();
      return { close: stop };
    },
  };
}

/** pg-boss's view of a transaction the node holds (a job's row and its queue entry commit together). */
export function txAdapter(q: Queryable): Adapter {
  return { executeSql: async (text, values) => ({ rows: await q.query(text, values ?? []) }) };
}

/** pg-boss's schema: beside the node's own (each test schema on a shared PostgreSQL has its own queue). */
export function bossSchema(dbSchema: string | null): string {
  return dbSchema ? `${dbSchema}_pgboss`.slice(0, 50) : EMBEDDED_QUEUE_SCHEMA;
}

export interface QueueOptions {
  db: Db;
  schema: string;
  heartbeatSeconds: number;
  /** longest a job may stay active, seconds (its largest budget and a margin) */
  expireInSeconds: number;
}

/** Starts pg-boss on the store and makes sure the queue exists. */
export async function startQueue(o: QueueOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    db: bossAdapter(o.db, o.schema) as any,
    backend: o.db.backend === 'pglite' ? 'pglite' : 'postgres',
    schema: o.schema,
    useListenNotify: true,
    // a node killed while running a job stops heartbeating: its job is retried once the heartbeat
    // is `heartbeatSeconds` old, found by the supervisor within `superviseIntervalSeconds`
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    registerInstance: false,
    schedule: false,
    openTelemetry: { enabled: false },
  } as any);
  boss.on('error', () => { /* pg-boss retries its own maintenance; a job's failure is the runner's */ });
  boss.on('warning', () => { /* slow queries on a loaded test machine */ });
  await boss.start();
  const options = {
    heartbeatSeconds: o.heartbeatSeconds,
    expireInSeconds: o.expireInSeconds,
    // a retry is a job handed back (drain) or taken from a dead node: at least once, sealed once
    retryLimit: 1000,
    retryDelay: 0,
    notify: true,
    deleteAfterSeconds: 3600,
  };
  if (!(await boss.getQueue(QUEUE))) {
    try { await boss.createQueue(QUEUE, options as any); } catch { /* another node made it first */ }
  }
  return boss;
}
