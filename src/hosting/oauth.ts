// OAuth 2.1 for machines: authorization code with PKCE (S256 only), refresh-token rotation with
// reuse detection, OpenID Connect id_tokens, RFC 7009 revocation, and access tokens as bearers.
//
// The "vault-issuance ceremony": a client sends the owner to GET /api/oauth/authorize; the node
// records a pending request and describes it; the machine's owner approves it with its API key
// (POST /api/oauth/authorize/approve), which issues a one-time code bound to client_id,
// redirect_uri and the PKCE challenge; the client exchanges code + verifier at the token
// endpoint for an access token, a refresh token and an id_token.
//
// Every token is random (256 bits), shown once, stored only as its SHA-256. Everything minted
// from one code is a family. Refresh rotation (RFC 9700 §4.14, OAuth 2.1 §4.3.1) runs in one
// transaction: lock the family row, then move the presented refresh token into
// oauth_tokens_revoked with INSERT … ON CONFLICT DO NOTHING; only the transaction that inserted
// it may mint. Presenting a token already in the store is reuse: the whole family is revoked.
// A grant also dies with the owner's API key that approved it (recovery revokes every key).
import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';
import type { App } from '../ops/types.ts';
import type { Caller } from '../core/caller.ts';
import type { Queryable } from '../store/db.ts';
import { SvcError, type ErrorCode } from '../core/errors.ts';
import { sha256Hex, ulid } from '../core/ids.ts';
import { appendToChain } from '../services/chain.ts';

export const ACCESS_PREFIX = 'svc_oat_';
export const REFRESH_PREFIX = 'svc_ort_';
export const CODE_PREFIX = 'svc_oac_';
/** client ids issued by dynamic client registration (RFC 7591) */
export const CLIENT_PREFIX = 'svc_oc_';
export const CLIENT_RE = /^svc_oc_[A-Za-z0-9_-]{22}$/;
/** RFC 9728 protected resource metadata, at the root of the node (the whole API is one resource) */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
/** what an MCP client is asked for when it signs in: run solvers and read its receipts */
export const MCP_SCOPES = ['compute', 'machine:read'];
/** lifetimes in seconds */
export const TTL = { request: 600, code: 120, access: 3600, refresh: 30 * 86400, idToken: 3600 } as const;

const TOKEN_BODY = '[A-Za-z0-9_-]{43}';
export const ACCESS_RE = new RegExp(`^${ACCESS_PREFIX}${TOKEN_BODY}$`);
export const REFRESH_RE = new RegExp(`^${REFRESH_PREFIX}${TOKEN_BODY}$`);
export const CODE_RE = new RegExp(`^${CODE_PREFIX}${TOKEN_BODY}$`);
export const REQUEST_ID_RE = /^oar_[0-9A-HJKMNP-TV-Z]{26}$/;
export const CODE_VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CODE_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

const newSecret = (prefix: string) => prefix + randomBytes(32).toString('base64url');
/** The non-secret prefix of a token, the way keyPrefix identifies an API key. */
export const tokenPrefix = (token: string) => token.slice(0, 16);

/** An OAuth error: our code and status (DESIGN §9), plus the RFC 6749 §5.2 `error` value. */
export function oauthError(code: ErrorCode, rfcError: string, message: string): SvcError {
  return new SvcError(code, message, { details: { oauthError: rfcError } });
}

/** RFC 6749 error body for the RFC endpoints (/token, /revoke): {error: 'invalid_grant', error_description}. */
export function rfcStyle(e: unknown): unknown {
  if (e instanceof SvcError && e.details?.oauthError) {
    const details = { ...e.details, error: e.details.oauthError, error_description: e.message };
    delete (details as any).oauthError;
    return new SvcError(e.code, e.message, { details, issues: e.issues });
  }
  return e;
}

export function supportedScopes(app: App): string[] {
  const s = new Set(['openid']);
  for (const op of app.operations) if ((op.access === 'user' || op.access === 'key') && op.scope) s.add(op.scope);
  return [...s].sort();
}

