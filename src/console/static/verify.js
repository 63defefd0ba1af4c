// Receipt verification, the pure parts (unit-tested in Node against the node's own code):
//  - the HMAC proof request for POST /api/svc/verify, read from a sealed response (v2 signs
//    value and unit too; v1 does not);
//  - the Ed25519 signature of a v3 receipt: RFC 8785 canonical JSON of the response without
//    `signature`, checked with WebCrypto against a key of the node's JWKS.

import { parseIJson, IJsonError } from './ijson.js';

/** RFC 8785 (JCS): keys sorted by UTF-16 code units, ECMAScript number form, no whitespace. */
export function canonicalJson(value) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']';
  if (typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(value[k])).join(',') + '}';
  }
  throw new TypeError(`unsupported type ${typeof value}`);
}

/** Parses pasted text; returns {receipt} or {error}. */
export function parseSealed(text) {
  const t = String(text ?? '').trim();
  if (!t) return { error: 'nothing to verify: paste a sealed response or drop its file' };
  let x;
  try { x = JSON.parse(t); } catch (e) { return { error: `not JSON: ${e.message}` }; }
  if (!x || typeof x !== 'object' || Array.isArray(x)) return { error: 'not a sealed response: expected a JSON object' };
  return { receipt: x };
}

/** The body of POST /api/svc/verify for a sealed response, or {error} naming what is missing. */
export function proofRequestOf(r) {
  const missing = [];
  if (typeof r.svcProof !== 'string') missing.push('svcProof');
  const st = r.svcState;
  if (!st || typeof st !== 'object') missing.push('svcState');
  else {
    if (!Array.isArray(st.operators) || !st.operators.length) missing.push('svcState.operators');
    if (typeof st.masterSum !== 'number') missing.push('svcState.masterSum');
    if (!Number.isInteger(st.svcond ?? st.zeqond)) missing.push('svcState.svcond');
  }
  if (typeof r.keyPrefix !== 'string') missing.push('keyPrefix');
  if (missing.length) return { error: `not a sealed response: missing ${missing.join(', ')}` };
  const declared = r.receipt?.version;
  const version = declared === 1 || declared === 2 ? declared : (typeof r.value === 'number' ? 2 : 1);
  const request = {
    proof: r.svcProof,
    operatorIds: st.operators,
    R_t: st.masterSum,
    svcond: st.svcond ?? st.zeqond,
    keyPrefix: r.keyPrefix,
  };
  if (version === 2) {
    if (typeof r.value !== 'number' || !Number.isFinite(r.value)) return { error: 'a v2 receipt signs its value, but value is missing or not a finite number' };
    request.value = r.value;
    request.unit = typeof r.unit === 'string' ? r.unit : '';
  }
  return { request, version };
}

