// One verification (issue 29 item 3, issue 33 item 3; docs/verify.md, "One table of facts"):
// the checks `svc verify` runs on a saved sealed response, in the order and with the verdicts the
// Python verifier (clients/python/svc_client/verify.py) and the console's
// (src/console/static/verify.js) use too. Each check ends true (held), false (failed) or null (not
// run: not asked, or its prerequisite failed, or it could not run). The exit code:
//   1  some check failed (named in `failed`): a failed check is definitive, reachable node or not;
//   2  none failed, but one the caller asked for could not run (named in `couldNotRun`, with the
//      URL that could not be reached in `unreachable`);
//   0  every check asked for held.
// The checks:
//   strict       the text is I-JSON (RFC 7493: no duplicate names, no lone surrogates); the response
//                carries its signature (unless allowUnsigned), `signature` and `receipt.log` have
//                exactly their members, log positions and proof integers are written as integers;
//   digest       SHA-256 of the RFC 8785 body (without tokens, signature, receipt.log, .digest);
//   inclusion    the audit path from SHA-256(0x00 ‖ digest) at log.index reaches the root of the
//                receipt's checkpoint, whose size is log.treeSize (no key needed);
//   checkpoint   the checkpoint is a note signed by a log key (vkey, or a JWKS's log keys);
//   key          the response signature's kid is an Ed25519 key of the JWKS;
//   signature    the Ed25519 signature over the RFC 8785 JSON of the response without `signature`;
//   consistency  (url) the node's current checkpoint extends the receipt's;
//   hmac         (key) the node checks the svcProof.
import { parseIJson, IJsonError } from './core/ijson.ts';
import { leafHash, parseCheckpointText, parseNote, receiptDigest, verifyInclusion, verifyNote, type Checkpoint, type NoteVerifier } from './core/tlog.ts';
import { checkConsistencyWithNode, logVerifiersOf, vkeysFromText } from './verify.ts';
import { verifyReceiptSignature } from './services/receipt.ts';

export const CHECKS = ['strict', 'digest', 'inclusion', 'checkpoint', 'key', 'signature', 'consistency', 'hmac'] as const;
export type CheckName = typeof CHECKS[number];

export const SIGNATURE_MEMBERS = ['v', 'alg', 'kid', 'sig'];
export const LOG_MEMBERS = ['index', 'treeSize', 'inclusionProof', 'checkpoint'];
/** Members that are integers wherever they appear: log positions and the proof's time step. */
export const INTEGER_PATHS = ['receipt.log.index', 'receipt.log.treeSize', 'receipt.version', 'receipt.chain.seq', 'svcState.svcond', 'signature.v'];

export interface VerifyOptions {
  /** a JWKS (the node's saved key set): log keys and signing keys */
  jwks?: any;
  /** signed-note verifier keys of the log (log checks only: no key set for the signature) */
  vkeys?: NoteVerifier[];
  /** the node: its JWKS when no keys are given, and the consistency of its log */
  url?: string;
  /** a machine key: the node checks the HMAC proof (at url) */
  key?: string;
  /** where the node is for the HMAC check when url is not given */
  hmacUrl?: string;
  allowUnsigned?: boolean;
  fetch?: typeof fetch;
}

export interface VerifyReport {
  valid: boolean;
  exit: 0 | 1 | 2;
  receipt: string | null;
  checks: Record<CheckName, boolean | null>;
  failed: CheckName[];
  couldNotRun: CheckName[];
  unreachable: string | null;
  unsigned?: string;
  reason?: string;
  /** details for the CLI's output */
  index: number | null;
  treeSize: number | null;
  origin: string | null;
  keySource: string | null;
  currentSize: number | null;
  parsedCheckpoint: Checkpoint | null;
  parsed: any;
}

const plain = (x: unknown): x is Record<string, any> => !!x && typeof x === 'object' && !Array.isArray(x);
const get = (x: any, path: string) => path.split('.').reduce((o, k) => (plain(o) ? o[k] : undefined), x);