export function parseScope(app: App, scope: string | undefined, fallback = 'openid'): string[] {
  const raw = (scope ?? '').trim() || fallback;
  const list = [...new Set(raw.split(/ +/))];
  const supported = new Set(supportedScopes(app));
  for (const s of list) {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(s) || !supported.has(s)) {
      throw oauthError('INVALID_INPUT', 'invalid_scope', `unknown scope '${s.slice(0, 64)}'; supported: ${[...supported].join(' ')}`);
    }
  }
  return list;
}

/** Redirect URIs (RFC 8252 §7, OAuth 2.1 §7.5.1 and §8.4.2): https on a host named as written;
 * http only on a loopback IP literal written `127.0.0.1` or `[::1]` (RFC 8252 §7.3 and §8.3:
 * `localhost` may resolve elsewhere); or a private-use scheme in reverse-domain form (§7.1:
 * `com.example.app:`, at least two labels, the last of the domain a real top-level label of two or
 * more letters). A host that the URL parser rewrites (numeric aliases such as `2130706433`,
 * `0x7f000001`, `127.1`, `0177.0.0.1`) is refused: the URI must mean what it says. No fragment,
 * no user-info. */
export function checkRedirectUri(uri: string): string {
  let u: URL;
  try { u = new URL(uri); } catch { throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri must be an absolute URL'); }
  if (uri.includes('#')) throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri must not contain a fragment');
  if (u.username || u.password) throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri must not contain user information');
  if (u.protocol === 'https:' || u.protocol === 'http:') {
    // the authority as written (between '//' and the next '/', '?' or end), without the port
    const written = /^https?:\/\/([^/?]*)/i.exec(uri)?.[1] ?? '';
    const hostWritten = written.replace(/:\d*$/, '').toLowerCase();
    // (an internationalised name is written in Unicode and parsed to its ASCII form: that is no alias)
    if (hostWritten !== u.hostname && !/[^\x00-\x7f]/.test(hostWritten)) {
      throw oauthError('INVALID_INPUT', 'invalid_request', `redirect_uri host '${hostWritten.slice(0, 100)}' is an alias of '${u.hostname}': write the host as it is`);
    }
    if (u.protocol === 'https:') return uri;
    if (u.hostname === '127.0.0.1' || u.hostname === '[::1]') return uri;
    if (u.hostname === 'localhost') throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri: use the loopback literal 127.0.0.1 or [::1] instead of localhost (RFC 8252 §8.3)');
    throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri must be https, http on 127.0.0.1 or [::1], or a private-use reverse-domain scheme');
  }
  const scheme = u.protocol.slice(0, -1);
  const labels = scheme.split('.');
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
  const reverseDomain = labels.length >= 2 && /^[a-z]{2,63}$/.test(labels[0]) && labels.every((l) => label.test(l));
  if (!reverseDomain || ['javascript', 'data', 'file', 'blob', 'about', 'vbscript'].includes(scheme)) {
    throw oauthError('INVALID_INPUT', 'invalid_request', `redirect_uri scheme '${scheme.slice(0, 100)}:' is not a private-use scheme in reverse-domain form (such as com.example.app:), nor https, nor http on 127.0.0.1 or [::1]`);
  }
  return uri;
}

const iso = (s: number) => new Date(Math.round(s * 1000)).toISOString();
const expired = (at: unknown, nowS: number) => new Date(at as string).getTime() <= nowS * 1000;

export interface AuthorizeParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  scope?: string;
  nonce?: string;
  response_mode?: string;
  resource?: string;
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'identify the machine (its ZID) to the client through an id_token',
  compute: "run sealed computations (every solver, svc_compute, svc_unified, svc_lattice, svc_shift), each charged to this machine's compute tokens and appended to its chain",
};

function describeScope(app: App, s: string): string {
  if (SCOPE_TEXT[s]) return SCOPE_TEXT[s];
  const ops = app.operations.filter((o) => o.scope === s && (o.access === 'user' || o.access === 'key'));
  return `call ${ops.map((o) => `${o.method} ${o.path}`).join(', ')}`;
}

