// Identity operations (DESIGN §5): demo keys, machines, recovery, the caller's own machine.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { isZid } from '../core/ids.ts';
import { createMachine, mintDemoKey, rateLimit, recoverMachine, assertMachineCaller, assertUnderLimit, recordEvent } from '../services/identity.ts';
import { tokensLeft } from '../services/seal-batch.ts';
import { CREATES } from './tool-hints.ts';
import { okWith } from './outputs.ts';

const zidField = z.string().max(64);

export function checkZid(zid: string): string {
  if (!isZid(zid)) throw new SvcError('INVALID_ZID', "a ZID is 'Z' followed by 26 Crockford base32 characters");
  return zid;
}

export const operations: Operation[] = [
  defineOp({
    id: 'demo-key.mint',
    method: 'POST',
    path: '/api/demo-key/mint',
    access: 'public',
    tag: 'machines',
    summary: 'Mint a free demo key (svc_ak_demo_…); exchange it through svc_spin_up for a machine key.',
    description: 'At most 10 per client address per hour.',
    input: z.strictObject({}),
    output: okWith({
      apiKey: z.string().describe('svc_ak_demo_…: exchange it for a machine with POST /api/machines'),
      expiresAt: z.string().describe('ISO 8601'),
      tokens: z.number().describe('compute tokens the demo key carries'),
    }),
    async handler(_input, ctx) {
      const now = ctx.app.clock.now();
      const out = await ctx.app.db.tx(async (q) => {
        await rateLimit(q, `demo-mint:${ctx.ip}`, 10, 3600);
        return mintDemoKey(q, ctx.app.config.demoTokens, now);
      });
      return { ok: true, ...out };
    },
  }),
  defineOp({
    id: 'machines.spin-up',
    tool: 'svc_spin_up',
    title: 'Create a machine',
    brief: 'Create a machine (needs a demo key): its ZID and a machine key svc_ak_… with daily compute tokens, shown once.',
    hints: CREATES,
    toolOutput: z.object({ zid: z.string(), apiKey: z.string(), keyPrefix: z.string(), recovery: z.object({ equation: z.string(), salt: z.string() }), tier: z.string() }),
    method: 'POST',
    path: '/api/machines',
    access: 'key',
    allowDemo: true,
    tag: 'machines',
    summary: 'Provision a machine: unique ZID, audit chain, and an active svc_ak_ compute key on the free tier (each shown once).',
    description: 'Needs a demo key as bearer (POST /api/demo-key/mint); a machine key cannot create machines (403). A demo key creates at most SVC_MACHINES_PER_DEMO_KEY machines (3 by default; then 429 QUOTA_EXCEEDED), and spin-ups are limited per client address. Returns zid, slug, displayName, apiKey, recovery {equation, salt} and tier.',
    input: z.strictObject({
      displayName: z.string().trim().min(1).max(80).regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters').default('mcp-agent'),
    }),
    output: okWith({
      zid: z.string().describe("the machine's id: Z and 26 Crockford base32 characters"),
      slug: z.string().describe('URL name (pages at /s/<slug>/)'),
      displayName: z.string(),
      apiKey: z.string().describe('the compute key (svc_ak_…); shown once: keep it'),
      keyPrefix: z.string().describe("the key's public prefix (named in receipts)"),
      recovery: z.object({
        equation: z.string().describe('a secret passphrase written as a small linear equation with its solution; with the salt it gets a new key (POST /api/machines/recover). Shown once; stored only as an scrypt hash'),
        salt: z.string(),
      }),
      tier: z.literal('free'),
    }),
    async handler(input, ctx) {
      const caller = ctx.caller!;
      // identities do not multiply (issue 19, docs/node.md): only a demo key makes machines, a
      // few each, and each address only so many an hour
      if (caller.kind !== 'demo') {
        throw new SvcError('FORBIDDEN', 'svc_spin_up takes a demo key (POST /api/demo-key/mint): a machine key cannot create machines');
      }
      const cfg = ctx.app.config;
      const now = ctx.app.clock.now();
      const m = await ctx.app.db.tx(async (q) => {
        // spin-ups of one demo key are serialised on its row, so a burst cannot pass the count together
        await q.query('SELECT key_hash FROM api_keys WHERE key_hash = $1 FOR UPDATE', [caller.keyHash]);
        const [{ n }] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM machines WHERE family = $1', [caller.keyHash]);
        if (Number(n) >= cfg.machinesPerDemoKey) {
          throw new SvcError('QUOTA_EXCEEDED', `this demo key has created its ${cfg.machinesPerDemoKey} machines; it creates no more`, {
            details: { machines: Number(n), limit: cfg.machinesPerDemoKey },
          });
        }
        await rateLimit(q, `spin-up-ip:${ctx.ip}`, cfg.spinUpsPerAddress, 3600);
        return createMachine(q, input.displayName, cfg.tokensPerDay, now, caller.keyHash);
      });
      return { ok: true, zid: m.zid, slug: m.slug, displayName: m.displayName, apiKey: m.apiKey, keyPrefix: m.keyPrefix, recovery: m.recovery, tier: m.tier };
    },
  }),
  defineOp({
    id: 'machines.recover',
    method: 'POST',
    path: '/api/machines/recover',
    access: 'public',
    tag: 'machines',
    summary: 'Recover a machine with its recovery equation and salt: every key is revoked and a new one returned; the recovery equation and salt stay valid.',
    input: z.strictObject({ zid: zidField, equation: z.string().min(1).max(512), salt: z.string().min(1).max(128) }),
    output: okWith({
      zid: z.string(),
      apiKey: z.string().describe('the new compute key; every older key is revoked'),
      keyPrefix: z.string(),
      recovery: z.literal('unchanged').describe('the recovery equation and salt are not rotated: they still recover this machine (keep them secret; docs/glossary.md)'),
    }),
    async handler(input, ctx) {
      checkZid(input.zid);
      // Failures are limited per (machine, address) and per address, never per machine alone:
      // nobody can lock an owner out of recovery by failing on purpose (issue 19). A success
      // counts nothing.
      const cfg = ctx.app.config;
      const pair = `recover-fail:${input.zid}:${ctx.ip}`;
      const addr = `recover-fail-ip:${ctx.ip}`;
      const out = await ctx.app.db.tx(async (q) => {
        await assertUnderLimit(q, pair, cfg.recoveryFailures, 900, `too many failed recovery attempts for this machine from this address: at most ${cfg.recoveryFailures} per 15 minutes`);
        await assertUnderLimit(q, addr, 4 * cfg.recoveryFailures, 900, `too many failed recovery attempts from this address: at most ${4 * cfg.recoveryFailures} per 15 minutes`);
        const r = await recoverMachine(q, input.zid, input.equation, input.salt, ctx.app.clock.now());
        if (!r) { await recordEvent(q, pair); await recordEvent(q, addr); }
        return r;
      });
      if (!out) throw new SvcError('UNAUTHORIZED', 'the recovery material does not match');
      ctx.app.keyCache.invalidateZid(input.zid);
      return { ok: true, zid: input.zid, apiKey: out.apiKey, keyPrefix: out.keyPrefix, recovery: 'unchanged' as const };
    },
  }),
  defineOp({
    id: 'machines.me',
    method: 'GET',
    path: '/api/machines/me',
    access: 'user',
    scope: 'machine:read',
    tag: 'machines',
    summary: "The caller's machine: ZID, slug, tier, state, tokens left today and chain head.",
    input: z.strictObject({}),
    output: okWith({
      zid: z.string(), slug: z.string(), displayName: z.string(), tier: z.string(), state: z.string(),
      keyPrefix: z.string(),
      mailbox: z.string(),
      tokens: z.object({ remaining: z.number(), perDay: z.number() }),
      chain: z.object({ seq: z.number().int(), head: z.string() }),
      createdAt: z.string(),
    }),
    async handler(_input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const [m] = await ctx.app.db.query<any>('SELECT zid, slug, display_name, tier, state, chain_seq, chain_head, created_at FROM machines WHERE zid = $1', [zid]);
      if (!m) throw new SvcError('NOT_FOUND', 'machine not found');
      const remaining = await tokensLeft(ctx.app.db, zid, ctx.app.config.tokensPerDay, ctx.app.clock.now());
      return {
        ok: true, zid: m.zid, slug: m.slug, displayName: m.display_name, tier: m.tier, state: m.state,
        keyPrefix: ctx.caller!.keyPrefix,
        mailbox: `${m.zid.toLowerCase()}@${ctx.app.config.mailDomain}`,
        tokens: { remaining, perDay: ctx.app.config.tokensPerDay },
        chain: { seq: Number(m.chain_seq), head: m.chain_head },
        createdAt: new Date(m.created_at).toISOString(),
      };
    },
  }),
];