function b64urlToBytes(s) {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Checks a v3 receipt's Ed25519 signature. Returns {status: 'valid'|'invalid'|'absent'|'unsupported', reason?, kid?}. */
export async function checkSignature(receipt, jwks, subtle = globalThis.crypto?.subtle) {
  const s = receipt.signature;
  if (s === undefined) return { status: 'absent', reason: 'no signature: a receipt from before v3 signatures, checked by its proof only' };
  if (!s || typeof s !== 'object' || s.v !== 3 || s.alg !== 'EdDSA' || typeof s.sig !== 'string' || typeof s.kid !== 'string') {
    return { status: 'invalid', reason: 'the signature field is not a v3 EdDSA signature' };
  }
  const jwk = (jwks?.keys ?? []).find((k) => k.kid === s.kid);
  if (!jwk) return { status: 'invalid', reason: `signed with key ${s.kid}, which this node does not publish`, kid: s.kid };
  if (!subtle) return { status: 'unsupported', reason: 'this browser has no WebCrypto', kid: s.kid };
  const { signature: _sig, ...unsigned } = receipt;
  let data;
  try { data = new TextEncoder().encode(canonicalJson(unsigned)); } catch { return { status: 'invalid', reason: 'the receipt is not canonicalisable JSON' }; }
  let key;
  try {
    key = await subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
  } catch {
    return { status: 'unsupported', reason: 'this browser cannot check Ed25519 signatures', kid: s.kid };
  }
  let ok = false;
  try { ok = await subtle.verify({ name: 'Ed25519' }, key, b64urlToBytes(s.sig), data); } catch { ok = false; }
  return ok
    ? { status: 'valid', kid: s.kid }
    : { status: 'invalid', reason: 'the signature does not match: some field of the response was changed after sealing', kid: s.kid };
}

/** One verdict from the node's proof answer and the signature check. */
export function verdictOf(proof, sig) {
  // proof: {valid: boolean, version} | {error}
  if (proof.error) return { valid: false, reason: proof.error };
  if (!proof.valid) {
    return { valid: false, reason: 'the proof does not match: the value, unit, R_t, time step, operator ids or signer were changed, or another node (another secret) sealed it' };
  }
  if (sig.status === 'invalid') return { valid: false, reason: sig.reason };
  const notes = [`v${proof.version} proof valid`];
  if (sig.status === 'valid') notes.push(`Ed25519 signature valid (key ${sig.kid})`);
  else notes.push(sig.reason);
  return { valid: true, reason: notes.join('; ') };
}

// ------------------------------------------------------------------------------------------------
// One verification (docs/verify.md, "One table of facts"): the checks of `svc verify`
// (src/verify-strict.ts) and of the Python verifier, with their verdicts and exit codes, written
// here for the browser (WebCrypto: SHA-256 and Ed25519) and runnable under Node 24 as it is
// (test/log/verify-table.test.ts imports this module). Exit 1: a check failed (definitive);
// 2: none failed, but one asked for could not run (the URL it could not reach is named); 0: valid.


export const CHECKS = ['strict', 'digest', 'inclusion', 'checkpoint', 'key', 'signature', 'consistency', 'hmac'];
const SIGNATURE_MEMBERS = ['v', 'alg', 'kid', 'sig'];
const LOG_MEMBERS = ['index', 'treeSize', 'inclusionProof', 'checkpoint'];
const INTEGER_PATHS = ['receipt.log.index', 'receipt.log.treeSize', 'receipt.version', 'receipt.chain.seq', 'svcState.svcond', 'signature.v'];
const UNSIGNED = 'allowed by --allow-unsigned: the response signature was not checked (tokens are covered by nothing else)';

const plain = (x) => !!x && typeof x === 'object' && !Array.isArray(x);
const getPath = (x, path) => path.split('.').reduce((o, k) => (plain(o) ? o[k] : undefined), x);

/** The strict reading of a saved sealed response: {receipt} or {error}. */
export function readReceiptStrict(text, allowUnsigned = false) {
  let r;
  try { r = parseIJson(String(text ?? '').trim()); } catch (e) {
    return { error: e instanceof IJsonError && /RFC 7493/.test(e.message) ? `not I-JSON: ${e.message}` : `not JSON: ${e.message}` };
  }
  const x = r.value;
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
    const v = getPath(x, p);
    if (v === undefined) continue;
    if (typeof v !== 'number' || r.nonIntegerLiterals.has(p) || !Number.isSafeInteger(v) || v < 0) return { error: `${p} is not written as a non-negative integer` };
  }
  if (!Array.isArray(log.inclusionProof) || log.inclusionProof.some((h) => typeof h !== 'string')) return { error: 'receipt.log.inclusionProof is not an array of strings' };
  if (typeof log.checkpoint !== 'string') return { error: 'receipt.log.checkpoint is not a string' };
  if (typeof x.receipt.digest !== 'string') return { error: 'receipt.digest is not a string' };
  return { receipt: x };
}

