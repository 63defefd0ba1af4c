// A real OAuth/OpenID client library (openid-client v6) against a listening node: discovery,
// authorization code with PKCE S256, a refresh, revocation; jose verifies the id_tokens against
// the published JWKS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let base: string;
before(async () => {
  t = await testNode();
  base = await t.listen();
  // the issuer is the node's public base URL; here that is the port it listens on
  t.app.config.baseUrl = base;
});
after(async () => { await t.close(); });

const REDIRECT = 'http://127.0.0.1:9/callback'; // a loopback redirect (RFC 8252 §7.3); the browser step is played by the test

test('openid-client completes authorization code + PKCE and a refresh; jose verifies the id_tokens against the JWKS', async () => {
  const owner = await t.machine('oidc owner');
  const config = await client.discovery(new URL(base), 'mcp-desktop-app', { redirect_uris: [REDIRECT] }, client.None(), { execute: [client.allowInsecureRequests] });
  assert.equal(config.serverMetadata().issuer, base);

  const verifier = client.randomPKCECodeVerifier();
  const challenge = await client.calculatePKCECodeChallenge(verifier);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const authUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT, scope: 'openid mail:read pages:write', code_challenge: challenge, code_challenge_method: 'S256', state, nonce,
  });
  assert.equal(authUrl.origin + authUrl.pathname, `${base}/api/oauth/authorize`);

  // the user agent visits the authorization endpoint: the ceremony begins
  const ceremony = await (await fetch(authUrl)).json() as any;
  assert.equal(ceremony.ceremony, 'vault-issuance');
  assert.equal(ceremony.client.clientId, 'mcp-desktop-app');
  // the owner approves with its machine key and is sent back to the client
  const approve = await fetch(`${base}/api/oauth/authorize/approve`, {
    method: 'POST', headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ requestId: ceremony.requestId }),
  });
  assert.equal(approve.status, 200);
  const { redirectUrl } = await approve.json() as any;

  const tokens = await client.authorizationCodeGrant(config, new URL(redirectUrl), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  assert.equal(tokens.token_type, 'bearer');
  assert.ok(tokens.access_token.startsWith('svc_oat_'));
  assert.ok(tokens.refresh_token?.startsWith('svc_ort_'));
  const claims = tokens.claims()!;
  assert.equal(claims.sub, owner.zid);
  assert.equal(claims.iss, base);
  assert.equal(claims.aud, 'mcp-desktop-app');
  assert.equal(claims.nonce, nonce);

  const JWKS = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
  const verified = await jwtVerify(tokens.id_token!, JWKS, { issuer: base, audience: 'mcp-desktop-app', algorithms: ['EdDSA'] });
  assert.equal(verified.payload.sub, owner.zid);
  assert.equal(verified.protectedHeader.alg, 'EdDSA');

  // the access token is a bearer for the owner's mailbox
  const mail = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${base}/api/mail`), 'GET');
  assert.equal(mail.status, 200);
  assert.equal((await mail.json() as any).mailbox, `${owner.zid.toLowerCase()}@${t.app.config.mailDomain}`);

  // refresh through the library: rotation gives a new pair and a new, verifiable id_token
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
  assert.notEqual(refreshed.access_token, tokens.access_token);
  const again = await jwtVerify(refreshed.id_token!, JWKS, { issuer: base, audience: 'mcp-desktop-app', algorithms: ['EdDSA'] });
  assert.equal(again.payload.sub, owner.zid);
  assert.equal(again.payload.auth_time, verified.payload.auth_time);

  // the rotated refresh token is refused by the library's own error path
  await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token!), (e: any) => e.error === 'invalid_grant' && e.status === 400);
  // that reuse ended the grant: the refreshed access token is now refused too
  const after = await fetch(`${base}/api/mail`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
  assert.equal(after.status, 401);
});

test('openid-client revokes a refresh token (RFC 7009) and the grant ends', async () => {
  const owner = await t.machine('oidc revoker');
  const config = await client.discovery(new URL(base), 'revoking-app', { redirect_uris: [REDIRECT] }, client.None(), { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const authUrl = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid mail:read', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const ceremony = await (await fetch(authUrl)).json() as any;
  const approve = await fetch(`${base}/api/oauth/authorize/approve`, {
    method: 'POST', headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ requestId: ceremony.requestId }),
  });
  const tokens = await client.authorizationCodeGrant(config, new URL((await approve.json() as any).redirectUrl), { pkceCodeVerifier: verifier });
  await client.tokenRevocation(config, tokens.refresh_token!);
  await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token!), (e: any) => e.error === 'invalid_grant');
  assert.equal((await fetch(`${base}/api/mail`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 401);
});
