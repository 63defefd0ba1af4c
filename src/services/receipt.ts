// Offline verification of a v3 receipt: the Ed25519 signature over the RFC 8785 canonical JSON of
// the sealed response without its `signature` field, checked against a key of the node's JWKS
// (GET /.well-known/jwks.json). This checks that the node issued exactly this receipt; the HMAC
// proof (svc_verify) additionally needs the node's secret.
import { createPublicKey, verify } from 'node:crypto';
import { canonicalJson } from '../core/canonical.ts';

export interface JwkSet { keys: { kid?: string; kty?: string; crv?: string; x?: string }[] }

export function verifyReceiptSignature(receipt: Record<string, any>, jwks: JwkSet): { valid: boolean; reason?: string; kid?: string } {
  const s = receipt?.signature;
  if (!s || typeof s !== 'object') return { valid: false, reason: 'the receipt carries no signature (not a v3 receipt)' };
  if (s.v !== 3 || s.alg !== 'EdDSA' || typeof s.sig !== 'string' || typeof s.kid !== 'string') return { valid: false, reason: 'unknown signature format' };
  const jwk = jwks.keys.find((k) => k.kid === s.kid);
  if (!jwk) return { valid: false, reason: `no key ${s.kid} in the key set`, kid: s.kid };
  const { signature: _sig, ...unsigned } = receipt;
  let text: string;
  try { text = canonicalJson(unsigned); } catch { return { valid: false, reason: 'the receipt is not canonicalisable JSON' }; }
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: jwk.crv, x: jwk.x } as any, format: 'jwk' });
    const ok = verify(null, Buffer.from(text), key, Buffer.from(s.sig, 'base64url'));
    return ok ? { valid: true, kid: s.kid } : { valid: false, reason: 'signature does not match the receipt', kid: s.kid };
  } catch {
    return { valid: false, reason: 'malformed key or signature', kid: s.kid };
  }
}
