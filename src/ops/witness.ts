// Witnessing (issue 20; c2sp.org/tlog-witness; docs/verify.md). A node started with
// SVC_WITNESS_OF=<log URL> is a witness of that log: POST /add-checkpoint (the spec's status
// codes) and its cosigner key at /log/witness-key. A node with SVC_WITNESSES=<url,…> submits each
// new checkpoint to those witnesses and serves their cosignatures with its checkpoint.
// GET /log/witnesses reports both sides, with any evidence of a split view.
import { z } from 'zod';
import { defineOp, type App, type Operation, type RawReply } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { ed25519Raw, SIG_COSIGNATURE_V1, vkeyOf } from '../core/tlog.ts';
import { loadOrCreateKey, type DeploymentKey } from '../services/keys.ts';
import { addCheckpoint, pinnedLog, WitnessSubmitter } from '../services/witness.ts';

export async function operations(app: App): Promise<Operation[]> {
  const env = app.config.env ?? {};
  const witnessOf = (env.SVC_WITNESS_OF ?? '').trim().replace(/\/+$/, '');
  const witnesses = (env.SVC_WITNESSES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (witnesses.length) {
    const submitter = new WitnessSubmitter(app.db, witnesses);
    app.sealer.onCheckpoint.push(() => submitter.kick());
    app.onClose.push(() => submitter.close());
  }
  let me: { name: string; key: DeploymentKey } | null = null;
  if (witnessOf) {
    const name = `${new URL(app.config.baseUrl).host}/witness`;
    const key = await loadOrCreateKey(app.db, app.config.sealSecret, 'witness', (pub) => ({ vkey: vkeyOf(name, SIG_COSIGNATURE_V1, ed25519Raw(pub)) }));
    me = { name, key };
  }
  const notWitness = () => new SvcError('NOT_FOUND', 'this node is not a witness (start it with SVC_WITNESS_OF=<log URL>)');
  return [
    defineOp({
      id: 'witness.add-checkpoint',
      produces: ['text/plain'],
      method: 'POST',
      path: '/add-checkpoint',
      access: 'public',
      tag: 'log',
      textBody: true,
      bodyLimit: 64 * 1024,
      summary: 'Witness: cosign a checkpoint of the witnessed log given a consistency proof from the size last cosigned (c2sp.org/tlog-witness add-checkpoint; text/plain body; answers cosignature lines, or 400/403/404/409/422 as the spec says).',
      input: z.strictObject({ body: z.string().max(64 * 1024) }),
      async handler(input, ctx) {
        if (!me) throw notWitness();
        const log = await pinnedLog(ctx.app.db, witnessOf);
        const r = await addCheckpoint(ctx.app.db, me, log, input.body, ctx.app.clock.now());
        return { raw: true, status: r.status, headers: { 'content-type': r.contentType, 'cache-control': 'no-store' }, body: r.body } satisfies RawReply;
      },
    }),
    defineOp({
      id: 'witness.key',
      produces: ['text/plain'],
      method: 'GET',
      path: '/log/witness-key',
      access: 'public',
      tag: 'log',
      summary: "Witness: its cosigner key as a signed-note vkey (type 0x04, Ed25519 cosignature/v1, c2sp.org/tlog-cosignature).",
      input: z.strictObject({}),
      async handler(_i) {
        if (!me) throw notWitness();
        return { raw: true, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=300' }, body: `${me.key.publicJwk.vkey}\n` } satisfies RawReply;
      },
    }),
    defineOp({
      id: 'witness.status',
      method: 'GET',
      path: '/log/witnesses',
      access: 'public',
      tag: 'log',
      summary: "The witnesses this log submits to (size each cosigned, last error: a split view is reported here), and, on a witness, the log it witnesses and any evidence of a split view.",
      input: z.strictObject({}),
      output: z.object({
        ok: z.literal(true),
        witnesses: z.array(z.object({ url: z.string(), cosignedSize: z.number().int(), error: z.string().nullable(), updatedAt: z.string() })),
        witness: z.object({
          name: z.string(), of: z.string(),
          logs: z.array(z.object({ origin: z.string(), source: z.string(), cosignedSize: z.number().int(), updatedAt: z.string() })),
          evidence: z.array(z.object({ origin: z.string(), kind: z.string(), detail: z.unknown(), request: z.unknown(), at: z.string() })),
        }).optional().describe('on a witness: the log it witnesses and any evidence of a split view'),
      }),
      async handler(_i, ctx) {
        const log = await ctx.app.db.query<any>('SELECT witness, size, error, updated_at FROM log_witness_state ORDER BY witness');
        const witnessed = me ? await ctx.app.db.query<any>('SELECT origin, source, size, updated_at FROM witness_logs ORDER BY origin') : [];
        const evidence = me ? await ctx.app.db.query<any>('SELECT origin, kind, detail, body, created_at FROM witness_evidence ORDER BY id DESC LIMIT 50') : [];
        return {
          ok: true,
          witnesses: log.map((r) => ({ url: r.witness, cosignedSize: Number(r.size), error: r.error ?? null, updatedAt: new Date(r.updated_at).toISOString() })),
          ...(me ? {
            witness: {
              name: me.name, of: witnessOf,
              logs: witnessed.map((r) => ({ origin: r.origin, source: r.source, cosignedSize: Number(r.size), updatedAt: new Date(r.updated_at).toISOString() })),
              evidence: evidence.map((r) => ({ origin: r.origin, kind: r.kind, detail: r.detail, request: r.body, at: new Date(r.created_at).toISOString() })),
            },
          } : {}),
        };
      },
    }),
  ];
}
