import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, jwtVerify, decodeProtectedHeader } from 'jose';
import { testNode, type TestNode } from '../helpers.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { grant, pkce, form, FORM, REDIRECT } from './oauth-helpers.ts';

// one fixed clock for the file: only the expiry test moves it
const clock = fixedClock(Math.floor(Date.now() / 1000));
let t: TestNode;
let owner: Awaited<ReturnType<TestNode['machine']>>;
let other: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  t = await testNode({ clock });
  owner = await t.machine('oauth owner');
  other = await t.machine('oauth other');
});
after(async () => { await t.close(); });

const refresh = (body: unknown) => t.call('POST', '/api/oauth/refresh', body);

test('GET /api/oauth/authorize is public and describes the vault-issuance ceremony; with client_id alone too', async () => {
  for (const path of ['/api/oauth/authorize', '/api/oauth/authorize?client_id=some-client']) {
    const r = await t.call('GET', path);
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, true);
    assert.equal(r.body.ceremony, 'vault-issuance');
    assert.equal(r.body.pending, false);
    assert.ok(r.body.steps.length >= 4);
  }
});

test('a complete authorization request is recorded; the owner approves it with its key and gets a code bound to the redirect', async () => {
  const { challenge } = pkce();
  const q = new URLSearchParams({ client_id: 'c1', redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz', scope: 'openid pages:write' });
  const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
  assert.equal(auth.status, 200);
  assert.match(auth.body.requestId, /^oar_/);
  assert.equal(auth.body.scope, 'openid pages:write');
  assert.deepEqual(auth.body.approve, { method: 'POST', path: '/api/oauth/authorize/approve', access: 'key', body: { requestId: auth.body.requestId } });
  assert.ok(auth.body.asks.find((x: any) => x.scope === 'pages:write').grants.includes('/api/pages'));
  // nobody else approves: no key, a demo key
  assert.equal((await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId })).status, 401);
  assert.equal((await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, await t.demoKey())).status, 403);
  const ok = await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, owner.apiKey);
  assert.equal(ok.status, 200);
  const url = new URL(ok.body.redirectUrl);
  assert.equal(url.origin + url.pathname, REDIRECT);
  assert.equal(url.searchParams.get('code'), ok.body.code);
  assert.equal(url.searchParams.get('state'), 'xyz');
  assert.equal(url.searchParams.get('iss'), t.app.config.baseUrl);
  // a request is approved once
  assert.equal((await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, owner.apiKey)).status, 404);
});

test('the owner may deny: the redirect carries error=access_denied and no code', async () => {
  const { challenge } = pkce();
  const q = new URLSearchParams({ client_id: 'c1', redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 's' });
  const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
  const r = await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId, approve: false }, owner.apiKey);
  assert.equal(r.status, 200);
  const url = new URL(r.body.redirectUrl);
  assert.equal(url.searchParams.get('error'), 'access_denied');
  assert.equal(url.searchParams.get('code'), null);
});

