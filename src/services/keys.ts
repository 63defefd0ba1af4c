// The node's asymmetric signing key (Ed25519, JOSE alg "EdDSA", RFC 8037), shared through the
// database so that every node on one PostgreSQL signs with the same key and publishes the same
// JWKS. Used for OAuth id_tokens and v3 receipt signatures.
//
// At rest the private key (PKCS#8 DER) is sealed with AES-256-GCM under
//   K = HKDF-SHA256(ikm = master secret, salt = "svc-keys", info = "svc-signing-key", 32 bytes)
// (RFC 5869), a fresh 96-bit IV per key and the kid as additional authenticated data, stored as
// "v1.<iv>.<tag>.<ciphertext>" (base64url). The kid is the RFC 7638 JWK thumbprint of the public key.
//
// Creation is race-free across nodes: each node that finds no primary key generates a candidate,
// INSERTs it with ON CONFLICT (slot) DO NOTHING, then SELECTs the primary: exactly one candidate
// wins and everyone reads the winner.
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, generateKeyPairSync, hkdfSync, randomBytes, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Queryable } from '../store/db.ts';

export const SIGNING_ALG = 'EdDSA';
/** NOTIFY channel of a key rotation: every node on the database reloads its keys */
export const KEYS_ROTATED_CHANNEL = 'svc_keys_rotated';
export const SIGNING_CURVE = 'Ed25519';
const PRIMARY = 'primary';
const ENC_VERSION = 'v1';

export interface SigningKey {
  kid: string;
  alg: 'EdDSA';
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** the public JWK as published in the JWKS ({kty, crv, x, kid, alg, use}) */
  publicJwk: JWK;
}

/** The at-rest wrapping key: HKDF-SHA256 of the master secret. */
export function wrappingKey(masterSecret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterSecret, Buffer.from('svc-keys'), Buffer.from('svc-signing-key'), 32));
}

export function encryptPrivateKey(masterSecret: Buffer, kid: string, pkcs8Der: Buffer): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', wrappingKey(masterSecret), iv);
  c.setAAD(Buffer.from(kid));
  const ct = Buffer.concat([c.update(pkcs8Der), c.final()]);
  return [ENC_VERSION, iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function decryptPrivateKey(masterSecret: Buffer, kid: string, sealed: string): Buffer {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== ENC_VERSION || !iv || !tag || !ct) throw new Error('signing key: unknown at-rest format');
  const d = createDecipheriv('aes-256-gcm', wrappingKey(masterSecret), Buffer.from(iv, 'base64url'));
  d.setAAD(Buffer.from(kid));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]);
  } catch {
    throw new Error('signing key: cannot decrypt the stored private key; this node\'s master secret (SVC_SEAL_SECRET) differs from the one that created it');
  }
}

async function candidate(masterSecret: Buffer): Promise<{ kid: string; publicJwk: JWK; privateEnc: string }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint({ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x! }, 'sha256');
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: SIGNING_ALG, use: 'sig' };
  const der = privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer;
  return { kid, publicJwk, privateEnc: encryptPrivateKey(masterSecret, kid, der) };
}

function fromRow(masterSecret: Buffer, row: { kid: string; public_jwk: string; private_enc: string }): SigningKey {
  const der = decryptPrivateKey(masterSecret, row.kid, row.private_enc);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const publicJwk = JSON.parse(row.public_jwk) as JWK;
  const publicKey = createPublicKey({ key: publicJwk as any, format: 'jwk' });
  // the stored public half must be the private key's own
  const derived = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  if (derived.x !== publicJwk.x) throw new Error('signing key: stored public key does not match the private key');
  return { kid: row.kid, alg: SIGNING_ALG, privateKey, publicKey, publicJwk };
}