function ceremonySteps(app: App) {
  return [
    'the client sends the machine owner to GET /api/oauth/authorize with client_id, redirect_uri, response_type=code, code_challenge (S256), state and scope',
    'the node records a pending request and answers with its requestId and what the owner is asked to approve',
    'the owner approves it with the machine API key: POST /api/oauth/authorize/approve {requestId} (Authorization: Bearer svc_ak_…)',
    `the owner is sent to redirect_uri?code=…&state=…&iss=${app.config.baseUrl}`,
    'the client exchanges code and code_verifier at POST /api/oauth/token (grant_type=authorization_code) for access_token, refresh_token and id_token',
    'refresh tokens rotate: POST /api/oauth/refresh or /api/oauth/token (grant_type=refresh_token); a reused refresh token revokes the whole grant',
  ];
}

/** RFC 8707 resource indicator: tokens of this node are for this node. The resource may name
 * the node (its base URL) or anything under it (the MCP endpoint); anything else is refused. */
export function checkResource(app: App, resource: string): void {
  let u: URL;
  try { u = new URL(resource); } catch { throw oauthError('INVALID_INPUT', 'invalid_target', 'resource must be an absolute URL'); }
  const base = new URL(app.config.baseUrl);
  const under = u.origin === base.origin && (u.pathname + '/').startsWith(base.pathname.replace(/\/?$/, '/'));
  if (!under || u.hash) throw oauthError('INVALID_INPUT', 'invalid_target', `resource must be this node (${app.config.baseUrl}) or a URL under it`);
}

/** A client registered through RFC 7591 may only use the redirect URIs it registered. */
async function checkRegisteredRedirect(app: App, clientId: string, redirectUri: string): Promise<void> {
  if (!clientId.startsWith(CLIENT_PREFIX)) return;
  const rows = CLIENT_RE.test(clientId) ? await app.db.query<any>('SELECT redirect_uris FROM oauth_clients WHERE client_id = $1', [clientId]) : [];
  if (!rows.length) throw oauthError('INVALID_INPUT', 'invalid_client', 'unknown client_id: register it first (POST /api/oauth/register)');
  if (!(JSON.parse(rows[0].redirect_uris) as string[]).includes(redirectUri)) {
    throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri is not one of the redirect URIs this client registered');
  }
}

export interface ClientMetadata {
  redirect_uris: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  application_type?: string;
  software_id?: string;
  software_version?: string;
}

/** RFC 7591 dynamic client registration of a public client: the node issues a client_id and
 * keeps the redirect URIs; it answers the metadata it registered (RFC 7591 §3.2.1), which may
 * differ from the request: only public clients (`token_endpoint_auth_method: none`), the grants
 * and response type the node supports, the scopes it knows. */