test('authorize refuses what OAuth 2.1 forbids: no PKCE, plain PKCE, other response types, unsafe redirect URIs, unknown scopes', async () => {
  const { challenge } = pkce();
  const base = { client_id: 'c', redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' };
  const cases: Record<string, string>[] = [
    { ...base, code_challenge: undefined as any },
    { ...base, code_challenge_method: 'plain' },
    { ...base, code_challenge: 'short' },
    { ...base, response_type: 'token' },
    { ...base, redirect_uri: 'http://client.example/cb' },
    { ...base, redirect_uri: 'javascript:alert(1)' },
    { ...base, redirect_uri: 'https://client.example/cb#frag' },
    { ...base, redirect_uri: 'not a url' },
    { ...base, scope: 'openid admin:everything' },
    { ...base, client_id: undefined as any },
    { ...base, response_mode: 'fragment' },
  ];
  for (const c of cases) {
    const q = new URLSearchParams(Object.entries(c).filter(([, v]) => v !== undefined) as [string, string][]);
    const r = await t.call('GET', `/api/oauth/authorize?${q}`);
    assert.equal(r.status, 400, q.toString());
    assert.equal(r.body.ok, false);
  }
  // loopback http and private-use schemes are allowed (RFC 8252)
  for (const redirect_uri of ['http://127.0.0.1:4321/cb', 'http://[::1]:4321/cb', 'com.example.app:/oauth']) {
    const r = await t.call('GET', `/api/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri })}`);
    assert.equal(r.status, 200, redirect_uri);
  }
});

test('the code exchange needs the PKCE verifier, the same redirect_uri and client, and works once', async () => {
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({ client_id: 'cx', redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'openid machine:read' });
  const newCode = async () => {
    const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
    return (await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, owner.apiKey)).body.code as string;
  };
  let code = '';
  const ex = (f: Record<string, string>) => t.call('POST', '/api/oauth/token', form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: 'cx', ...f }), undefined, FORM);
  // each wrong exchange spends its code (test/hosting/edges.test.ts checks that); a fresh one each
  code = await newCode();
  const wrongVerifier = await ex({ code_verifier: pkce().verifier });
  assert.equal(wrongVerifier.status, 400);
  assert.equal(wrongVerifier.body.code, 'INVALID_GRANT');
  assert.equal(wrongVerifier.body.error, 'invalid_grant');
  code = await newCode();
  assert.equal((await ex({ redirect_uri: 'https://client.example/other' })).body.code, 'INVALID_GRANT');
  code = await newCode();
  assert.equal((await ex({ client_id: 'someone-else' })).body.code, 'INVALID_GRANT');
  code = await newCode();
  const ok = await ex({});
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.headers['cache-control'], 'no-store');
  assert.equal(ok.body.token_type, 'Bearer');
  assert.match(ok.body.access_token, /^svc_oat_/);
  assert.match(ok.body.refresh_token, /^svc_ort_/);
  assert.equal(ok.body.zid, owner.zid);
  // the access token works; then the code is replayed: refused, and what it issued is revoked
  assert.equal((await t.call('GET', '/api/machines/me', undefined, ok.body.access_token)).status, 200);
  const replay = await ex({});
  assert.equal(replay.status, 400);
  assert.equal(replay.body.code, 'INVALID_GRANT');
  assert.equal((await t.call('GET', '/api/machines/me', undefined, ok.body.access_token)).status, 401);
  assert.equal((await refresh({ refresh_token: ok.body.refresh_token })).body.code, 'INVALID_GRANT');
});

