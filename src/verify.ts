// Verifying a sealed receipt without trusting the node (issue 20; docs/verify.md), for `svc verify`:
//
//   offline   the receipt's digest (SHA-256 of its RFC 8785 canonical sealed body) equals
//             receipt.digest; the inclusion proof leads from that leaf to the root of the
//             checkpoint in receipt.log; the checkpoint is signed by the log's note key (from
//             --vkey, a saved JWKS, or the issuer's JWKS); a v3 Ed25519 signature, if present,
//             verifies against the JWKS.
//   --url     the node's current checkpoint (signed by the same key) is consistent with the
//             receipt's: an RFC 6962 consistency proof from the receipt's tree size verifies; a
//             smaller current tree, or the same size with another root, is a split view.
//   --replay  the solver runs again here, from the receipt's input and seed at the sealed instant;
//             value and result must be bit-identical.
import { canonicalJson } from './core/canonical.ts';
import {
  leafHash, parseCheckpointText, parseNote, parseVkey, receiptDigest, verifyConsistency, verifyInclusion, verifyNote,
  type Checkpoint, type NoteVerifier,
} from './core/tlog.ts';

export interface JwkLike { kid?: string; kty?: string; crv?: string; x?: string; vkey?: string; purpose?: string; retired?: boolean }

/** The log's note verifier keys in a JWKS (members `vkey` of the log keys, current and retired). */
export function logVerifiersOf(jwks: { keys?: JwkLike[] }): NoteVerifier[] {
  const out: NoteVerifier[] = [];
  for (const k of jwks?.keys ?? []) {
    if (typeof k.vkey !== 'string' || (k.purpose && k.purpose !== 'log')) continue;
    const v = parseVkey(k.vkey);
    if (v) out.push(v);
  }
  return out;
}

export interface LogCheck {
  ok: boolean;
  digest: boolean;
  inclusion: boolean;
  checkpoint: boolean;
  index: number | null;
  treeSize: number | null;
  origin: string | null;
  reason?: string;
  /** the receipt's checkpoint (parsed), when its signature verified */
  parsed?: Checkpoint;
}

/** The offline log checks of a receipt against trusted log keys. */
export function verifyReceiptLog(receipt: any, verifiers: NoteVerifier[]): LogCheck {
  const out: LogCheck = { ok: false, digest: false, inclusion: false, checkpoint: false, index: null, treeSize: null, origin: null };
  const log = receipt?.receipt?.log;
  if (!log || typeof log !== 'object') return { ...out, reason: 'the receipt has no log entry (receipt.log)' };
  out.index = Number.isSafeInteger(log.index) ? log.index : null;
  out.treeSize = Number.isSafeInteger(log.treeSize) ? log.treeSize : null;
  let digest: Buffer;
  try { digest = receiptDigest(receipt); } catch { return { ...out, reason: 'the receipt is not canonicalisable JSON' }; }
  out.digest = typeof receipt.receipt.digest === 'string' && digest.toString('hex') === receipt.receipt.digest;
  const reasons: string[] = [];
  if (!out.digest) reasons.push('the receipt\'s canonical body does not hash to receipt.digest');
  const note = typeof log.checkpoint === 'string' ? verifyNote(log.checkpoint, verifiers) : { ok: false as const, reason: 'no checkpoint' };
  let cp: Checkpoint | null = null;
  if (note.ok) cp = parseCheckpointText(note.text);
  out.checkpoint = !!cp && cp.size === out.treeSize;
  if (!note.ok) reasons.push(`checkpoint: ${note.reason}`);
  else if (!cp) reasons.push('checkpoint: malformed checkpoint text');
  else if (cp.size !== out.treeSize) reasons.push(`checkpoint: its size ${cp.size} is not receipt.log.treeSize ${out.treeSize}`);
  if (cp) { out.origin = cp.origin; out.parsed = cp; }
  const proof = Array.isArray(log.inclusionProof) ? log.inclusionProof.map((h: unknown) => (typeof h === 'string' ? Buffer.from(h, 'base64') : Buffer.alloc(0))) : [];
  out.inclusion = !!cp && out.index !== null && verifyInclusion(leafHash(digest), out.index, cp.size, proof, cp.root);
  if (cp && !out.inclusion) reasons.push('the inclusion proof does not lead from the receipt\'s leaf to the checkpoint root');
  out.ok = out.digest && out.checkpoint && out.inclusion;
  return reasons.length ? { ...out, reason: reasons.join('; ') } : out;
}