const enc = new TextEncoder();
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const concat = (...parts) => { const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0)); let o = 0; for (const p of parts) { out.set(p, o); o += p.length; } return out; };
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
function b64ToBytes(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
function bytesToB64(b) { let s = ''; for (const x of b) s += String.fromCharCode(x); return btoa(s); }

async function sha256(subtle, ...parts) { return new Uint8Array(await subtle.digest('SHA-256', concat(...parts))); }
const nodeHash = (subtle, l, r) => sha256(subtle, new Uint8Array([1]), l, r);

/** RFC 9162 §2.1.3.2. */
async function verifyInclusion(subtle, leaf, index, size, proof, root) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (root.length !== 32 || proof.some((p) => p.length !== 32)) return false;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(subtle, p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else r = await nodeHash(subtle, r, p);
    fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** RFC 9162 §2.1.4.2. */
async function verifyConsistency(subtle, m, n, proof, oldRoot, newRoot) {
  if (!(m >= 0 && m <= n) || proof.some((p) => p.length !== 32)) return false;
  if (m === n) return proof.length === 0 && equal(oldRoot, newRoot);
  if (m === 0) return proof.length === 0;
  if (!proof.length) return false;
  const path = (m & (m - 1)) === 0 ? [oldRoot, ...proof] : proof;
  let fn = m - 1, sn = n - 1;
  while (fn % 2 === 1) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
  let fr = path[0], sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(subtle, c, fr); sr = await nodeHash(subtle, c, sr);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else sr = await nodeHash(subtle, sr, c);
    fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, oldRoot) && equal(sr, newRoot);
}

/** c2sp.org/signed-note: {text, signatures: [{name, id, sig}]} or null. */
function parseNote(note) {
  if (note.length > 1 << 20 || /[\u0000-\u0009\u000b-\u001f]/.test(note)) return null;
  const cut = note.lastIndexOf('\n\n');
  if (cut < 0 || !note.endsWith('\n')) return null;
  const text = note.slice(0, cut + 1);
  const signatures = [];
  const lines = note.slice(cut + 2, -1).split('\n');
  if (lines.length > 100) return null;
  for (const line of lines) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
    if (!m || m[1].includes('+')) return null;
    let raw;
    try { raw = b64ToBytes(m[2]); } catch { return null; }
    if (raw.length < 5 || bytesToB64(raw) !== m[2]) return null;
    signatures.push({ name: m[1], id: hex(raw.subarray(0, 4)), sig: raw.subarray(4) });
  }
  return { text, signatures };
}

/** c2sp.org/tlog-checkpoint: {origin, size, root} or null. */
function parseCheckpoint(text) {
  if (!text.endsWith('\n')) return null;
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3 || lines.some((l) => l === '') || !/^(0|[1-9][0-9]*)$/.test(lines[1])) return null;
  let root;
  try { root = b64ToBytes(lines[2]); } catch { return null; }
  if (root.length !== 32 || bytesToB64(root) !== lines[2]) return null;
  return { origin: lines[0], size: Number(lines[1]), root };
}

