// Store procedures: named units of work that run in one transaction next to the store. On the
// embedded store they run in its thread (src/store/pglite-thread.ts), so a seal batch costs one
// message each way instead of one per statement, and its hashing and signing leave the event
// loop too; on PostgreSQL (and PGlite on the event loop) they run in `db.tx` as any other code.
// A procedure takes and returns plain data (it crosses threads by structured clone).
import type { Queryable } from './db.ts';
import { sealBatch } from '../services/sealer.ts';

export const procedures = {
  seal: sealBatch,
} satisfies Record<string, (q: Queryable, args: any) => Promise<unknown>>;

export type ProcedureName = keyof typeof procedures;
