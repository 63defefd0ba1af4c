// Folders of filed receipts: every sealed call may name a folder.
import { z } from 'zod';
import { type RawReply, defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { okWith, SealedReceipt } from './outputs.ts';

export const operations: Operation[] = [
  defineOp({
    id: 'folders.list',
    method: 'GET',
    path: '/api/folders',
    access: 'user',
    scope: 'machine:read',
    tag: 'folders',
    summary: "The caller's folders with their receipt counts.",
    input: z.strictObject({}),
    output: okWith({
      folders: z.array(z.object({ name: z.string(), count: z.number().int(), lastAt: z.string() })),
    }),
    async handler(_i, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const rows = await ctx.app.db.query<any>(
        'SELECT folder, count(*)::int AS n, max(created_at) AS last FROM receipts WHERE zid = $1 GROUP BY folder ORDER BY folder', [zid]);
      return { ok: true, folders: rows.map((r) => ({ name: r.folder, count: Number(r.n), lastAt: new Date(r.last).toISOString() })) };
    },
  }),
  defineOp({
    id: 'folders.receipts',
    method: 'GET',
    path: '/api/folders/:name/receipts',
    access: 'user',
    scope: 'machine:read',
    tag: 'folders',
    summary: 'The receipts filed in one of the caller\'s folders, newest first.',
    input: z.strictObject({
      name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'folder: 1-64 characters of A-Z a-z 0-9 . _ -'),
      limit: z.number().int().min(1).max(200).default(50),
      before: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('chain seq cursor: receipts with a smaller seq'),
    }),
    output: okWith({
      folder: z.string(),
      receipts: z.array(SealedReceipt).describe('the sealed answers as they were returned, newest first'),
      next: z.number().int().nullable().describe('the `before` of the next page (null: no more)'),
    }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const rows = await ctx.app.db.query<any>(
        `SELECT body, chain_seq FROM receipts WHERE zid = $1 AND folder = $2 AND ($3::bigint IS NULL OR chain_seq < $3::bigint)
          ORDER BY chain_seq DESC LIMIT $4`, [zid, input.name, input.before ?? null, input.limit]);
      const receipts = rows.map((r) => JSON.parse(r.body));
      const next = rows.length === input.limit ? Number(rows[rows.length - 1].chain_seq) : null;
      return { ok: true, folder: input.name, receipts, next };
    },
  }),
  defineOp({
    id: 'receipts.get',
    method: 'GET',
    path: '/api/receipts/:id',
    access: 'user',
    scope: 'machine:read',
    tag: 'folders',
    summary: 'One of the caller\'s sealed receipts by id.',
    input: z.strictObject({ id: z.string().regex(/^rcpt_[0-9A-Z]{26}$/, 'a receipt id is rcpt_ followed by 26 characters') }),
    output: SealedReceipt,
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const rows = await ctx.app.db.query<any>('SELECT body FROM receipts WHERE id = $1 AND zid = $2', [input.id, zid]);
      if (!rows.length) throw new SvcError('NOT_FOUND', 'receipt not found');
      return JSON.parse(rows[0].body);
    },
  }),
  defineOp({
    id: 'receipts.drat',
    method: 'GET',
    path: '/api/receipts/:id/drat',
    access: 'user',
    scope: 'machine:read',
    tag: 'folders',
    produces: ['text/plain'],
    summary: 'The DRAT proof of an UNSAT svc_sat receipt, as text (the receipt seals its SHA-256 and size: result.proof).',
    description: 'Check it with any DRAT checker (drat-trim cnf.txt proof.drat) against the CNF you sent. 404 when the receipt has no proof (a satisfiable answer carries its model instead).',
    input: z.strictObject({ id: z.string().regex(/^rcpt_[0-9A-Z]{26}$/, 'a receipt id is rcpt_ followed by 26 characters') }),
    async handler(input, ctx): Promise<RawReply> {
      const { zid } = assertMachineCaller(ctx.caller);
      const rows = await ctx.app.db.query<{ body: string; sha256: string }>(
        `SELECT a.body, a.sha256 FROM receipt_attachments a JOIN receipts r ON r.id = a.receipt_id
          WHERE a.receipt_id = $1 AND r.zid = $2 AND a.name = 'drat'`, [input.id, zid]);
      if (!rows.length) throw new SvcError('NOT_FOUND', 'no DRAT proof for this receipt (not yours, not a sat receipt, or not UNSAT)');
      return { raw: true, status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', etag: `"${rows[0].sha256}"`, 'cache-control': 'private, max-age=31536000, immutable' }, body: rows[0].body };
    },
  }),
];