test('the id_token is an EdDSA JWT that verifies against /.well-known/jwks.json, with iss, sub, aud, nonce', async () => {
  const tok = await grant(t, owner.apiKey, { clientId: 'idt-client', nonce: 'n-123' });
  assert.equal(decodeProtectedHeader(tok.id_token).alg, 'EdDSA');
  const keys = (await t.call('GET', '/.well-known/jwks.json')).body;
  assert.ok(keys.keys.every((k: any) => !('d' in k)), 'no private parts in the JWKS');
  const { payload } = await jwtVerify(tok.id_token, createLocalJWKSet(keys), { issuer: t.app.config.baseUrl, audience: 'idt-client', algorithms: ['EdDSA'] });
  assert.equal(payload.sub, owner.zid);
  assert.equal(payload.nonce, 'n-123');
  assert.equal(typeof payload.auth_time, 'number');
  const disco = (await t.call('GET', '/.well-known/openid-configuration')).body;
  assert.equal(disco.issuer, t.app.config.baseUrl);
  assert.deepEqual(disco.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(disco.id_token_signing_alg_values_supported, ['EdDSA']);
  assert.ok(disco.jwks_uri.endsWith('/.well-known/jwks.json'));
  assert.ok(disco.revocation_endpoint.endsWith('/api/oauth/revoke'));
});

test('refresh rotates: the old refresh token is revoked and new access, refresh and id tokens are minted', async () => {
  const first = await grant(t, owner.apiKey);
  const r = await refresh({ refresh_token: first.refresh_token, zid: owner.zid });
  assert.equal(r.status, 200, r.text);
  assert.notEqual(r.body.access_token, first.access_token);
  assert.notEqual(r.body.refresh_token, first.refresh_token);
  assert.notEqual(r.body.id_token, first.id_token);
  const stored = await t.app.db.query<any>('SELECT reason FROM oauth_tokens_revoked WHERE token_hash = encode(sha256(convert_to($1, \'UTF8\')), \'hex\')', [first.refresh_token]);
  assert.deepEqual(stored.map((x) => x.reason), ['rotated']);
  // the RFC 6749 form also works at /api/oauth/refresh, and at the token endpoint
  const viaForm = await t.call('POST', '/api/oauth/refresh', form({ grant_type: 'refresh_token', refresh_token: r.body.refresh_token }), undefined, FORM);
  assert.equal(viaForm.status, 200, viaForm.text);
  const viaToken = await t.call('POST', '/api/oauth/token', form({ grant_type: 'refresh_token', refresh_token: viaForm.body.refresh_token }), undefined, FORM);
  assert.equal(viaToken.status, 200, viaToken.text);
  assert.equal((await t.call('GET', '/api/mail', undefined, viaToken.body.access_token)).status, 200);
});

test('refresh: missing or malformed fields are 400 (INVALID_INPUT, INVALID_ZID), a foreign machine is ZID_NOT_LINKED, unknown is INVALID_GRANT', async () => {
  const tok = await grant(t, owner.apiKey);
  const cases: [unknown, string][] = [
    [{}, 'INVALID_INPUT'],
    [{ zid: owner.zid }, 'INVALID_INPUT'],
    [{ refresh_token: '' }, 'INVALID_INPUT'],
    [{ refresh_token: 'nonsense' }, 'INVALID_INPUT'],
    [{ refresh_token: 42 }, 'INVALID_INPUT'],
    [{ refresh_token: tok.refresh_token, zid: 'Z123' }, 'INVALID_ZID'],
    [{ refresh_token: tok.refresh_token, zid: owner.zid.toLowerCase() }, 'INVALID_ZID'],
    [{ refresh_token: tok.refresh_token, zid: other.zid }, 'ZID_NOT_LINKED'],
    [{ refresh_token: 'svc_ort_' + 'A'.repeat(43) }, 'INVALID_GRANT'],
    [{ refresh_token: tok.refresh_token, grant_type: 'password' }, 'INVALID_INPUT'],
    [{ refresh_token: tok.refresh_token, scope: 'openid pages:write' }, 'INVALID_INPUT'],
    [{ refresh_token: tok.refresh_token, extra: 1 }, 'INVALID_INPUT'],
  ];
  for (const [body, code] of cases) {
    const r = await refresh(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
    assert.equal(r.body.ok, false);
    assert.equal(r.body.code, code, JSON.stringify(body));
    assert.equal(typeof r.body.error, 'string');
  }
  for (const raw of ['{"refresh_token":', '[1]', '"x"']) {
    const r = await t.call('POST', '/api/oauth/refresh', raw);
    assert.equal(r.status, 400, raw);
  }
  // none of these consumed the token
  assert.equal((await refresh({ refresh_token: tok.refresh_token, zid: owner.zid })).status, 200);
});

test('refresh may narrow the scope but never widen it', async () => {
  const tok = await grant(t, owner.apiKey, { scope: 'openid mail:read pages:read' });
  const narrowed = await refresh({ refresh_token: tok.refresh_token, scope: 'mail:read' });
  assert.equal(narrowed.status, 200);
  assert.equal(narrowed.body.scope, 'mail:read');
  assert.equal((await t.call('GET', '/api/pages', undefined, narrowed.body.access_token)).status, 403);
  assert.equal((await refresh({ refresh_token: narrowed.body.refresh_token, scope: 'mail:read pages:read' })).body.code, 'INVALID_INPUT');
});

test('a revoked refresh token is refused; reusing a rotated one revokes the whole family (RFC 9700 §4.14)', async () => {
  const a0 = await grant(t, owner.apiKey);
  const a1 = (await refresh({ refresh_token: a0.refresh_token })).body;
  const a2 = (await refresh({ refresh_token: a1.refresh_token })).body;
  assert.equal((await t.call('GET', '/api/mail', undefined, a2.access_token)).status, 200);
  // an attacker replays the first refresh token
  const reuse = await refresh({ refresh_token: a0.refresh_token });
  assert.equal(reuse.status, 400);
  assert.equal(reuse.body.code, 'INVALID_GRANT');
  // every token of the family is now refused, the newest included
  for (const at of [a0.access_token, a1.access_token, a2.access_token]) assert.equal((await t.call('GET', '/api/mail', undefined, at)).status, 401);
  assert.equal((await refresh({ refresh_token: a2.refresh_token })).body.code, 'INVALID_GRANT');
  const grants = (await t.call('GET', '/api/oauth/grants', undefined, owner.apiKey)).body.grants;
  assert.ok(grants.some((g: any) => g.revokeReason === 'refresh token reuse'));
});

test('50 concurrent refreshes of one refresh token: exactly one succeeds, then the family is revoked and every token refused', async () => {
  const tok = await grant(t, owner.apiKey);
  const results = await Promise.all(Array.from({ length: 50 }, () => refresh({ refresh_token: tok.refresh_token, zid: owner.zid })));
  const winners = results.filter((r) => r.status === 200);
  assert.equal(winners.length, 1, results.map((r) => r.status).join(','));
  for (const r of results.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'INVALID_GRANT');
  }
  const w = winners[0].body;
  // the losers were reuse: the family is revoked, the winner's fresh tokens included
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 401);
  assert.equal((await t.call('GET', '/api/mail', undefined, w.access_token)).status, 401);
  assert.equal((await refresh({ refresh_token: w.refresh_token })).body.code, 'INVALID_GRANT');
  assert.equal((await refresh({ refresh_token: tok.refresh_token })).body.code, 'INVALID_GRANT');
  const rows = await t.app.db.query<any>(
    `SELECT count(*)::int AS n, count(r.token_hash)::int AS revoked FROM oauth_tokens t LEFT JOIN oauth_tokens_revoked r ON r.token_hash = t.token_hash
      WHERE t.family_id = (SELECT family_id FROM oauth_tokens WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex'))`, [tok.refresh_token]);
  assert.equal(rows[0].n, 4); // the first pair and the winner's pair, nothing more was minted
  assert.equal(rows[0].revoked, 4);
});

