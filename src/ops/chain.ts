// Chain and observer operations (DESIGN §8).
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { verifyChain } from '../services/chain.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { LOOKUP } from './tool-hints.ts';
import { okWith } from './outputs.ts';

export const operations: Operation[] = [
  defineOp({
    id: 'chain.verify',
    method: 'GET',
    path: '/api/chain/verify',
    access: 'user',
    scope: 'machine:read',
    tag: 'chain',
    title: 'Verify the caller\'s chain',
    summary: "Recompute the caller's whole chain from genesis and report whether every link holds.",
    input: z.strictObject({}),
    output: okWith({
      zid: z.string(),
      valid: z.boolean().describe('every link holds (consecutive seqs, each prevHash the previous hash, each hash recomputed, the head matches) and every stored receipt hashes to its entry'),
      length: z.number().int().describe('entries checked'),
      head: z.string().describe('hash of the last entry that holds'),
      firstBadSeq: z.number().int().optional().describe('the first entry that does not hold'),
      receiptsChecked: z.number().int().optional().describe("stored receipts re-hashed against their entries' payloadHash (the body without receipt, tokens and signature), once every link holds"),
      reason: z.string().optional().describe('why it does not hold'),
    }),
    async handler(_i, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const v = await verifyChain(ctx.app.db, zid);
      return { ok: true, zid, ...v };
    },
  }),
  defineOp({
    id: 'chain.observer',
    tool: 'svc_observer',
    title: 'Chain feed',
    brief: "Recent chain entries: the global feed without a key; your machine's entries in full with one.",
    hints: LOOKUP,
    toolOutput: z.object({ scope: z.string(), entries: z.array(z.object({ kind: z.string() })) }),
    method: 'GET',
    path: '/api/observer',
    access: 'public',
    tag: 'chain',
    summary: "Live entangled-state chain (proof-of-computation feed): without a key the global recent feed (kind, time, short hash, machine slug; no values); with a key the caller's machine in full.",
    input: z.strictObject({ limit: z.number().int().min(1).max(50).default(15) }),
    output: z.union([
      okWith({
        scope: z.literal('machine'),
        zid: z.string(),
        entries: z.array(z.object({ seq: z.number().int(), zid: z.string(), kind: z.string(), ref: z.string(), at: z.string(), payloadHash: z.string(), prevHash: z.string(), hash: z.string() })),
      }).describe('with a machine key: its own chain, newest first'),
      okWith({
        scope: z.literal('global'),
        entries: z.array(z.object({ kind: z.string(), at: z.string(), hash: z.string().describe('first 12 hex characters'), machine: z.string().describe('machine slug') })),
      }).describe('without a key: every machine, kind, time and short hash only'),
    ]),
    async handler(input, ctx) {
      const zid = ctx.caller?.zid;
      if (zid) {
        const rows = await ctx.app.db.query<any>(
          'SELECT seq, zid, kind, ref, at, payload_hash, prev_hash, hash FROM chain_entries WHERE zid = $1 ORDER BY seq DESC LIMIT $2', [zid, input.limit]);
        return {
          ok: true, scope: 'machine', zid,
          entries: rows.map((r) => ({ seq: Number(r.seq), zid: r.zid, kind: r.kind, ref: r.ref, at: r.at, payloadHash: r.payload_hash, prevHash: r.prev_hash, hash: r.hash })),
        };
      }
      const rows = await ctx.app.db.query<any>(
        `SELECT c.kind, c.at, c.hash, m.slug FROM chain_entries c JOIN machines m ON m.zid = c.zid
          ORDER BY c.created_at DESC, c.seq DESC LIMIT $1`, [input.limit]);
      return { ok: true, scope: 'global', entries: rows.map((r) => ({ kind: r.kind, at: r.at, hash: r.hash.slice(0, 12), machine: r.slug })) };
    },
  }),
];
