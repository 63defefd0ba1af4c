// Admin operations: guarded by SVC_ADMIN_KEY, never tools, never in the catalog, refused by svc_http.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { revokeMachineKeys } from '../services/identity.ts';
import { checkZid } from './machines.ts';
import { rotateKey, rotateSigningKey, KEYS_ROTATED_CHANNEL } from '../services/keys.ts';
import { ed25519Raw, SIG_ED25519, vkeyOf } from '../core/tlog.ts';

export const operations: Operation[] = [
  defineOp({
    id: 'admin.machines.list',
    method: 'GET',
    path: '/api/admin/machines',
    access: 'admin',
    tag: 'admin',
    summary: 'List machines (admin).',
    input: z.strictObject({ limit: z.number().int().min(1).max(500).default(100), offset: z.number().int().min(0).max(1e9).default(0) }),
    async handler(input, ctx) {
      const rows = await ctx.app.db.query<any>(
        `SELECT m.zid, m.slug, m.display_name, m.tier, m.state, m.chain_seq, m.created_at,
                (SELECT count(*)::int FROM api_keys k WHERE k.zid = m.zid AND k.revoked_at IS NULL) AS active_keys
           FROM machines m ORDER BY m.created_at, m.zid LIMIT $1 OFFSET $2`, [input.limit, input.offset]);
      return {
        ok: true,
        machines: rows.map((r) => ({ zid: r.zid, slug: r.slug, displayName: r.display_name, tier: r.tier, state: r.state, chainLength: Number(r.chain_seq), activeKeys: Number(r.active_keys), createdAt: new Date(r.created_at).toISOString() })),
      };
    },
  }),
  defineOp({
    id: 'admin.machines.revoke-keys',
    method: 'POST',
    path: '/api/admin/machines/:zid/revoke-keys',
    access: 'admin',
    tag: 'admin',
    summary: "Revoke every key of a machine (admin). The owner can recover with the recovery equation.",
    input: z.strictObject({ zid: z.string().max(64) }),
    async handler(input, ctx) {
      checkZid(input.zid);
      const n = await ctx.app.db.tx(async (q) => {
        const m = await q.query('SELECT zid FROM machines WHERE zid = $1', [input.zid]);
        if (!m.length) throw new SvcError('NOT_FOUND', 'machine not found');
        return revokeMachineKeys(q, input.zid, ctx.app.clock.now());
      });
      ctx.app.keyCache.invalidateZid(input.zid);
      return { ok: true, zid: input.zid, revoked: n };
    },
  }),
  defineOp({
    id: 'admin.keys.rotate',
    method: 'POST',
    path: '/api/admin/keys/rotate',
    access: 'admin',
    tag: 'admin',
    summary: "Rotate the deployment's keys (admin): the Ed25519 signing key (sig), the log's note key (log), the ECDSA P-256 attestation key (attest), or all. Retired keys stay in the JWKS marked retired, so receipts, checkpoints and attestations signed before still verify; every node on the database switches.",
    input: z.strictObject({ purpose: z.enum(['sig', 'log', 'attest', 'all']).default('all') }),
    async handler(input, ctx) {
      const app = ctx.app;
      const secret = app.config.sealSecret;
      const which = input.purpose === 'all' ? ['sig', 'log', 'attest'] as const : [input.purpose] as const;
      const rotated = await app.db.tx(async (q) => {
        const out: { purpose: string; retired: string | null; current: string }[] = [];
        for (const p of which) {
          if (p === 'sig') { const r = await rotateSigningKey(q, secret); out.push({ purpose: p, retired: r.retired, current: r.current.kid }); continue; }
          const extra = p === 'log' ? (pub: import('node:crypto').KeyObject) => ({ vkey: vkeyOf(app.logOrigin, SIG_ED25519, ed25519Raw(pub)) }) : undefined;
          const r = await rotateKey(q, secret, p, extra);
          out.push({ purpose: p, retired: r.retired, current: r.current.kid });
        }
        await q.query('SELECT pg_notify($1, $2)', [KEYS_ROTATED_CHANNEL, which.join(',')]);
        return out;
      });
      await app.reloadKeys();
      return { ok: true, rotated, vkey: app.logKey.publicJwk.vkey };
    },
  }),
];