/** A vkey `<name>+<hex id>+base64(0x01 ‖ key)` whose id matches its key: {name, id, key} or null. */
async function parseVkey(subtle, vkey) {
  const m = /^([^+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(String(vkey).trim());
  if (!m) return null;
  const raw = b64ToBytes(m[3]);
  if (raw.length !== 33 || raw[0] !== 1) return null;
  if (hex((await sha256(subtle, enc.encode(m[1] + '\n'), raw)).subarray(0, 4)) !== m[2]) return null;
  return { name: m[1], id: m[2], key: raw.subarray(1) };
}

async function ed25519Verify(subtle, rawKey, sig, data) {
  try {
    const key = await subtle.importKey('raw', rawKey, { name: 'Ed25519' }, false, ['verify']);
    return await subtle.verify({ name: 'Ed25519' }, key, sig, data);
  } catch { return false; }
}

/** Every signature by a trusted key verifies and there is one: {ok, text} or {ok: false, reason}. */
async function verifyNote(subtle, note, vkeys) {
  const p = parseNote(note);
  if (!p) return { ok: false, reason: 'malformed signed note' };
  let any = false;
  for (const s of p.signatures) {
    const v = vkeys.find((k) => k.name === s.name && k.id === s.id);
    if (!v) continue;
    if (!(await ed25519Verify(subtle, v.key, s.sig, enc.encode(p.text)))) return { ok: false, reason: `the signature by ${v.name}+${v.id} does not verify` };
    any = true;
  }
  return any ? { ok: true, text: p.text } : { ok: false, reason: 'no signature by a trusted key' };
}

/** The digest: SHA-256 of the RFC 8785 body without tokens, signature, receipt.log, receipt.digest. */
async function receiptDigest(subtle, r) {
  const { tokens: _t, signature: _s, receipt, ...rest } = r;
  const { log: _l, digest: _d, ...rc } = receipt;
  return sha256(subtle, enc.encode(canonicalJson({ ...rest, receipt: rc })));
}

class Unreachable extends Error { constructor(url, why) { super(`${url} could not be reached (${why})`); this.url = url; } }

async function getJson(f, url, init) {
  let res;
  try { res = await f(url, init); } catch (e) { throw new Unreachable(url, e?.cause?.code ?? e?.message ?? String(e)); }
  if (!res.ok) { const e = new Unreachable(url, `HTTP ${res.status}`); e.status = res.status; throw e; }
  const text = await res.text();
  try { return JSON.parse(text); } catch { throw new Unreachable(url, 'not JSON'); }
}
async function getText(f, url) {
  let res;
  try { res = await f(url); } catch (e) { throw new Unreachable(url, e?.cause?.code ?? e?.message ?? String(e)); }
  if (!res.ok) throw new Unreachable(url, `HTTP ${res.status}`);
  return res.text();
}

/**
 * Verifies a saved sealed response (its text). opts: {jwks, vkeys (strings), url (the node), key
 * (a machine key: the node checks the HMAC), hmacUrl, allowUnsigned, fetch, subtle}. Returns
 * {valid, exit, receipt, checks, failed, couldNotRun, unreachable, unsigned?, reason?, parsed}.
 */
export async function verifySaved(text, opts = {}) {
  const f = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const subtle = opts.subtle ?? globalThis.crypto?.subtle;
  const checks = Object.fromEntries(CHECKS.map((c) => [c, null]));
  const reasons = [];
  const couldNotRun = [];
  const rep = { receipt: null, unreachable: null, index: null, treeSize: null, origin: null, keySource: null, currentSize: null, parsed: null };
  const done = () => {
    const failed = CHECKS.filter((c) => checks[c] === false);
    const exit = failed.length ? 1 : couldNotRun.length ? 2 : 0;
    return { valid: exit === 0, exit, checks, failed, couldNotRun, ...rep, ...(reasons.length ? { reason: reasons.join('; ') } : {}) };
  };
  const unreach = (names, e) => { couldNotRun.push(...names); rep.unreachable ??= e.url; reasons.push(`${names.join(', ')}: could not run: ${e.message}`); };

  const read = readReceiptStrict(text, opts.allowUnsigned);
  if (read.error) { checks.strict = false; reasons.push(`strict: ${read.error}`); return done(); }
  checks.strict = true;
  const r = read.receipt;
  const log = r.receipt.log;
  Object.assign(rep, { receipt: typeof r.receipt.id === 'string' ? r.receipt.id : null, index: log.index, treeSize: log.treeSize, parsed: r });
  const signed = r.signature !== undefined;
  if (!signed) rep.unsigned = UNSIGNED;
  if (!subtle) { couldNotRun.push('digest'); reasons.push('this browser has no WebCrypto'); return done(); }

  const digest = await receiptDigest(subtle, r);
  checks.digest = hex(digest) === r.receipt.digest;
  if (!checks.digest) reasons.push('digest: the receipt\'s canonical body does not hash to receipt.digest');
  const note = parseNote(log.checkpoint);
  const stated = note ? parseCheckpoint(note.text) : null;
  let proof = null;
  try { proof = log.inclusionProof.map(b64ToBytes); } catch { proof = null; }
  checks.inclusion = !!stated && !!proof && stated.size === log.treeSize
    && await verifyInclusion(subtle, await sha256(subtle, new Uint8Array([0]), digest), log.index, log.treeSize, proof, stated.root);
  if (!stated) reasons.push('inclusion: the checkpoint is malformed');
  else if (stated.size !== log.treeSize) reasons.push(`inclusion: the checkpoint's size ${stated.size} is not receipt.log.treeSize ${log.treeSize}`);
  else if (!checks.inclusion) reasons.push('inclusion: the inclusion proof does not lead from the receipt\'s leaf to the checkpoint root');
  if (stated) rep.origin = stated.origin;

  let jwks = opts.jwks ?? null;
  let vkeys = [];
  if (opts.vkeys) { rep.keySource = 'vkey'; for (const v of opts.vkeys) { const k = await parseVkey(subtle, v); if (k) vkeys.push(k); } }
  else if (jwks) rep.keySource = 'jwks';
  else {
    const from = opts.url ? new URL('/.well-known/jwks.json', opts.url).href : typeof r.receipt.jwks_uri === 'string' ? r.receipt.jwks_uri : '';
    rep.keySource = from || null;
    if (!from) { couldNotRun.push('checkpoint', 'key', 'signature'); reasons.push('no key given and the receipt names no jwks_uri'); }
    else {
      try { jwks = await getJson(f, from); } catch (e) {
        if (!(e instanceof Unreachable)) throw e;
        unreach(signed ? ['checkpoint', 'key', 'signature'] : ['checkpoint'], e);
      }
    }
  }
  if (jwks && !opts.vkeys) {
    for (const k of jwks.keys ?? []) {
      if (typeof k?.vkey !== 'string' || (k.purpose && k.purpose !== 'log')) continue;
      const v = await parseVkey(subtle, k.vkey);
      if (v) vkeys.push(v);
    }
  }

  let cp = null;
  if (vkeys.length || jwks) {
    const v = await verifyNote(subtle, log.checkpoint, vkeys);
    checks.checkpoint = v.ok;
    if (!v.ok) reasons.push(`checkpoint: ${v.reason}`);
    else cp = parseCheckpoint(v.text);
  }
  if (jwks && signed) {
    const s = r.signature;
    const jwk = (jwks.keys ?? []).find((k) => k?.kid === s.kid && k?.kty === 'OKP' && k?.crv === 'Ed25519');
    checks.key = !!jwk;
    if (!jwk) reasons.push(`key: the response is signed with key ${s.kid}, which is not an Ed25519 key of the key set`);
    else {
      const sig = await checkSignature(r, { keys: [jwk] }, subtle);
      checks.signature = sig.status === 'valid';
      if (!checks.signature) reasons.push(`signature: ${sig.reason}`);
    }
  }

  if (opts.url && cp && checks.checkpoint) {
    try {
      const curNote = await getText(f, new URL('/log/checkpoint', opts.url).href);
      const v = await verifyNote(subtle, curNote, vkeys);
      const cur = v.ok ? parseCheckpoint(v.text) : null;
      if (!cur) { checks.consistency = false; reasons.push(`consistency: the node's checkpoint: ${v.reason ?? 'malformed'}`); }
      else {
        rep.currentSize = cur.size;
        if (cur.origin !== cp.origin) { checks.consistency = false; reasons.push(`consistency: the node's log is ${cur.origin}, the receipt's ${cp.origin}`); }
        else if (cur.size < cp.size) { checks.consistency = false; reasons.push(`consistency: split view: the node's tree (${cur.size}) is smaller than the receipt's (${cp.size})`); }
        else if (cur.size === cp.size) {
          checks.consistency = equal(cur.root, cp.root);
          if (!checks.consistency) reasons.push('consistency: split view: two checkpoints of one size with different roots');
        } else {
          const body = await getJson(f, new URL(`/log/consistency?old=${cp.size}&new=${cur.size}`, opts.url).href);
          const p = Array.isArray(body?.proof) ? body.proof.map((h) => b64ToBytes(String(h))) : [];
          checks.consistency = await verifyConsistency(subtle, cp.size, cur.size, p, cp.root, cur.root);
          if (!checks.consistency) reasons.push(`consistency: split view: the node's checkpoint (${cur.size}) is not consistent with the receipt's (${cp.size})`);
        }
      }
    } catch (e) {
      if (!(e instanceof Unreachable)) throw e;
      unreach(['consistency'], e);
    }
  } else if (opts.url && couldNotRun.includes('checkpoint')) couldNotRun.push('consistency');

  if (opts.key) {
    const at = new URL('/api/svc/verify', opts.url ?? opts.hmacUrl ?? 'http://127.0.0.1:8787').href;
    const req = proofRequestOf(r);
    if (req.error) { checks.hmac = false; reasons.push(`hmac: ${req.error}`); }
    else {
      try {
        const out = await getJson(f, at, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.key}` }, body: JSON.stringify(req.request) });
        checks.hmac = out.valid === true;
        if (!checks.hmac) reasons.push('hmac: the seal proof does not match the signed fields (svcProof)');
      } catch (e) {
        if (!(e instanceof Unreachable)) throw e;
        if (e.status === 400 || e.status === 422) { checks.hmac = false; reasons.push(`hmac: the node refused the proof's fields (HTTP ${e.status})`); }
        else if (e.status) { couldNotRun.push('hmac'); reasons.push(`hmac: could not run: ${at} answered HTTP ${e.status}`); }
        else unreach(['hmac'], e);
      }
    }
  }
  return done();
}

/** The words of a verdict, for the page. */
export function verdictWords(rep) {
  if (rep.exit === 0) return { word: '✓ Valid', tone: 'good' };
  if (rep.exit === 1) return { word: `✗ Invalid: ${rep.failed.join(', ')} failed`, tone: 'bad' };
  return { word: `? Could not check ${rep.couldNotRun.join(', ')}${rep.unreachable ? `: ${rep.unreachable} could not be reached` : ''}`, tone: 'unknown' };
}
