// The deployment's transparency log over HTTP (issue 20; docs/verify.md): C2SP tlog-tiles
// (checkpoint, tiles, entry bundles), the log's note key, consistency proofs, and each owner's
// offline proof of a receipt (c2sp.org/tlog-proof@v1). The log resources are public and keyless;
// immutable ones (full and partial tiles, proofs between fixed sizes) are cached for a year, the
// checkpoint for two seconds.
import { z } from 'zod';
import { defineOp, type Operation, type RawReply } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { formatTlogProof, parseTilePath, TILE_WIDTH } from '../core/tlog.ts';
import { assertSizes, checkpointAt, consistencyProof, cosignaturesOf, currentCheckpoint, inclusionProof, logState, readTile } from '../services/tlog.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { bundleOf, PREDICATE_TYPE } from '../services/attest.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const text = (body: string, cache: string, status = 200): RawReply => ({ raw: true, status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': cache }, body });
const size = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const receiptId = z.string().regex(/^rcpt_[0-9A-Z]{26}$/, 'a receipt id is rcpt_ followed by 26 characters');

/** The caller's receipt and its log entry; NOT_FOUND for another machine's or an unlogged one. */
async function ownedLogEntry(ctx: Parameters<Operation['handler']>[1], id: string): Promise<{ receipt: any; index: number }> {
  const { zid } = assertMachineCaller(ctx.caller);
  const rows = await ctx.app.db.query<{ body: string }>('SELECT body FROM receipts WHERE id = $1 AND zid = $2', [id, zid]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'receipt not found');
  const receipt = JSON.parse(rows[0].body);
  const index = receipt?.receipt?.log?.index;
  if (typeof index !== 'number') throw new SvcError('NOT_FOUND', 'this receipt was sealed before the log existed: it has no log entry');
  return { receipt, index };
}

export const operations: Operation[] = [
  defineOp({
    id: 'log.checkpoint',
    produces: ['text/plain'],
    method: 'GET',
    path: '/log/checkpoint',
    access: 'public',
    tag: 'log',
    summary: "The log's latest checkpoint (c2sp.org/tlog-checkpoint, a signed note: origin, tree size, root hash), with the witnesses' cosignatures it collected.",
    input: z.strictObject({}),
    async handler(_i, ctx) {
      return text((await currentCheckpoint(ctx.app.db)).note, 'public, max-age=2');
    },
  }),
  defineOp({
    id: 'log.key',
    produces: ['text/plain'],
    method: 'GET',
    path: '/log/key',
    access: 'public',
    tag: 'log',
    summary: "The log's note verifier key (c2sp.org/signed-note vkey: <origin>+<key id>+<base64 key>). Retired log keys are in the JWKS, marked retired.",
    input: z.strictObject({}),
    async handler(_i, ctx) {
      return text(`${ctx.app.logKey.publicJwk.vkey}\n`, 'public, max-age=300');
    },
  }),
  defineOp({
    id: 'log.tile',
    produces: ['application/octet-stream'],
    method: 'GET',
    path: '/log/tile/*',
    access: 'public',
    tag: 'log',
    summary: 'A tile of the log (c2sp.org/tlog-tiles): /log/tile/<L>/<N>[.p/<W>] (hashes, 32 bytes each) or /log/tile/entries/<N>[.p/<W>] (entry bundle: uint16 length-prefixed receipt digests).',
    input: z.strictObject({ '*': z.string().max(200).describe('<L>/<N>[.p/<W>] or entries/<N>[.p/<W>]') }),
    async handler(input, ctx) {
      const t = parseTilePath(input['*']);
      if (!t) throw new SvcError('NOT_FOUND', `no tile ${input['*']}: a tile path is <L>/<N>[.p/<W>] or entries/<N>[.p/<W>] with N in 3-digit x-prefixed elements (c2sp.org/tlog-tiles)`);
      const body = await readTile(ctx.app.db, t.level, t.index, t.width);
      if (!body) throw new SvcError('NOT_FOUND', `tile ${input['*']} does not exist (yet)`);
      return { raw: true, headers: { 'content-type': 'application/octet-stream', 'cache-control': IMMUTABLE }, body } satisfies RawReply;
    },
  }),
  defineOp({
    id: 'log.consistency',
    method: 'GET',
    path: '/log/consistency',
    access: 'public',
    tag: 'log',
    summary: 'A consistency proof between two tree sizes of the log (RFC 6962 §2.1.2): {oldSize, newSize, proof} with base64 hashes.',
    input: z.strictObject({ old: size.describe('the smaller tree size'), new: size.describe('the larger tree size (at most the current size)') }),
    output: z.object({ oldSize: z.number().int(), newSize: z.number().int(), proof: z.array(z.string()).describe('base64 SHA-256 hashes, RFC 6962 §2.1.2 order') }),
    async handler(input, ctx) {
      const st = await logState(ctx.app.db);
      assertSizes(input.old, input.new, st.size);
      const proof = await consistencyProof(ctx.app.db, input.old, input.new);
      return {
        raw: true, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': IMMUTABLE },
        body: JSON.stringify({ oldSize: input.old, newSize: input.new, proof: proof.map((h) => h.toString('base64')) }),
      } satisfies RawReply;
    },
  }),
  defineOp({
    id: 'log.checkpoint-at',
    produces: ['text/plain'],
    method: 'GET',
    path: '/log/checkpoints/:size',
    access: 'public',
    tag: 'log',
    summary: 'The checkpoint the log signed for a tree size (one per seal batch), with its cosignatures.',
    input: z.strictObject({ size: z.string().regex(/^(0|[1-9][0-9]{0,15})$/, 'a tree size') }),
    async handler(input, ctx) {
      const note = await checkpointAt(ctx.app.db, Number(input.size));
      if (!note) throw new SvcError('NOT_FOUND', `the log signed no checkpoint of size ${input.size}`);
      return text(note, 'public, max-age=60');
    },
  }),
  defineOp({
    id: 'receipts.proof',
    produces: ['text/plain'],
    method: 'GET',
    path: '/api/receipts/:id/proof',
    access: 'user',
    scope: 'machine:read',
    tag: 'log',
    summary: "An offline proof that one of the caller's receipts is in the log (c2sp.org/tlog-proof@v1): its index, the inclusion proof and the latest checkpoint with its cosignatures. The leaf is SHA-256 of the receipt's canonical sealed body (receipt.digest).",
    input: z.strictObject({ id: receiptId }),
    async handler(input, ctx) {
      const { index } = await ownedLogEntry(ctx, input.id);
      // the newest checkpoint witnesses cosigned that covers the receipt, else the latest
      const [cosigned] = await ctx.app.db.query<{ size: number | string }>('SELECT max(size) AS size FROM log_cosignatures WHERE size > $1', [index]);
      const st = await logState(ctx.app.db);
      const size = cosigned?.size != null ? Number(cosigned.size) : st.size;
      const note = size === st.size ? st.checkpoint + await cosignaturesOf(ctx.app.db, size) : await checkpointAt(ctx.app.db, size);
      const proof = await inclusionProof(ctx.app.db, index, size);
      return text(formatTlogProof(index, proof, note!), 'private, no-store');
    },
  }),
  defineOp({
    id: 'receipts.attestation',
    method: 'GET',
    path: '/api/receipts/:id/attestation',
    access: 'user',
    scope: 'machine:read',
    tag: 'log',
    summary: `One of the caller's receipts as a Sigstore bundle v0.3: a DSSE envelope around an in-toto Statement v1 (subject: the receipt digest; predicateType ${PREDICATE_TYPE}: solver, method, inputs, seed, value, unit, precision, log index), signed with the node's ECDSA P-256 key from the JWKS (keyed verification: no transparency-log entry, no timestamp).`,
    input: z.strictObject({ id: receiptId }),
    output: z.looseObject({
      mediaType: z.string().describe('application/vnd.dev.sigstore.bundle.v0.3+json'),
      verificationMaterial: z.record(z.string(), z.unknown()),
      dsseEnvelope: z.looseObject({ payload: z.string().describe('base64 in-toto Statement v1'), payloadType: z.string(), signatures: z.array(z.looseObject({ sig: z.string(), keyid: z.string().optional() })) }),
    }).describe('a Sigstore bundle v0.3'),
    async handler(input, ctx) {
      const { receipt } = await ownedLogEntry(ctx, input.id);
      return {
        raw: true, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, no-store' },
        body: JSON.stringify(bundleOf(receipt, ctx.app.attestKey)),
      } satisfies RawReply;
    },
  }),
];

export { ownedLogEntry, TILE_WIDTH };