export interface ConsistencyCheck { ok: boolean; currentSize: number | null; splitView: boolean; reason?: string }

/** Checks that the node's current checkpoint is signed by the log key and consistent with the
 * receipt's (an RFC 6962 consistency proof from the node). */
export async function checkConsistencyWithNode(url: string, receiptCp: Checkpoint, verifiers: NoteVerifier[], fetchFn: typeof fetch = fetch): Promise<ConsistencyCheck> {
  const res = await fetchFn(new URL('/log/checkpoint', url));
  if (!res.ok) return { ok: false, currentSize: null, splitView: false, reason: `GET /log/checkpoint: HTTP ${res.status}` };
  const note = verifyNote(await res.text(), verifiers);
  if (!note.ok) return { ok: false, currentSize: null, splitView: false, reason: `the node's checkpoint: ${note.reason}` };
  const cur = parseCheckpointText(note.text);
  if (!cur) return { ok: false, currentSize: null, splitView: false, reason: 'the node\'s checkpoint is malformed' };
  if (cur.origin !== receiptCp.origin) return { ok: false, currentSize: cur.size, splitView: false, reason: `the node's log is ${cur.origin}, the receipt's ${receiptCp.origin}` };
  if (cur.size < receiptCp.size) return { ok: false, currentSize: cur.size, splitView: true, reason: `split view: the node's tree (${cur.size}) is smaller than the receipt's (${receiptCp.size})` };
  if (cur.size === receiptCp.size) {
    const same = cur.root.equals(receiptCp.root);
    return same ? { ok: true, currentSize: cur.size, splitView: false } : { ok: false, currentSize: cur.size, splitView: true, reason: 'split view: two checkpoints of one size with different roots' };
  }
  const p = await fetchFn(new URL(`/log/consistency?old=${receiptCp.size}&new=${cur.size}`, url));
  if (!p.ok) return { ok: false, currentSize: cur.size, splitView: false, reason: `GET /log/consistency: HTTP ${p.status}` };
  const body: any = await p.json().catch(() => null);
  const proof = Array.isArray(body?.proof) ? body.proof.map((h: string) => Buffer.from(String(h), 'base64')) : [];
  const ok = verifyConsistency(receiptCp.size, cur.size, proof, receiptCp.root, cur.root);
  return ok ? { ok, currentSize: cur.size, splitView: false } : { ok, currentSize: cur.size, splitView: true, reason: `split view: the node's checkpoint (${cur.size}) is not consistent with the receipt's (${receiptCp.size})` };
}

/** Result keys a node adds besides the solver's own (svc_auto's dispatch record): not replayed. */
const NOT_REPLAYED = ['dispatch'];
/** Timings are measurements of one run, not results (sat's result.stats.solveMs, wallMs, parseMs,
 * proofMs, checkMs): a replay cannot and need not reproduce them. */
const TIMINGS = ['solveMs', 'wallMs', 'parseMs', 'proofMs', 'checkMs'];

/** Runs the receipt's solver again from its input and seed at its sealed instant; value and result
 * must be bit-identical (canonical JSON equal, value compared with Object.is). */
/** A reader of blobs (docs/jobs.md "Blobs") for a replay: an original given with --input NAME=FILE
 * for a blob input, else the node's copy (GET /api/blobs/{digest} at `url`, with the owner's
 * `key`); either way the bytes must hash to the digest. */
function blobReader(receipt: any, opts: { inputs?: Record<string, string>; url?: string; key?: string }, fetchFn: typeof fetch): (digest: string) => Promise<Uint8Array> {
  return async (digest) => {
    const { createHash } = await import('node:crypto');
    const field = Object.entries<any>(receipt.input ?? {}).find(([, v]) => v && typeof v === 'object' && v.blob === digest)?.[0];
    let bytes: Uint8Array;
    if (field !== undefined && opts.inputs?.[field] !== undefined) bytes = Buffer.from(opts.inputs[field], 'utf8');
    else {
      if (!opts.url) throw new Error(`${field ? `input ${field}` : 'the result'} is kept in the blob ${digest}: give --url (and --key) to fetch it${field ? `, or --input ${field}=<file>` : ''}`);
      const res = await fetchFn(new URL(`/api/blobs/${digest}`, opts.url), { headers: opts.key ? { authorization: `Bearer ${opts.key}` } : {} });
      if (!res.ok) throw new Error(`GET /api/blobs/${digest}: HTTP ${res.status} (a blob is read with its owner's key)`);
      bytes = new Uint8Array(await res.arrayBuffer());
    }
    if (`sha256:${createHash('sha256').update(bytes).digest('hex')}` !== digest) throw new Error(`the bytes of ${digest} do not hash to its name`);
    return bytes;
  };
}