test('access tokens are bearers for the machine\'s user operations, with scopes enforced; never for key operations', async () => {
  const tok = await grant(t, owner.apiKey, { scope: 'openid mail:read pages:write' });
  const me = await t.call('GET', '/api/mail', undefined, tok.access_token);
  assert.equal(me.status, 200);
  assert.equal(me.body.mailbox, `${owner.zid.toLowerCase()}@${t.app.config.mailDomain}`);
  const pub = await t.call('POST', '/api/pages', { title: 'via oauth', html: '<p>o</p>', pageSlug: 'oauth' }, tok.access_token);
  assert.equal(pub.status, 200);
  // scopes: no mail:write, no pages:read, no machine:read
  for (const [m, p, body] of [['POST', '/api/mail', { subject: 's', html: '<p>x</p>' }], ['GET', '/api/pages', undefined], ['GET', '/api/machines/me', undefined]] as const) {
    const r = await t.call(m, p, body, tok.access_token);
    assert.equal(r.status, 403, p);
    assert.equal(r.body.code, 'FORBIDDEN');
  }
  // 'key' operations need the machine key itself
  assert.equal((await t.call('POST', '/api/svc/protect', {}, tok.access_token)).status, 403);
  assert.equal((await t.call('POST', '/api/oauth/authorize/approve', { requestId: 'oar_x' }, tok.access_token)).status, 403);
  // a token of the owner only sees the owner's mailbox
  const mail = await t.call('POST', '/api/mail', { subject: 'o', html: '<p>x</p>' }, other.apiKey);
  assert.equal((await t.call('GET', `/api/mail/${mail.body.id}`, undefined, tok.access_token)).status, 404);
  // garbage bearers are 401
  for (const bad of ['svc_oat_' + 'A'.repeat(43), 'svc_oat_short', 'random-token']) assert.equal((await t.call('GET', '/api/mail', undefined, bad)).status, 401);
});

test('RFC 7009 revocation: an access token alone, or a refresh token with its family; unknown tokens still 200', async () => {
  const tok = await grant(t, owner.apiKey);
  const r1 = await t.call('POST', '/api/oauth/revoke', form({ token: tok.access_token, token_type_hint: 'access_token' }), undefined, FORM);
  assert.equal(r1.status, 200);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 401);
  const rot = await refresh({ refresh_token: tok.refresh_token });
  assert.equal(rot.status, 200, 'revoking an access token leaves the refresh token');
  const r2 = await t.call('POST', '/api/oauth/revoke', { token: rot.body.refresh_token });
  assert.equal(r2.status, 200);
  assert.equal((await t.call('GET', '/api/mail', undefined, rot.body.access_token)).status, 401);
  assert.equal((await refresh({ refresh_token: rot.body.refresh_token })).body.code, 'INVALID_GRANT');
  assert.equal((await t.call('POST', '/api/oauth/revoke', { token: 'svc_ort_' + 'B'.repeat(43) })).status, 200);
  assert.equal((await t.call('POST', '/api/oauth/revoke', { token: 'whatever' })).status, 200);
  assert.equal((await t.call('POST', '/api/oauth/revoke', {})).status, 400);
});

