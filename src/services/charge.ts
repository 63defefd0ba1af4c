// Charging for work that produced no receipt (issue 19, DESIGN §10 "work stopped by the budget is
// charged"): a solver run stopped by its time budget, or cancelled by its caller after it started,
// used a worker's time; it is charged without sealing anything. The charge is serialised per
// machine like the seal batch (SELECT … FOR UPDATE on the machine row, in the database, so several
// nodes sharing the store agree) and never takes a machine below zero.
import type { Queryable } from '../store/db.ts';
import { utcDay } from './seal-batch.ts';
import { appendToChain } from './chain.ts';

/** What a charge was for: the solver, why it produced no receipt, and the worker time it used. */
export interface ChargeReason { solver: string; code: string; workerSeconds: number }

/** Takes up to `cost` tokens from the machine's allowance for today; returns what was taken and
 * what is left (a machine that has fewer than `cost` left is charged what it has). A charge of at
 * least one token is an entry `charge` on the machine's chain (ref: the solver; payload: the
 * reason, the worker seconds, the tokens taken and left), in the same transaction, so that the
 * machine's own record accounts for every token it spent, not only for its receipts. */
export async function chargeTokens(q: Queryable, zid: string, cost: number, tokensPerDay: number, tNow: number, reason?: ChargeReason): Promise<{ cost: number; remaining: number; chain?: { seq: number; hash: string } }> {
  const today = utcDay(tNow);
  const rows = await q.query<{ tokens_day: string; tokens_left: number }>('SELECT tokens_day, tokens_left FROM machines WHERE zid = $1 FOR UPDATE', [zid]);
  if (!rows.length) return { cost: 0, remaining: 0 };
  const left = rows[0].tokens_day === today ? Number(rows[0].tokens_left) : tokensPerDay;
  const taken = Math.max(0, Math.min(cost, left));
  await q.query('UPDATE machines SET tokens_day = $2, tokens_left = $3 WHERE zid = $1', [zid, today, left - taken]);
  if (!reason || taken === 0) return { cost: taken, remaining: left - taken };
  const [entry] = await appendToChain(q, zid, [{
    kind: 'charge',
    ref: reason.solver,
    payload: { solver: reason.solver, code: reason.code, workerSeconds: reason.workerSeconds, tokens: { cost: taken, remaining: left - taken } },
    at: new Date(tNow * 1000).toISOString(),
  }]);
  return { cost: taken, remaining: left - taken, chain: { seq: entry.seq, hash: entry.hash } };
}
