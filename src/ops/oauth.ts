// OAuth 2.1 and OpenID Connect for machines (issue 8). The flow and the rotation rules are in
// src/hosting/oauth.ts; the signing key in src/services/keys.ts. Access tokens become callers of
// their machine's `user` operations through the bearer resolver registered here.
import { z } from 'zod';
import { defineOp, type Operation, type RawReply } from './types.ts';
import type { App } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { checkZid } from './machines.ts';
import { rateLimit, assertUnderLimit, recordEvent } from '../services/identity.ts';
import { addressPrefix } from '../core/net.ts';

/** Dynamic client registrations allowed per hour: per client network (an IPv4 /24, an IPv6 /64), and
 * on the whole node (issue 33: one host has many loopback or IPv6 addresses). */
export const REGISTRATIONS_PER_HOUR_PREFIX = 30;
export const REGISTRATIONS_PER_HOUR_NODE = 300;
import { jwks } from '../services/keys.ts';
import {
  startAuthorization, approveAuthorization, exchangeCode, rotateRefreshToken, revokeToken, resolveAccessToken,
  discoveryDocument, oauthError, rfcStyle, revokeGrant, registerClient, protectedResourceMetadata, RESOURCE_METADATA_PATH, type TokenSet,
} from '../hosting/oauth.ts';
import { okWith } from './outputs.ts';

const tokenSet = okWith({
  access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int().describe('seconds'),
  refresh_token: z.string(), refresh_token_expires_in: z.number().int(), id_token: z.string().describe('an OpenID Connect id_token (EdDSA JWT)'),
  scope: z.string(), zid: z.string().describe('the machine that granted it'),
}).meta({ id: 'OAuthTokenSet', description: 'The tokens of a grant (RFC 6749 §5.1), with the machine that granted them.' });
const serverMetadata = z.looseObject({
  issuer: z.string(), authorization_endpoint: z.string(), token_endpoint: z.string(), jwks_uri: z.string(),
  scopes_supported: z.array(z.string()), response_types_supported: z.array(z.string()), grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
}).meta({ id: 'AuthorizationServerMetadata', description: 'OAuth 2.0 authorization server metadata (RFC 8414) / OpenID Connect discovery.' });

const str = (max: number) => z.string().max(max);
const clientId = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
const opaque = (max: number) => z.string().max(max).regex(/^[\x20-\x7e]*$/, 'printable ASCII');

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const json = (body: unknown, headers: Record<string, string> = {}): RawReply => ({
  raw: true, status: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body),
});
const tokenReply = (t: TokenSet): RawReply => json({ ok: true, ...t }, NO_STORE);