/** Reads the primary key, creating it (race-free) when there is none. No caching. */
export async function loadOrCreateSigningKey(q: Queryable, masterSecret: Buffer): Promise<SigningKey> {
  const select = () => q.query<any>('SELECT kid, public_jwk, private_enc FROM signing_keys WHERE slot = $1', [PRIMARY]);
  let rows = await select();
  if (!rows.length) {
    const c = await candidate(masterSecret);
    await q.query(
      `INSERT INTO signing_keys (kid, slot, alg, public_jwk, private_enc) VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`,
      [c.kid, PRIMARY, SIGNING_ALG, JSON.stringify(c.publicJwk), c.privateEnc]);
    rows = await select();
  }
  if (!rows.length) throw new Error('signing key: no primary key after insert');
  return fromRow(masterSecret, rows[0]);
}

/** The JSON Web Key Set of every key this database holds: the signing key, then the deployment's
 * attestation, log and witness keys; retired keys last, marked `retired` (with `retiredAt`). */
export async function jwks(q: Queryable): Promise<{ keys: JWK[] }> {
  const rows = await q.query<{ public_jwk: string; retired_at: string | Date | null; t: number }>(
    `SELECT * FROM (SELECT public_jwk, retired_at, 0 AS t, slot, created_at, kid FROM signing_keys
       UNION ALL SELECT public_jwk, retired_at, 1 AS t, slot, created_at, kid FROM deployment_keys) k
     ORDER BY (slot IS NULL), t, created_at DESC, kid`);
  return { keys: rows.map((r) => ({ ...JSON.parse(r.public_jwk), ...(r.retired_at ? { retired: true, retiredAt: new Date(r.retired_at).toISOString() } : {}) })) };
}

/** Retires the primary signing key (it stays in the JWKS, marked retired) and creates a new one. */
export async function rotateSigningKey(q: Queryable, masterSecret: Buffer): Promise<{ retired: string | null; current: SigningKey }> {
  const old = await q.query<{ kid: string }>('SELECT kid FROM signing_keys WHERE slot = $1 FOR UPDATE', [PRIMARY]);
  if (old.length) await q.query('UPDATE signing_keys SET slot = NULL, retired_at = now() WHERE kid = $1', [old[0].kid]);
  return { retired: old[0]?.kid ?? null, current: await loadOrCreateSigningKey(q, masterSecret) };
}

// ---------------------------------------------------------------------------------------------
// The deployment's other keys (table deployment_keys), sealed at rest the same way:
//   log      Ed25519, the note key that signs checkpoints (c2sp.org/signed-note type 0x01)
//   witness  Ed25519, the cosigner key of a witness node (c2sp.org/tlog-cosignature type 0x04)
//   attest   ECDSA P-256 (JOSE ES256), signs DSSE attestations (verifiable by cosign, sigstore-js)

export type KeyPurpose = 'log' | 'witness' | 'attest';

export interface DeploymentKey {
  kid: string;
  purpose: KeyPurpose;
  alg: 'EdDSA' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK & { vkey?: string; purpose?: string };
  retiredAt: string | null;
}

async function deploymentCandidate(masterSecret: Buffer, purpose: KeyPurpose, extra: (pub: KeyObject) => Record<string, unknown>) {
  const ec = purpose === 'attest';
  const { publicKey, privateKey } = ec ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(ec ? { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! } : { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x! }, 'sha256');
  const alg = ec ? 'ES256' : 'EdDSA';
  const publicJwk = { ...jwk, kid, alg, use: 'sig', purpose, ...extra(publicKey) };
  const der = privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer;
  return { kid, alg, publicJwk, privateEnc: encryptPrivateKey(masterSecret, kid, der) };
}

function deploymentFromRow(masterSecret: Buffer, row: { kid: string; purpose: string; alg: string; public_jwk: string; private_enc: string; retired_at?: string | Date | null }): DeploymentKey {
  const der = decryptPrivateKey(masterSecret, row.kid, row.private_enc);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const publicJwk = JSON.parse(row.public_jwk);
  const derived = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  if (derived.x !== publicJwk.x || derived.y !== publicJwk.y) throw new Error(`${row.purpose} key: stored public key does not match the private key`);
  const { kty, crv, x, y } = publicJwk;
  return {
    kid: row.kid, purpose: row.purpose as KeyPurpose, alg: row.alg as DeploymentKey['alg'], privateKey,
    publicKey: createPublicKey({ key: { kty, crv, x, ...(y ? { y } : {}) } as any, format: 'jwk' }), publicJwk,
    retiredAt: row.retired_at ? new Date(row.retired_at).toISOString() : null,
  };
}