/** The strict reading of a saved sealed response: the receipt, or the reason it is refused. */
export function readReceiptStrict(text: string, allowUnsigned = false): { receipt: any } | { error: string } {
  let r: ReturnType<typeof parseIJson>;
  try { r = parseIJson(text); } catch (e) {
    return { error: e instanceof IJsonError && /RFC 7493/.test(e.message) ? `not I-JSON: ${e.message}` : `not JSON: ${(e as Error).message}` };
  }
  const x: any = r.value;
  if (!plain(x)) return { error: 'not a sealed response: expected a JSON object' };
  const absent = [typeof x.svcProof !== 'string' && 'svcProof', !plain(x.svcState) && 'svcState', !plain(x.receipt) && 'receipt'].filter(Boolean);
  if (absent.length) return { error: `not a sealed response: missing ${absent.join(', ')}` };
  if (x.signature === undefined) {
    if (!allowUnsigned) return { error: 'the response carries no signature (a sealed response is signed; a missing signature was removed): pass --allow-unsigned to check the rest' };
  } else {
    if (!plain(x.signature)) return { error: 'signature is not an object' };
    const extra = Object.keys(x.signature).filter((k) => !SIGNATURE_MEMBERS.includes(k));
    if (extra.length) return { error: `unknown member ${JSON.stringify(extra[0])} in signature (it has ${SIGNATURE_MEMBERS.join(', ')})` };
    const missing = SIGNATURE_MEMBERS.filter((k) => !(k in x.signature));
    if (missing.length) return { error: `signature has no ${missing[0]}` };
    if (x.signature.v !== 3 || x.signature.alg !== 'EdDSA' || typeof x.signature.kid !== 'string' || typeof x.signature.sig !== 'string') return { error: 'signature is not a v3 EdDSA signature' };
  }
  const log = x.receipt.log;
  if (!plain(log)) return { error: 'the receipt has no log entry (receipt.log)' };
  const extra = Object.keys(log).filter((k) => !LOG_MEMBERS.includes(k));
  if (extra.length) return { error: `unknown member ${JSON.stringify(extra[0])} in receipt.log (it has ${LOG_MEMBERS.join(', ')})` };
  const missing = LOG_MEMBERS.filter((k) => !(k in log));
  if (missing.length) return { error: `receipt.log has no ${missing[0]}` };
  for (const p of INTEGER_PATHS) {
    const v = get(x, p);
    if (v === undefined) continue;
    if (typeof v !== 'number' || r.nonIntegerLiterals.has(p) || !Number.isSafeInteger(v) || v < 0) return { error: `${p} is not written as a non-negative integer` };
  }
  if (!Array.isArray(log.inclusionProof) || log.inclusionProof.some((h: unknown) => typeof h !== 'string')) return { error: 'receipt.log.inclusionProof is not an array of strings' };
  if (typeof log.checkpoint !== 'string') return { error: 'receipt.log.checkpoint is not a string' };
  if (typeof x.receipt.digest !== 'string') return { error: 'receipt.digest is not a string' };
  return { receipt: x };
}

/** A network failure (the node or key set could not be reached), as opposed to an answer. */
class Unreachable extends Error {
  readonly url: string;
  constructor(url: string, why: string) { super(`${url} could not be reached (${why})`); this.url = url; }
}

async function getJson(f: typeof fetch, url: string): Promise<any> {
  let res: Response;
  try { res = await f(url); } catch (e: any) { throw new Unreachable(url, e?.cause?.code ?? e?.message ?? String(e)); }
  if (!res.ok) throw new Unreachable(url, `HTTP ${res.status}`);
  try { return await res.json(); } catch { throw new Unreachable(url, 'not JSON'); }
}

