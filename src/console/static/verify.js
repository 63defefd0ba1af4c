// Receipt verification, the pure parts (unit-tested in Node against the node's own code):
//  - the HMAC proof request for POST /api/svc/verify, read from a sealed response (v2 signs
//    value and unit too; v1 does not);
//  - the Ed25519 signature of a v3 receipt: RFC 8785 canonical JSON of the response without
//    `signature`, checked with WebCrypto against a key of the node's JWKS.

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