/** The current key of a purpose, created race-free (as loadOrCreateSigningKey) when there is none.
 * `extra` adds public members to its JWK (the log's and witness's `vkey`). */
export async function loadOrCreateKey(q: Queryable, masterSecret: Buffer, purpose: KeyPurpose, extra: (pub: KeyObject) => Record<string, unknown> = () => ({})): Promise<DeploymentKey> {
  const select = () => q.query<any>('SELECT kid, purpose, alg, public_jwk, private_enc, retired_at FROM deployment_keys WHERE slot = $1', [purpose]);
  let rows = await select();
  if (!rows.length) {
    const c = await deploymentCandidate(masterSecret, purpose, extra);
    await q.query('INSERT INTO deployment_keys (kid, purpose, slot, alg, public_jwk, private_enc) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING',
      [c.kid, purpose, purpose, c.alg, JSON.stringify(c.publicJwk), c.privateEnc]);
    rows = await select();
  }
  if (!rows.length) throw new Error(`${purpose} key: none after insert`);
  return deploymentFromRow(masterSecret, rows[0]);
}

/** Every key of a purpose, current first, then retired ones newest first (verifiers of old
 * signatures need them). */
export async function keysOf(q: Queryable, masterSecret: Buffer | null, purpose: KeyPurpose): Promise<{ kid: string; publicJwk: DeploymentKey['publicJwk']; retiredAt: string | null; key?: DeploymentKey }[]> {
  const rows = await q.query<any>('SELECT kid, purpose, alg, public_jwk, private_enc, retired_at FROM deployment_keys WHERE purpose = $1 ORDER BY (slot IS NULL), created_at DESC, kid', [purpose]);
  return rows.map((r) => ({
    kid: r.kid, publicJwk: JSON.parse(r.public_jwk), retiredAt: r.retired_at ? new Date(r.retired_at).toISOString() : null,
    ...(masterSecret ? { key: deploymentFromRow(masterSecret, r) } : {}),
  }));
}

/** Retires the current key of a purpose (its row stays, marked retired) and creates a new one. */
export async function rotateKey(q: Queryable, masterSecret: Buffer, purpose: KeyPurpose, extra: (pub: KeyObject) => Record<string, unknown> = () => ({})): Promise<{ retired: string | null; current: DeploymentKey }> {
  const old = await q.query<{ kid: string }>('SELECT kid FROM deployment_keys WHERE slot = $1 FOR UPDATE', [purpose]);
  if (old.length) await q.query('UPDATE deployment_keys SET slot = NULL, retired_at = now() WHERE kid = $1', [old[0].kid]);
  return { retired: old[0]?.kid ?? null, current: await loadOrCreateKey(q, masterSecret, purpose, extra) };
}

/** An Ed25519 signature over bytes (for v3 receipts: the RFC 8785 canonical JSON). */
export function signBytes(k: SigningKey, data: Buffer | string): { kid: string; alg: 'EdDSA'; signature: string } {
  const sig = cryptoSign(null, typeof data === 'string' ? Buffer.from(data) : data, k.privateKey);
  return { kid: k.kid, alg: SIGNING_ALG, signature: sig.toString('base64url') };
}

/** Verifies a signature made by signBytes against a public JWK. */
export function verifyBytes(publicJwk: JWK, data: Buffer | string, signatureB64url: string): boolean {
  try {
    const key = createPublicKey({ key: publicJwk as any, format: 'jwk' });
    return cryptoVerify(null, typeof data === 'string' ? Buffer.from(data) : data, key, Buffer.from(signatureB64url, 'base64url'));
  } catch {
    return false;
  }
}