export async function registerClient(app: App, m: ClientMetadata) {
  if (!m.redirect_uris?.length) throw oauthError('INVALID_INPUT', 'invalid_redirect_uri', 'redirect_uris must list at least one URI');
  for (const u of m.redirect_uris) {
    try { checkRedirectUri(u); } catch (e) { throw oauthError('INVALID_INPUT', 'invalid_redirect_uri', `${u.slice(0, 200)}: ${(e as Error).message}`); }
  }
  const grants = (m.grant_types ?? ['authorization_code']).filter((g) => g === 'authorization_code' || g === 'refresh_token');
  if (!grants.includes('authorization_code')) throw oauthError('INVALID_INPUT', 'invalid_client_metadata', "grant_types must include 'authorization_code'");
  if (m.response_types && !m.response_types.includes('code')) throw oauthError('INVALID_INPUT', 'invalid_client_metadata', "response_types must include 'code'");
  const scope = m.scope === undefined ? undefined : parseScope(app, m.scope).join(' ');
  const clientId = CLIENT_PREFIX + randomBytes(16).toString('base64url');
  const issuedAt = Math.floor(app.clock.now());
  const registered = {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    redirect_uris: m.redirect_uris,
    grant_types: grants,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(m.client_name !== undefined ? { client_name: m.client_name } : {}),
    ...(m.client_uri !== undefined ? { client_uri: m.client_uri } : {}),
    ...(m.logo_uri !== undefined ? { logo_uri: m.logo_uri } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(m.application_type !== undefined ? { application_type: m.application_type } : {}),
    ...(m.software_id !== undefined ? { software_id: m.software_id } : {}),
    ...(m.software_version !== undefined ? { software_version: m.software_version } : {}),
  };
  await app.db.query('INSERT INTO oauth_clients (client_id, client_name, redirect_uris, metadata) VALUES ($1,$2,$3,$4)',
    [clientId, m.client_name ?? null, JSON.stringify(m.redirect_uris), JSON.stringify(registered)]);
  return registered;
}

/** RFC 9728 protected resource metadata: the whole node is one resource, signed in to at itself. */
export function protectedResourceMetadata(app: App) {
  const base = app.config.baseUrl;
  return {
    resource: base,
    authorization_servers: [base],
    scopes_supported: supportedScopes(app).filter((s) => s !== 'openid'),
    bearer_methods_supported: ['header'],
    resource_name: 'svc sealed-computation node',
    resource_documentation: `${base}/docs`,
  };
}

const quoted = (v: string) => `"${v.replace(/["\\]/g, '')}"`;

/** The `WWW-Authenticate` value for a refusal of the credential (RFC 6750 §3, RFC 9728 §5.1):
 * a 401 (no credential, or one that is unknown, expired or revoked) names where to sign in and the
 * scopes an MCP client should ask for; a 403 for a missing scope says which scope is needed
 * (insufficient_scope). Null for anything else. */
export function bearerChallenge(app: App, status: number, body: { code?: unknown; error?: unknown; requiredScope?: unknown }, opts: { credentialSent?: boolean } = {}): string | null {
  const meta = `resource_metadata=${quoted(app.config.baseUrl + RESOURCE_METADATA_PATH)}`;
  if (status === 401) {
    const parts = [meta, `scope=${quoted(MCP_SCOPES.join(' '))}`];
    if (opts.credentialSent) parts.unshift('error="invalid_token"', `error_description=${quoted(String(body.error ?? 'invalid credential'))}`);
    return `Bearer ${parts.join(', ')}`;
  }
  if (status === 403 && typeof body.requiredScope === 'string') {
    return `Bearer error="insufficient_scope", scope=${quoted(body.requiredScope)}, ${meta}`;
  }
  return null;
}

/** GET /api/oauth/authorize: describes the ceremony; with a complete request, records it. */
export async function startAuthorization(app: App, p: AuthorizeParams) {
  const nowS = app.clock.now();
  const oauthParams = ['redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'nonce', 'response_mode', 'resource'] as const;
  const given = oauthParams.filter((k) => p[k] !== undefined);
  const base = {
    ok: true as const,
    ceremony: 'vault-issuance',
    issuer: app.config.baseUrl,
    steps: ceremonySteps(app),
    scopesSupported: supportedScopes(app),
  };
  if (!given.length) {
    return { ...base, clientId: p.client_id ?? null, pending: false, required: ['client_id', 'redirect_uri', 'response_type=code', 'code_challenge', 'code_challenge_method=S256'], optional: ['state', 'scope', 'nonce'] };
  }
  if (!p.client_id) throw oauthError('INVALID_INPUT', 'invalid_request', 'client_id is required');
  if (!p.redirect_uri) throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri is required');
  const redirectUri = checkRedirectUri(p.redirect_uri);
  if (p.resource !== undefined) checkResource(app, p.resource);
  await checkRegisteredRedirect(app, p.client_id, redirectUri);
  if (p.response_type !== 'code') throw oauthError('INVALID_INPUT', 'unsupported_response_type', "response_type must be 'code'");
  if (p.response_mode !== undefined && p.response_mode !== 'query') throw oauthError('INVALID_INPUT', 'invalid_request', "response_mode must be 'query'");
  if (!p.code_challenge) throw oauthError('INVALID_INPUT', 'invalid_request', 'code_challenge is required (PKCE, RFC 7636)');
  if (p.code_challenge_method !== 'S256') throw oauthError('INVALID_INPUT', 'invalid_request', "code_challenge_method must be 'S256'");
  if (!CODE_CHALLENGE_RE.test(p.code_challenge)) throw oauthError('INVALID_INPUT', 'invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the verifier');
  const scopes = parseScope(app, p.scope);
  const id = 'oar_' + ulid(Math.floor(nowS * 1000));
  const expiresAt = iso(nowS + TTL.request);
  await app.db.tx(async (q) => {
    await q.query(`DELETE FROM oauth_requests WHERE status = 'pending' AND expires_at < $1`, [iso(nowS - 86400)]);
    await q.query(
      `INSERT INTO oauth_requests (id, client_id, redirect_uri, scope, state, nonce, code_challenge, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
      [id, p.client_id, redirectUri, scopes.join(' '), p.state ?? null, p.nonce ?? null, p.code_challenge, expiresAt]);
  });
  return {
    ...base,
    pending: true,
    requestId: id,
    expiresAt,
    client: { clientId: p.client_id, redirectUri },
    scope: scopes.join(' '),
    asks: scopes.map((s) => ({ scope: s, grants: describeScope(app, s) })),
    approve: { method: 'POST', path: '/api/oauth/authorize/approve', access: 'key', body: { requestId: id } },
  };
}

/** POST /api/oauth/authorize/approve: the owner, with its key, approves (or denies) a request. */
export async function approveAuthorization(app: App, caller: Caller, input: { requestId: string; approve: boolean }) {
  if (!caller.zid || caller.kind !== 'machine') throw new SvcError('FORBIDDEN', 'only a machine API key can approve an authorization request');
  const zid = caller.zid;
  const nowS = app.clock.now();
  if (!REQUEST_ID_RE.test(input.requestId)) throw new SvcError('NOT_FOUND', 'no pending authorization request with that id');
  return app.db.tx(async (q) => {
    const rows = await q.query<any>(
      `UPDATE oauth_requests SET status = $2, zid = $3 WHERE id = $1 AND status = 'pending' AND expires_at > $4 RETURNING *`,
      [input.requestId, input.approve ? 'approved' : 'denied', zid, iso(nowS)]);
    if (!rows.length) throw new SvcError('NOT_FOUND', 'no pending authorization request with that id (it may have expired or been used)');
    const r = rows[0];
    const redirect = new URL(r.redirect_uri);
    if (!input.approve) {
      redirect.searchParams.set('error', 'access_denied');
      if (r.state !== null) redirect.searchParams.set('state', r.state);
      redirect.searchParams.set('iss', app.config.baseUrl);
      return { ok: true as const, approved: false, redirectUrl: redirect.href, state: r.state };
    }
    const code = newSecret(CODE_PREFIX);
    const expiresAt = iso(nowS + TTL.code);
    await q.query(
      `INSERT INTO oauth_codes (code_hash, request_id, zid, client_id, redirect_uri, scope, nonce, code_challenge, auth_time, key_hash, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
      [sha256Hex(code), r.id, zid, r.client_id, r.redirect_uri, r.scope, r.nonce, r.code_challenge, Math.floor(nowS), caller.keyHash, expiresAt]);
    await appendToChain(q, zid, [{ kind: 'oauth.approved', ref: r.id, payload: { requestId: r.id, clientId: r.client_id, redirectUri: r.redirect_uri, scope: r.scope } }]);
    redirect.searchParams.set('code', code);
    if (r.state !== null) redirect.searchParams.set('state', r.state);
    redirect.searchParams.set('iss', app.config.baseUrl);
    return { ok: true as const, approved: true, code, state: r.state, expiresAt, redirectUrl: redirect.href, clientId: r.client_id, scope: r.scope };
  });
}

export interface TokenSet {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_token_expires_in: number;
  id_token: string;
  scope: string;
  zid: string;
}

interface Family { id: string; zid: string; client_id: string; scope: string; nonce: string | null; auth_time: number }

async function idToken(app: App, f: Family, nowS: number, withNonce: boolean): Promise<string> {
  const key = app.signingKey;
  const claims: Record<string, unknown> = { auth_time: Number(f.auth_time), azp: f.client_id, sid: f.id, jti: randomBytes(12).toString('base64url') };
  if (withNonce && f.nonce) claims.nonce = f.nonce;
  const iat = Math.floor(nowS);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(app.config.baseUrl)
    .setSubject(f.zid)
    .setAudience(f.client_id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + TTL.idToken)
    .sign(key.privateKey);
}

/** Mints an access token, a refresh token and an id_token in the family (inside the caller's tx). */
async function mint(app: App, q: Queryable, f: Family, scope: string, nowS: number, withNonce: boolean): Promise<TokenSet> {
  const access = newSecret(ACCESS_PREFIX);
  const refresh = newSecret(REFRESH_PREFIX);
  await q.query(
    `INSERT INTO oauth_tokens (token_hash, kind, family_id, zid, client_id, scope, expires_at) VALUES
       ($1,'access',$3,$4,$5,$6,$7), ($2,'refresh',$3,$4,$5,$6,$8)`,
    [sha256Hex(access), sha256Hex(refresh), f.id, f.zid, f.client_id, scope, iso(nowS + TTL.access), iso(nowS + TTL.refresh)]);
  return {
    access_token: access, token_type: 'Bearer', expires_in: TTL.access,
    refresh_token: refresh, refresh_token_expires_in: TTL.refresh,
    id_token: await idToken(app, f, nowS, withNonce), scope, zid: f.zid,
  };
}

/** Revokes a family: the family row, and every token of it into the revoked store. */
async function revokeFamily(q: Queryable, familyId: string, zid: string, reason: string): Promise<void> {
  const rows = await q.query('UPDATE oauth_families SET revoked_at = now(), revoke_reason = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id', [familyId, reason]);
  await q.query(
    `INSERT INTO oauth_tokens_revoked (token_hash, family_id, reason) SELECT token_hash, family_id, 'family' FROM oauth_tokens WHERE family_id = $1
     ON CONFLICT (token_hash) DO NOTHING`, [familyId]);
  if (rows.length) await appendToChain(q, zid, [{ kind: 'oauth.revoked', ref: familyId, payload: { family: familyId, reason } }]);
}

function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** Is the owner's key that approved this grant still valid? */
async function approvingKeyLive(q: Queryable, keyHash: string): Promise<boolean> {
  const rows = await q.query<any>('SELECT revoked_at FROM api_keys WHERE key_hash = $1', [keyHash]);
  return rows.length > 0 && !rows[0].revoked_at;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: SvcError };

/** grant_type=authorization_code. */
export async function exchangeCode(app: App, p: { code?: string; code_verifier?: string; redirect_uri?: string; client_id?: string; resource?: string }): Promise<TokenSet> {
  if (!p.code) throw oauthError('INVALID_INPUT', 'invalid_request', 'code is required');
  if (p.resource !== undefined) checkResource(app, p.resource);
  if (!p.code_verifier) throw oauthError('INVALID_INPUT', 'invalid_request', 'code_verifier is required (PKCE)');
  if (!CODE_VERIFIER_RE.test(p.code_verifier)) throw oauthError('INVALID_INPUT', 'invalid_request', 'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]');
  if (!p.redirect_uri) throw oauthError('INVALID_INPUT', 'invalid_request', 'redirect_uri is required');
  if (!p.client_id) throw oauthError('INVALID_INPUT', 'invalid_request', 'client_id is required (public clients identify themselves)');
  if (!CODE_RE.test(p.code)) throw oauthError('INVALID_GRANT', 'invalid_grant', 'unknown, expired or used authorization code');
  const nowS = app.clock.now();
  const out: Outcome<TokenSet> = await app.db.tx(async (q) => {
    const rows = await q.query<any>('SELECT * FROM oauth_codes WHERE code_hash = $1 FOR UPDATE', [sha256Hex(p.code!)]);
    if (!rows.length) return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'unknown, expired or used authorization code') };
    const c = rows[0];
    if (c.used_at) {
      // a code used twice: revoke what it issued (RFC 6749 §4.1.2)
      if (c.family_id) await revokeFamily(q, c.family_id, c.zid, 'authorization code reused');
      return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'authorization code already used; the tokens issued from it are revoked') };
    }
    if (expired(c.expires_at, nowS)) return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'authorization code expired') };
    // a failed exchange burns the code (OAuth 2.1 §4.1.3): whoever holds a stolen code gets one try
    const burn = async (why: string) => {
      await q.query('UPDATE oauth_codes SET used_at = now() WHERE code_hash = $1', [c.code_hash]);
      return { ok: false as const, error: oauthError('INVALID_GRANT', 'invalid_grant', `${why}; the code is now spent: start a new authorization request`) };
    };
    if (c.client_id !== p.client_id) return burn('authorization code was issued to another client');
    if (c.redirect_uri !== p.redirect_uri) return burn('redirect_uri does not match the authorization request');
    if (!pkceMatches(p.code_verifier!, c.code_challenge)) return burn('code_verifier does not match code_challenge');
    if (!(await approvingKeyLive(q, c.key_hash))) return burn('the key that approved this request has been revoked');
    const family: Family = { id: 'oaf_' + ulid(Math.floor(nowS * 1000)), zid: c.zid, client_id: c.client_id, scope: c.scope, nonce: c.nonce, auth_time: Number(c.auth_time) };
    await q.query(
      `INSERT INTO oauth_families (id, zid, client_id, scope, nonce, auth_time, key_hash) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
      [family.id, family.zid, family.client_id, family.scope, family.nonce, family.auth_time, c.key_hash]);
    await q.query('UPDATE oauth_codes SET used_at = now(), family_id = $2 WHERE code_hash = $1', [c.code_hash, family.id]);
    return { ok: true, value: await mint(app, q, family, family.scope, nowS, true) };
  });
  if (!out.ok) throw out.error;
  return out.value;
}

/** grant_type=refresh_token: rotation with reuse detection. */
export async function rotateRefreshToken(app: App, p: { refresh_token?: string; zid?: string; client_id?: string; scope?: string; resource?: string }): Promise<TokenSet> {
  if (!p.refresh_token) throw oauthError('INVALID_INPUT', 'invalid_request', 'refresh_token is required');
  if (p.resource !== undefined) checkResource(app, p.resource);
  if (!REFRESH_RE.test(p.refresh_token)) throw oauthError('INVALID_INPUT', 'invalid_request', `malformed refresh_token: expected ${REFRESH_PREFIX} followed by 43 base64url characters`);
  const nowS = app.clock.now();
  const hash = sha256Hex(p.refresh_token);
  const out: Outcome<TokenSet> = await app.db.tx(async (q) => {
    const rows = await q.query<any>(`SELECT * FROM oauth_tokens WHERE token_hash = $1 AND kind = 'refresh'`, [hash]);
    if (!rows.length) return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'unknown refresh token') };
    const t = rows[0];
    if (p.zid !== undefined && p.zid !== t.zid) return { ok: false, error: oauthError('ZID_NOT_LINKED', 'invalid_grant', 'this refresh token is not linked to that machine') };
    if (p.client_id !== undefined && p.client_id !== t.client_id) return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'this refresh token was issued to another client') };
    // serialise every refresh of this family on its row
    const fam = await q.query<any>('SELECT * FROM oauth_families WHERE id = $1 FOR UPDATE', [t.family_id]);
    const f = fam[0];
    if (f.revoked_at) return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'refresh token revoked') };
    if (expired(t.expires_at, nowS)) return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'refresh token expired') };
    if (!(await approvingKeyLive(q, f.key_hash))) {
      await revokeFamily(q, t.family_id, t.zid, 'approving key revoked');
      return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'the key that approved this grant has been revoked') };
    }
    const granted = t.scope.split(' ');
    let scope = t.scope;
    if (p.scope !== undefined && p.scope.trim() !== '') {
      const asked = parseScope(app, p.scope);
      const extra = asked.filter((s) => !granted.includes(s));
      if (extra.length) return { ok: false, error: oauthError('INVALID_INPUT', 'invalid_scope', `scope exceeds the grant: ${extra.join(' ')}`) };
      scope = asked.join(' ');
    }
    // the one conditional write that decides the race: only the transaction that moves the token
    // into the revoked store may mint
    const claimed = await q.query(
      `INSERT INTO oauth_tokens_revoked (token_hash, family_id, reason) VALUES ($1,$2,'rotated') ON CONFLICT (token_hash) DO NOTHING RETURNING token_hash`,
      [hash, t.family_id]);
    if (!claimed.length) {
      // already in the revoked store: rotated before (reuse) or revoked; either way the family ends
      await revokeFamily(q, t.family_id, t.zid, 'refresh token reuse');
      return { ok: false, error: oauthError('INVALID_GRANT', 'invalid_grant', 'refresh token revoked (it was already used); every token of this grant is now revoked') };
    }
    const family: Family = { id: f.id, zid: f.zid, client_id: f.client_id, scope: f.scope, nonce: f.nonce, auth_time: Number(f.auth_time) };
    return { ok: true, value: await mint(app, q, family, scope, nowS, false) };
  });
  if (!out.ok) throw out.error;
  return out.value;
}

/** RFC 7009: revoking a refresh token ends its family; an access token is revoked alone.
 * Unknown tokens are not an error. */
export async function revokeToken(app: App, p: { token?: string; token_type_hint?: string; client_id?: string }): Promise<{ revoked: boolean }> {
  if (!p.token) throw oauthError('INVALID_INPUT', 'invalid_request', 'token is required');
  if (p.token_type_hint !== undefined && !['access_token', 'refresh_token'].includes(p.token_type_hint)) {
    throw oauthError('INVALID_INPUT', 'unsupported_token_type', "token_type_hint must be 'access_token' or 'refresh_token'");
  }
  if (!ACCESS_RE.test(p.token) && !REFRESH_RE.test(p.token)) return { revoked: false };
  const hash = sha256Hex(p.token);
  return app.db.tx(async (q) => {
    const rows = await q.query<any>('SELECT * FROM oauth_tokens WHERE token_hash = $1', [hash]);
    if (!rows.length) return { revoked: false };
    const t = rows[0];
    if (p.client_id !== undefined && p.client_id !== t.client_id) return { revoked: false };
    await q.query('SELECT id FROM oauth_families WHERE id = $1 FOR UPDATE', [t.family_id]);
    if (t.kind === 'refresh') {
      await q.query(`INSERT INTO oauth_tokens_revoked (token_hash, family_id, reason) VALUES ($1,$2,'revoked') ON CONFLICT (token_hash) DO NOTHING`, [hash, t.family_id]);
      await revokeFamily(q, t.family_id, t.zid, 'revoked by the client (RFC 7009)');
    } else {
      await q.query(`INSERT INTO oauth_tokens_revoked (token_hash, family_id, reason) VALUES ($1,$2,'revoked') ON CONFLICT (token_hash) DO NOTHING`, [hash, t.family_id]);
    }
    return { revoked: true };
  });
}

/** The owner logs a client out: one grant of its machine and every token of it. */
export async function revokeGrant(app: App, zid: string, familyId: string): Promise<void> {
  if (!/^oaf_[0-9A-HJKMNP-TV-Z]{26}$/.test(familyId)) throw new SvcError('NOT_FOUND', 'grant not found');
  await app.db.tx(async (q) => {
    const rows = await q.query<any>('SELECT id FROM oauth_families WHERE id = $1 AND zid = $2 FOR UPDATE', [familyId, zid]);
    if (!rows.length) throw new SvcError('NOT_FOUND', 'grant not found');
    await revokeFamily(q, familyId, zid, 'revoked by the owner (logout)');
  });
}

/** Bearer resolver: a live access token is a caller of its machine's `user` operations. */
export async function resolveAccessToken(token: string, app: App): Promise<Caller | null> {
  if (!token.startsWith(ACCESS_PREFIX)) return null;
  if (!ACCESS_RE.test(token)) return null;
  const hash = sha256Hex(token);
  const rows = await app.db.query<any>(
    `SELECT t.zid, t.scope, t.expires_at, f.revoked_at AS family_revoked, m.state,
            (SELECT count(*)::int FROM oauth_tokens_revoked r WHERE r.token_hash = t.token_hash) AS revoked,
            (SELECT count(*)::int FROM api_keys k WHERE k.key_hash = f.key_hash AND k.revoked_at IS NULL) AS key_live
       FROM oauth_tokens t JOIN oauth_families f ON f.id = t.family_id JOIN machines m ON m.zid = t.zid
      WHERE t.token_hash = $1 AND t.kind = 'access'`, [hash]);
  if (!rows.length) return null;
  const r = rows[0];
  if (r.family_revoked || Number(r.revoked) > 0 || Number(r.key_live) === 0 || r.state !== 'active') return null;
  if (expired(r.expires_at, app.clock.now())) return null;
  return { kind: 'oauth', zid: r.zid, keyPrefix: tokenPrefix(token), keyHash: hash, scopes: String(r.scope).split(' ') };
}

export function discoveryDocument(app: App) {
  const base = app.config.baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}/api/oauth/authorize`,
    token_endpoint: `${base}/api/oauth/token`,
    revocation_endpoint: `${base}/api/oauth/revoke`,
    registration_endpoint: `${base}/api/oauth/register`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: supportedScopes(app),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['EdDSA'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'azp', 'sid', 'jti'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs`,
  };
}