export async function replayReceipt(receipt: any, opts: { inputs?: Record<string, string>; url?: string; key?: string; fetch?: typeof fetch } = {}): Promise<{ ok: boolean; reason?: string }> {
  const { loadSolvers } = await import('./solvers/engine/loader.ts');
  const { runUnsealed } = await import('./ops/solvers.ts');
  const solvers = await loadSolvers();
  const ls = solvers.find((s) => s.descriptor.name === receipt?.solver);
  if (!ls) return { ok: false, reason: `no solver named ${JSON.stringify(receipt?.solver)}: only solver receipts can be replayed` };
  if (!receipt.input || typeof receipt.input !== 'object') return { ok: false, reason: 'the receipt carries no input' };
  const body: Record<string, unknown> = { ...receipt.input };
  // an input larger than 64 KiB is sealed by its digest (src/ops/solvers.ts): the original comes
  // from the caller (svc verify --input name=path) and must hash to the sealed digest
  const { createHash } = await import('node:crypto');
  const readBlob = blobReader(receipt, opts, opts.fetch ?? fetch);
  for (const [k, v] of Object.entries(body)) {
    // an input given as a blob is sealed as {blob, bytes}: replayed as the same reference
    if (v && typeof v === 'object' && typeof (v as any).blob === 'string' && Object.keys(v).length === 2 && typeof (v as any).bytes === 'number') { body[k] = { blob: (v as any).blob }; continue; }
    if (!v || typeof v !== 'object' || typeof (v as any).sha256 !== 'string' || typeof (v as any).sealedBy !== 'string') continue;
    const given = opts.inputs?.[k];
    if (given === undefined) return { ok: false, reason: `input ${k} is sealed by its SHA-256 (${(v as any).bytes} bytes); pass the original with --input ${k}=<file>` };
    const isText = (v as any).sealedBy === 'sha256 of the text';
    const value: unknown = isText ? given : JSON.parse(given);
    const text = isText ? given : canonicalJson(value);
    if (createHash('sha256').update(text).digest('hex') !== (v as any).sha256) return { ok: false, reason: `the ${k} given does not hash to the receipt's sealed digest` };
    body[k] = value;
  }
  if (receipt.acceptOutOfBound === true) body.acceptOutOfBound = true;
  let out: Record<string, any>;
  try {
    out = await runUnsealed(ls.descriptor.name, body, { now: receipt.t, readBlob });
  } catch (e: any) {
    return { ok: false, reason: `the replay was refused: ${e?.code ?? 'ERROR'} ${e?.message ?? e}` };
  }
  // a result too large to be sealed inline keeps its large part in a blob: compared whole
  let sealedResult = receipt.result;
  const held = receipt.result?.blob;
  if (held && typeof held === 'object' && typeof held.blob === 'string') {
    const { joinLargeResult } = await import('./ops/files.ts');
    try {
      sealedResult = joinLargeResult(receipt.result, Buffer.from(await readBlob(held.blob)).toString('utf8')).result;
    } catch (e: any) {
      return { ok: false, reason: `the result's blob: ${e?.message ?? e}` };
    }
  }
  if (out.seed !== receipt.seed) return { ok: false, reason: `seed ${out.seed} differs from the receipt's ${receipt.seed}` };
  if (!Object.is(out.value, receipt.value)) return { ok: false, reason: `value ${out.value} differs from the receipt's ${receipt.value}` };
  const strip = (r: any) => (r && typeof r === 'object' ? Object.fromEntries(Object.entries(r).filter(([k]) => !NOT_REPLAYED.includes(k)).map(([k, v]) => [k,
    k === 'stats' && v && typeof v === 'object' ? Object.fromEntries(Object.entries(v as object).filter(([sk]) => !TIMINGS.includes(sk))) : v])) : r);
  if (canonicalJson(strip(out.result)) !== canonicalJson(strip(sealedResult))) return { ok: false, reason: 'result differs from the receipt\'s' };
  return { ok: true };
}

/** The log keys named by a vkey argument: the vkey itself, or a file of vkeys (one per line). */
export function vkeysFromText(text: string): NoteVerifier[] {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => parseVkey(l)).filter((v): v is NoteVerifier => !!v);
}

export { parseNote };