test('the owner can list grants and log a client out; another machine cannot (404)', async () => {
  const tok = await grant(t, owner.apiKey, { clientId: 'logout-client' });
  const grants = (await t.call('GET', '/api/oauth/grants', undefined, owner.apiKey)).body.grants;
  const g = grants.find((x: any) => x.clientId === 'logout-client' && !x.revokedAt);
  assert.ok(g);
  assert.equal((await t.call('DELETE', `/api/oauth/grants/${g.id}`, undefined, other.apiKey)).status, 404);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 200);
  assert.equal((await t.call('DELETE', `/api/oauth/grants/${g.id}`, undefined, owner.apiKey)).status, 200);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 401);
  assert.equal((await refresh({ refresh_token: tok.refresh_token })).body.code, 'INVALID_GRANT');
});

test('a grant dies with the owner key that approved it (machine recovery revokes every key)', async () => {
  const m = await t.machine('recover me');
  const tok = await grant(t, m.apiKey);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 200);
  const rec = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: m.recovery.equation, salt: m.recovery.salt });
  assert.equal(rec.status, 200);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 401);
  assert.equal((await refresh({ refresh_token: tok.refresh_token })).body.code, 'INVALID_GRANT');
});

test('tokens expire: access tokens after an hour, codes after two minutes, refresh tokens after 30 days', async () => {
  const m = await t.machine('clocked');
  const tok = await grant(t, m.apiKey);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 200);
  clock.advance(3601);
  assert.equal((await t.call('GET', '/api/mail', undefined, tok.access_token)).status, 401);
  const r = await refresh({ refresh_token: tok.refresh_token });
  assert.equal(r.status, 200);
  clock.advance(30 * 86400 + 1);
  assert.equal((await refresh({ refresh_token: r.body.refresh_token })).body.code, 'INVALID_GRANT');
  // an authorization code is good for 120 s
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({ client_id: 'c', redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
  const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
  const code = (await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, m.apiKey)).body.code;
  clock.advance(121);
  const late = await t.call('POST', '/api/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: 'c' });
  assert.equal(late.body.code, 'INVALID_GRANT');
  // and a pending authorization request after 10 minutes
  const auth2 = await t.call('GET', `/api/oauth/authorize?${q}`);
  clock.advance(601);
  assert.equal((await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth2.body.requestId }, m.apiKey)).status, 404);
});

test('token endpoint errors follow RFC 6749 §5.2: error is the OAuth error value, Cache-Control no-store', async () => {
  const r = await t.call('POST', '/api/oauth/token', form({ grant_type: 'password', username: 'x' }), undefined, FORM);
  assert.equal(r.status, 400); // unknown field
  const g = await t.call('POST', '/api/oauth/token', form({ grant_type: 'client_credentials' }), undefined, FORM);
  assert.equal(g.status, 400);
  assert.equal(g.body.error, 'unsupported_grant_type');
  assert.equal(g.body.code, 'INVALID_INPUT');
  assert.equal(g.headers['cache-control'], 'no-store');
  const m = await t.call('POST', '/api/oauth/token', form({ grant_type: 'authorization_code' }), undefined, FORM);
  assert.equal(m.body.error, 'invalid_request');
  const dup = await t.call('POST', '/api/oauth/token', 'grant_type=refresh_token&grant_type=refresh_token', undefined, FORM);
  assert.equal(dup.status, 400);
  const badZid = await t.call('POST', '/api/oauth/token', form({ grant_type: 'refresh_token', refresh_token: 'svc_ort_' + 'C'.repeat(43), zid: 'nope' }), undefined, FORM);
  assert.equal(badZid.body.code, 'INVALID_ZID');
});
