// Attestations (issue 20; DESIGN §13; docs/verify.md): a sealed receipt as an in-toto Statement v1
// in a DSSE envelope, packed as a Sigstore bundle v0.3, signed with the deployment's ECDSA P-256
// key (published in the JWKS; the key type cosign and sigstore-js verify). The bundle carries no
// transparency-log entry and no timestamp: it is checked with the JWKS key (keyed verification,
// thresholds 0); the receipt's own place in the deployment's log is in the predicate and in
// receipt.log.
//
//   DSSE:      PAE = "DSSEv1" SP len(type) SP type SP len(body) SP body, signature = ECDSA P-256
//              with SHA-256 over PAE, ASN.1 DER (github.com/secure-systems-lab/dsse, protocol.md)
//   Statement: {_type: https://in-toto.io/Statement/v1, subject: [{name, digest: {sha256}}],
//              predicateType, predicate}
//   subject:   the receipt id, digest.sha256 = receipt.digest (the receipt's log entry)
import { sign } from 'node:crypto';
import type { DeploymentKey } from './keys.ts';

export const BUNDLE_MEDIA_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The predicate type of a sealed receipt (stable; docs/verify.md describes its fields). */
export const PREDICATE_TYPE = 'urn:svc:predicate:sealed-receipt:v1';

/** DSSE v1 pre-authentication encoding. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `), payload]);
}

/** The in-toto Statement of a sealed receipt: solver, method, inputs, seed, value, unit,
 * precision and its place in the log. */
export function statementOf(receipt: Record<string, any>): Record<string, unknown> {
  const r = receipt.receipt ?? {};
  const origin = typeof r.log?.checkpoint === 'string' ? r.log.checkpoint.split('\n', 1)[0] : null;
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: r.id, digest: { sha256: r.digest } }],
    predicateType: PREDICATE_TYPE,
    predicate: {
      issuer: r.issuer ?? null,
      issuedAt: r.issuedAt,
      solver: receipt.solver ?? null,
      domain: receipt.domain ?? null,
      method: receipt.method ?? null,
      inputs: receipt.input ?? receipt.inputs ?? null,
      seed: receipt.seed ?? null,
      value: receipt.value ?? null,
      unit: receipt.unit ?? null,
      precision: receipt.precision ?? null,
      log: r.log ? { origin, index: r.log.index, treeSize: r.log.treeSize } : null,
    },
  };
}

/** The Sigstore bundle v0.3 of a receipt, signed with the attestation key. */
export function bundleOf(receipt: Record<string, any>, key: DeploymentKey): Record<string, unknown> {
  const payload = Buffer.from(JSON.stringify(statementOf(receipt)));
  const sig = sign('sha256', pae(DSSE_PAYLOAD_TYPE, payload), key.privateKey);
  return {
    mediaType: BUNDLE_MEDIA_TYPE,
    verificationMaterial: { publicKey: { hint: key.kid }, tlogEntries: [], timestampVerificationData: { rfc3161Timestamps: [] } },
    dsseEnvelope: { payload: payload.toString('base64'), payloadType: DSSE_PAYLOAD_TYPE, signatures: [{ sig: sig.toString('base64'), keyid: key.kid }] },
  };
}