export function operations(app: App): Operation[] {
  app.bearerResolvers.push((token, a) => resolveAccessToken(token, a));

  return [
    defineOp({
      id: 'oauth.authorize',
      method: 'GET',
      path: '/api/oauth/authorize',
      access: 'public',
      tag: 'oauth',
      title: 'Start an authorization (PKCE)',
      summary: 'Entry point of the vault-issuance ceremony (OAuth 2.1 authorization code with PKCE S256).',
      description: 'Without parameters (or with client_id alone) it describes the ceremony. With client_id, redirect_uri, response_type=code, code_challenge and code_challenge_method=S256 (state, scope and nonce optional) it records a pending request for 10 minutes and returns its requestId: the machine owner approves it with POST /api/oauth/authorize/approve, which yields the authorization code and the redirect URL. Common OpenID parameters (prompt, login_hint, max_age, ui_locales, display, acr_values, id_token_hint) are accepted and ignored.',
      input: z.strictObject({
        client_id: clientId.optional(),
        redirect_uri: str(2000).regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters').optional(),
        response_type: str(50).optional(),
        code_challenge: str(200).optional(),
        code_challenge_method: str(20).optional(),
        state: opaque(500).optional(),
        scope: str(1000).optional(),
        nonce: opaque(500).optional(),
        response_mode: str(20).optional(),
        prompt: str(100).optional(),
        login_hint: str(200).optional(),
        max_age: str(20).optional(),
        ui_locales: str(200).optional(),
        display: str(20).optional(),
        acr_values: str(200).optional(),
        id_token_hint: str(4000).optional(),
        resource: str(2000).optional().describe('RFC 8707 resource indicator: this node, or a URL under it (the MCP endpoint)'),
      }),
      output: z.looseObject({
        ok: z.literal(true), ceremony: z.string(), issuer: z.string(), steps: z.array(z.unknown()),
        pending: z.boolean().describe('true: a request was recorded and waits for the machine owner'),
        requestId: z.string().optional().describe('pending: what the owner approves'),
      }),
      async handler(input, ctx) {
        if (input.redirect_uri !== undefined || input.code_challenge !== undefined) {
          await ctx.app.db.tx((q) => rateLimit(q, `oauth-authorize:${ctx.ip}`, 120, 600));
        }
        return startAuthorization(ctx.app, input);
      },
    }),
    defineOp({
      id: 'oauth.approve',
      method: 'POST',
      path: '/api/oauth/authorize/approve',
      access: 'key',
      tag: 'oauth',
      title: 'Approve an authorization request',
      summary: 'The machine owner approves (or denies) a pending authorization request with its API key; returns the authorization code and the redirect URL.',
      description: 'The code is single-use, valid for 120 s, and bound to the client_id, redirect_uri and PKCE challenge of the request. The grant lives as long as the API key that approved it. An OAuth access token cannot approve.',
      input: z.strictObject({ requestId: str(100), approve: z.boolean().default(true) }),
      output: okWith({
        approved: z.boolean(),
        code: z.string().optional().describe('approved: the single-use authorization code (120 s)'),
        state: z.string().nullable().optional(),
        expiresAt: z.string().optional(),
        redirectUrl: z.string().describe("the client's redirect_uri with code (or error) and state"),
        clientId: z.string().optional(),
        scope: z.string().optional(),
      }),
      async handler(input, ctx) {
        return approveAuthorization(ctx.app, ctx.caller!, input);
      },
    }),
    defineOp({
      id: 'oauth.token',
      method: 'POST',
      path: '/api/oauth/token',
      access: 'public',
      tag: 'oauth',
      title: 'Token endpoint',
      summary: 'Token endpoint (RFC 6749 §3.2; form-encoded or JSON): grant_type=authorization_code with code_verifier, or grant_type=refresh_token (rotation).',
      description: 'Public clients only (token_endpoint_auth_method none): client_id identifies the client. Answers {access_token, token_type: Bearer, expires_in, refresh_token, id_token, scope} with Cache-Control: no-store; errors carry the RFC 6749 error value in `error` and the stable `code` (INVALID_GRANT, INVALID_INPUT, ZID_NOT_LINKED).',
      input: z.strictObject({
        grant_type: str(100).optional(),
        code: str(200).optional(),
        redirect_uri: str(2000).optional(),
        code_verifier: str(200).optional(),
        client_id: clientId.optional(),
        client_secret: str(500).optional(),
        refresh_token: str(200).optional(),
        scope: str(1000).optional(),
        zid: str(64).optional(),
        resource: str(2000).optional(),
      }),
      output: tokenSet,
      async handler(input, ctx) {
        try {
          if (input.grant_type === 'authorization_code') return tokenReply(await exchangeCode(ctx.app, input));
          if (input.grant_type === 'refresh_token') {
            if (input.zid !== undefined) checkZid(input.zid);
            return tokenReply(await rotateRefreshToken(ctx.app, input));
          }
          if (input.grant_type === undefined) throw oauthError('INVALID_INPUT', 'invalid_request', 'grant_type is required');
          throw oauthError('INVALID_INPUT', 'unsupported_grant_type', "grant_type must be 'authorization_code' or 'refresh_token'");
        } catch (e) {
          throw rfcStyle(e);
        }
      },
    }),
    defineOp({
      id: 'oauth.refresh',
      method: 'POST',
      path: '/api/oauth/refresh',
      access: 'public',
      tag: 'oauth',
      summary: 'Rotate a refresh token: the old one is revoked and a new access token, refresh token and id_token are minted.',
      description: 'JSON {refresh_token, zid?} (refreshToken also accepted), or the RFC 6749 form grant_type=refresh_token&refresh_token=…. A token in oauth_tokens_revoked is refused; presenting an already rotated token revokes every token of its grant (RFC 9700 §4.14). Errors are 400: INVALID_INPUT (missing or malformed field), INVALID_ZID (malformed zid), ZID_NOT_LINKED (the token belongs to another machine), INVALID_GRANT (unknown, revoked, reused or expired token).',
      input: z.strictObject({
        refresh_token: str(200).optional(),
        refreshToken: str(200).optional(),
        zid: str(64).optional(),
        grant_type: str(100).optional(),
        client_id: clientId.optional(),
        scope: str(1000).optional(),
      }),
      output: tokenSet,
      async handler(input, ctx) {
        if (input.grant_type !== undefined && input.grant_type !== 'refresh_token') {
          throw oauthError('INVALID_INPUT', 'unsupported_grant_type', "grant_type must be 'refresh_token' here");
        }
        if (input.refresh_token !== undefined && input.refreshToken !== undefined && input.refresh_token !== input.refreshToken) {
          throw oauthError('INVALID_INPUT', 'invalid_request', 'refresh_token and refreshToken differ');
        }
        if (input.zid !== undefined) checkZid(input.zid);
        const t = await rotateRefreshToken(ctx.app, { ...input, refresh_token: input.refresh_token ?? input.refreshToken });
        return tokenReply(t);
      },
    }),
    defineOp({
      id: 'oauth.revoke',
      method: 'POST',
      path: '/api/oauth/revoke',
      access: 'public',
      tag: 'oauth',
      title: 'Revoke a token',
      summary: 'Token revocation (RFC 7009; form-encoded or JSON {token, token_type_hint?}). A refresh token ends its whole grant; an access token is revoked alone. Unknown tokens still answer 200.',
      input: z.strictObject({
        token: str(200).optional(),
        token_type_hint: str(50).optional(),
        client_id: clientId.optional(),
        client_secret: str(500).optional(),
      }),
      output: okWith({ revoked: z.boolean().describe('a known token was revoked (unknown tokens answer false, still 200)') }),
      async handler(input, ctx) {
        try {
          const r = await revokeToken(ctx.app, input);
          return json({ ok: true, revoked: r.revoked }, NO_STORE);
        } catch (e) {
          throw rfcStyle(e);
        }
      },
    }),
    defineOp({
      id: 'oauth.grants',
      method: 'GET',
      path: '/api/oauth/grants',
      access: 'key',
      tag: 'oauth',
      summary: "The caller machine's OAuth grants (client, scope, created, revoked).",
      input: z.strictObject({}),
      output: okWith({
        grants: z.array(z.object({ id: z.string(), clientId: z.string(), scope: z.string(), createdAt: z.string(), revokedAt: z.string().nullable(), revokeReason: z.string().nullable() })),
      }),
      async handler(_input, ctx) {
        const zid = ctx.caller!.zid;
        if (!zid) throw new SvcError('FORBIDDEN', 'a machine key is required');
        const rows = await ctx.app.db.query<any>(
          'SELECT id, client_id, scope, created_at, revoked_at, revoke_reason FROM oauth_families WHERE zid = $1 ORDER BY created_at DESC LIMIT 200', [zid]);
        return {
          ok: true,
          grants: rows.map((r) => ({ id: r.id, clientId: r.client_id, scope: r.scope, createdAt: new Date(r.created_at).toISOString(), revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null, revokeReason: r.revoke_reason })),
        };
      },
    }),
    defineOp({
      id: 'oauth.grants.revoke',
      method: 'DELETE',
      path: '/api/oauth/grants/:id',
      access: 'key',
      tag: 'oauth',
      summary: 'Log a client out: revoke one of the caller machine\'s grants and every token minted from it. Another machine\'s grant is 404.',
      input: z.strictObject({ id: str(100) }),
      output: okWith({ id: z.string(), revoked: z.literal(true) }),
      async handler(input, ctx) {
        const zid = ctx.caller!.zid;
        if (!zid) throw new SvcError('FORBIDDEN', 'a machine key is required');
        await revokeGrant(ctx.app, zid, input.id);
        return { ok: true, id: input.id, revoked: true };
      },
    }),
    defineOp({
      id: 'oauth.register',
      method: 'POST',
      path: '/api/oauth/register',
      access: 'public',
      tag: 'oauth',
      successStatus: [201],
      output: z.looseObject({ client_id: z.string(), redirect_uris: z.array(z.string()), token_endpoint_auth_method: z.string() }).describe('the registered client (RFC 7591 §3.2.1)'),
      summary: 'Dynamic client registration (RFC 7591) of a public client: answers 201 with its client_id and the metadata registered.',
      description: 'JSON client metadata: redirect_uris (required; https, http on a loopback host, or a private-use scheme), client_name, client_uri, logo_uri, scope, grant_types (authorization_code, refresh_token), response_types (code), token_endpoint_auth_method, application_type, software_id, software_version. Only public clients are registered (token_endpoint_auth_method none, no secret); metadata the node does not use is not kept, and the answer says what was registered (RFC 7591 §3.2.1). A registered client may only use its registered redirect URIs. At most 30 registrations per hour per client network (an IPv4 /24 or an IPv6 /64) and 300 per hour on the node. Errors follow RFC 7591 §3.2.2 (invalid_redirect_uri, invalid_client_metadata).',
      // RFC 7591 §2: metadata the server does not understand is ignored, not refused
      input: z.object({
        redirect_uris: z.array(str(2000)).min(1).max(10),
        client_name: str(200).optional(),
        client_uri: str(2000).optional(),
        logo_uri: str(2000).optional(),
        scope: str(1000).optional(),
        grant_types: z.array(str(100)).max(10).optional(),
        response_types: z.array(str(50)).max(10).optional(),
        token_endpoint_auth_method: str(100).optional(),
        application_type: str(50).optional(),
        software_id: str(200).optional(),
        software_version: str(100).optional(),
      }),
      async handler(input, ctx) {
        // per network prefix (a /24 or a /64: every alias of one host counts as one) and node-wide
        await ctx.app.db.tx(async (q) => {
          await assertUnderLimit(q, 'oauth-register:*', REGISTRATIONS_PER_HOUR_NODE, 3600, `too many client registrations on this node: at most ${REGISTRATIONS_PER_HOUR_NODE} per hour`);
          await rateLimit(q, `oauth-register:${addressPrefix(ctx.ip)}`, REGISTRATIONS_PER_HOUR_PREFIX, 3600);
          await recordEvent(q, 'oauth-register:*');
        });
        try {
          const registered = await registerClient(ctx.app, input);
          return { ...json(registered, NO_STORE), status: 201 };
        } catch (e) {
          throw rfcStyle(e);
        }
      },
    }),
    defineOp({
      id: 'oauth.protected-resource',
      method: 'GET',
      path: RESOURCE_METADATA_PATH,
      access: 'public',
      tag: 'oauth',
      summary: 'OAuth 2.0 protected resource metadata (RFC 9728): this node is the resource and its own authorization server; the scopes it accepts.',
      description: 'Every 401 names this document in its WWW-Authenticate challenge (resource_metadata), so that an MCP client can start signing in: discovery (/.well-known/oauth-authorization-server), registration (POST /api/oauth/register), the authorization code flow with PKCE (the machine owner approves), then bearer access tokens. The scope compute runs sealed computations charged to the approving machine; machine:read reads its receipts.',
      input: z.strictObject({}),
      output: z.looseObject({
        resource: z.string().describe('this node (SVC_BASE_URL)'),
        authorization_servers: z.array(z.string()),
        scopes_supported: z.array(z.string()),
        bearer_methods_supported: z.array(z.string()).optional(),
      }).describe('RFC 9728 protected resource metadata'),
      async handler(_input, ctx) {
        return json(protectedResourceMetadata(ctx.app), { 'cache-control': 'public, max-age=300' });
      },
    }),
    defineOp({
      id: 'oauth.jwks',
      method: 'GET',
      path: '/.well-known/jwks.json',
      access: 'public',
      tag: 'oauth',
      summary: "The node's public signing keys (JWKS): id_tokens and v3 receipts verify against them.",
      input: z.strictObject({}),
      output: z.object({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string().optional(), crv: z.string().optional(), x: z.string().optional() })) }).describe('JSON Web Key Set (RFC 7517)'),
      async handler(_input, ctx) {
        return json(await jwks(ctx.app.db), { 'cache-control': 'public, max-age=300' });
      },
    }),
    defineOp({
      id: 'oauth.openid-configuration',
      method: 'GET',
      path: '/.well-known/openid-configuration',
      access: 'public',
      tag: 'oauth',
      summary: 'OpenID Connect discovery document (issuer = the node\'s base URL).',
      input: z.strictObject({}),
      output: serverMetadata,
      async handler(_input, ctx) {
        return json(discoveryDocument(ctx.app), { 'cache-control': 'public, max-age=300' });
      },
    }),
    defineOp({
      id: 'oauth.authorization-server',
      method: 'GET',
      path: '/.well-known/oauth-authorization-server',
      access: 'public',
      tag: 'oauth',
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414); the same document as openid-configuration.',
      input: z.strictObject({}),
      output: serverMetadata,
      async handler(_input, ctx) {
        return json(discoveryDocument(ctx.app), { 'cache-control': 'public, max-age=300' });
      },
    }),
  ];
}