export async function verifySaved(text: string, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const f = opts.fetch ?? fetch;
  const checks = Object.fromEntries(CHECKS.map((c) => [c, null])) as Record<CheckName, boolean | null>;
  const reasons: string[] = [];
  const couldNotRun: CheckName[] = [];
  let unreachable: string | null = null;
  const out = (extra: Partial<VerifyReport> = {}): VerifyReport => {
    const failed = CHECKS.filter((c) => checks[c] === false);
    const exit = failed.length ? 1 : couldNotRun.length ? 2 : 0;
    return {
      valid: exit === 0, exit, receipt: null, checks, failed, couldNotRun, unreachable,
      index: null, treeSize: null, origin: null, keySource: null, currentSize: null, parsedCheckpoint: null, parsed: null,
      ...extra, ...(reasons.length ? { reason: reasons.join('; ') } : {}),
    };
  };
  const unreach = (c: CheckName[], e: Unreachable) => { couldNotRun.push(...c); unreachable ??= e.url; reasons.push(`${c.join(', ')}: could not run: ${e.message}`); };

  const read = readReceiptStrict(text, opts.allowUnsigned);
  if ('error' in read) { checks.strict = false; reasons.push(`strict: ${read.error}`); return out(); }
  checks.strict = true;
  const r = read.receipt;
  const log = r.receipt.log;
  const base: Partial<VerifyReport> = { receipt: typeof r.receipt.id === 'string' ? r.receipt.id : null, index: log.index, treeSize: log.treeSize, parsed: r };
  if (r.signature === undefined) base.unsigned = 'allowed by --allow-unsigned: the response signature was not checked (tokens are covered by nothing else)';

  // digest and inclusion: no key needed
  const digest = receiptDigest(r);
  checks.digest = digest.toString('hex') === r.receipt.digest;
  if (!checks.digest) reasons.push('digest: the receipt\'s canonical body does not hash to receipt.digest');
  const note = parseNote(log.checkpoint);
  const stated = note ? parseCheckpointText(note.text) : null;
  const proof = log.inclusionProof.map((h: string) => Buffer.from(h, 'base64'));
  checks.inclusion = !!stated && stated.size === log.treeSize && verifyInclusion(leafHash(digest), log.index, log.treeSize, proof, stated.root);
  if (!stated) reasons.push('inclusion: the checkpoint is malformed');
  else if (stated.size !== log.treeSize) reasons.push(`inclusion: the checkpoint's size ${stated.size} is not receipt.log.treeSize ${log.treeSize}`);
  else if (!checks.inclusion) reasons.push('inclusion: the inclusion proof does not lead from the receipt\'s leaf to the checkpoint root');
  if (stated) base.origin = stated.origin;

  // the keys: given, or the node's, or the issuer's
  let jwks = opts.jwks ?? null;
  let verifiers: NoteVerifier[] = opts.vkeys ?? [];
  if (opts.vkeys) base.keySource = 'vkey';
  else if (jwks) base.keySource = 'jwks';
  else {
    const from = opts.url ? new URL('/.well-known/jwks.json', opts.url).href : typeof r.receipt.jwks_uri === 'string' ? r.receipt.jwks_uri : '';
    base.keySource = from || null;
    if (!from) { couldNotRun.push('checkpoint', 'key', 'signature'); reasons.push('no key given and the receipt names no jwks_uri: give --jwks, --vkey or --url'); }
    else {
      try { jwks = await getJson(f, from); } catch (e) {
        if (!(e instanceof Unreachable)) throw e;
        unreach(r.signature === undefined ? ['checkpoint'] : ['checkpoint', 'key', 'signature'], e);
      }
    }
  }
  if (jwks && !opts.vkeys) verifiers = logVerifiersOf(jwks);

  if (verifiers.length || jwks) {
    const v = verifyNote(log.checkpoint, verifiers);
    checks.checkpoint = v.ok;
    if (!v.ok) reasons.push(`checkpoint: ${v.reason}`);
    else base.parsedCheckpoint = parseCheckpointText(v.text);
  }
  if (jwks && r.signature !== undefined) {
    const k = (jwks.keys ?? []).find((j: any) => j?.kid === r.signature.kid && j?.kty === 'OKP' && j?.crv === 'Ed25519');
    checks.key = !!k;
    if (!k) reasons.push(`key: the response is signed with key ${r.signature.kid}, which is not an Ed25519 key of the key set`);
    else {
      const s = verifyReceiptSignature(r, jwks);
      checks.signature = s.valid;
      if (!s.valid) reasons.push(`signature: ${s.reason}`);
    }
  }

  if (opts.url && base.parsedCheckpoint && checks.checkpoint) {
    try {
      const c = await checkConsistencyWithNode(opts.url, base.parsedCheckpoint, verifiers, (async (u: any, init?: any) => {
        try { return await f(u, init); } catch (e: any) { throw new Unreachable(String(u), e?.cause?.code ?? e?.message ?? String(e)); }
      }) as typeof fetch);
      checks.consistency = c.ok;
      base.currentSize = c.currentSize;
      if (!c.ok) reasons.push(`consistency: ${c.reason}`);
    } catch (e) {
      if (!(e instanceof Unreachable)) throw e;
      unreach(['consistency'], e);
    }
  } else if (opts.url && couldNotRun.includes('checkpoint')) couldNotRun.push('consistency');

  if (opts.key) {
    const nodeUrl = opts.url ?? opts.hmacUrl ?? 'http://127.0.0.1:8787';
    const at = new URL('/api/svc/verify', nodeUrl).href;
    const version = r.receipt.version ?? (typeof r.value === 'number' ? 2 : 1);
    const args: Record<string, unknown> = {
      proof: r.svcProof, operatorIds: r.svcState.operators, R_t: r.svcState.masterSum, svcond: r.svcState.svcond ?? r.svcState.zeqond, keyPrefix: r.keyPrefix,
    };
    if (version >= 2) { args.value = r.value; args.unit = r.unit ?? ''; }
    let res: Response | null = null;
    try {
      res = await f(at, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.key}` }, body: JSON.stringify(args) });
    } catch (e: any) { unreach(['hmac'], new Unreachable(at, e?.cause?.code ?? e?.message ?? String(e))); }
    if (res) {
      const body: any = await res.json().catch(() => ({}));
      if (res.ok) { checks.hmac = body.valid === true; if (!checks.hmac) reasons.push('hmac: the seal proof does not match the signed fields (svcProof)'); }
      else if (res.status === 400 || res.status === 422) { checks.hmac = false; reasons.push(`hmac: the node refused the proof's fields: ${body.code ?? ''} ${body.error ?? ''}`.trim()); }
      else { couldNotRun.push('hmac'); reasons.push(`hmac: could not run: ${at} answered HTTP ${res.status} ${body.code ?? ''}`.trim()); }
    }
  }
  return out(base);
}

export { vkeysFromText };
