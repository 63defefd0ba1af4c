// Sign-in for MCP clients (issue 21 item 3): protected resource metadata (RFC 9728), a Bearer
// challenge on every 401, authorization server metadata (RFC 8414) with dynamic client
// registration (RFC 7591), and the compute scope. The SDK v2 client's own OAuth flow registers,
// is approved by the machine owner, receives a token and calls svc_heat, charged to the owner's
// machine; once the owner revokes the grant the token is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { testNode, freePort, type TestNode } from '../helpers.ts';
import { grant, pkce, form, FORM } from '../hosting/oauth-helpers.ts';
import { rpc, envelope, MODERN } from './client.ts';

let t: TestNode;
let base: string;
let owner: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  // the node's issuer and resource URLs must be the address the client reaches
  const port = await freePort();
  t = await testNode({ env: { SVC_BASE_URL: `http://127.0.0.1:${port}` } });
  base = await t.listen(port);
  owner = await t.machine('oauth owner');
});
after(async () => { await t.close(); });

/** An OAuth client provider as an MCP host keeps one: registration, tokens, PKCE verifier and
 * discovery state in memory; the "browser" is the test, which records the authorization URL. */
class MemoryProvider implements OAuthClientProvider {
  redirectUrl = 'http://127.0.0.1:9/callback';
  clientMetadata = { client_name: 'svc test agent', redirect_uris: [this.redirectUrl] };
  info?: any; saved?: any; verifier?: string; discovery?: any; authorizationUrl?: URL; lastState?: string;
  clientInformation() { return this.info; }
  saveClientInformation(info: any) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: any) { this.saved = tokens; }
  state() { return (this.lastState = 'st-' + Math.random().toString(36).slice(2)); }
  saveDiscoveryState(s: any) { this.discovery = s; }
  discoveryState() { return this.discovery; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(v: string) { this.verifier = v; }
  codeVerifier() { return this.verifier!; }
  invalidateCredentials(scope: string) { if (scope === 'tokens' || scope === 'all') this.saved = undefined; }
}

const mcpUrl = () => new URL('/api/mcp', base);
async function connectWith(provider: MemoryProvider) {
  const client = new Client({ name: 'svc-oauth-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
}
const tokensLeft = async () => {
  const me = (await t.call('GET', '/api/machines/me', undefined, owner.apiKey)).body;
  return me.tokens?.remaining ?? me.tokensLeft;
};

test('discovery: protected resource metadata, authorization server metadata with registration, the compute scope', async () => {
  const prm = await t.call('GET', '/.well-known/oauth-protected-resource');
  assert.equal(prm.status, 200);
  assert.equal(prm.body.resource, base);
  assert.deepEqual(prm.body.authorization_servers, [base]);
  assert.ok(prm.body.scopes_supported.includes('compute') && prm.body.scopes_supported.includes('machine:read'));
  assert.deepEqual(prm.body.bearer_methods_supported, ['header']);
  const as = await t.call('GET', '/.well-known/oauth-authorization-server');
  assert.equal(as.body.issuer, base);
  assert.equal(as.body.registration_endpoint, `${base}/api/oauth/register`);
  assert.ok(as.body.scopes_supported.includes('compute'));
  // the authorize endpoint says what compute grants
  const { challenge } = pkce();
  const q = new URLSearchParams({ client_id: 'c', redirect_uri: 'https://client.example/cb', response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'compute', resource: base });
  const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
  assert.equal(auth.status, 200, auth.text);
  assert.match(auth.body.asks[0].grants, /sealed computations/);
  // a resource that is not this node is refused (RFC 8707 invalid_target)
  q.set('resource', 'https://elsewhere.example/api/mcp');
  const other = await t.call('GET', `/api/oauth/authorize?${q}`);
  assert.equal(other.status, 400);
});

test('dynamic client registration (RFC 7591): 201 with a client_id; a registered client keeps to its redirect URIs', async () => {
  const r = await t.call('POST', '/api/oauth/register', { client_name: 'agent', redirect_uris: ['http://127.0.0.1:7777/cb'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic', unknown_field: 1 });
  assert.equal(r.status, 201, r.text);
  assert.match(r.body.client_id, /^svc_oc_/);
  assert.equal(r.body.token_endpoint_auth_method, 'none');
  assert.deepEqual(r.body.redirect_uris, ['http://127.0.0.1:7777/cb']);
  assert.equal(r.body.unknown_field, undefined);
  assert.equal(r.body.client_secret, undefined);
  const bad = await t.call('POST', '/api/oauth/register', { redirect_uris: ['http://attacker.example/cb'] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'invalid_redirect_uri');
  const { challenge } = pkce();
  const q = (redirect: string, client = r.body.client_id) => new URLSearchParams({ client_id: client, redirect_uri: redirect, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
  assert.equal((await t.call('GET', `/api/oauth/authorize?${q('http://127.0.0.1:7777/cb')}`)).status, 200);
  assert.equal((await t.call('GET', `/api/oauth/authorize?${q('http://127.0.0.1:8888/other')}`)).status, 400);
  assert.equal((await t.call('GET', `/api/oauth/authorize?${q('http://127.0.0.1:7777/cb', 'svc_oc_' + 'x'.repeat(22))}`)).status, 400);
});

test('the SDK client signs in: registers, is approved by the owner, receives a token, calls svc_heat charged to the owner; refused once revoked', async () => {
  const provider = new MemoryProvider();
  const first = await connectWith(provider); // discovery needs no key
  try {
    // a solver needs a key: 401 → the SDK discovers, registers and sends the owner to authorize
    await assert.rejects(first.client.callTool({ name: 'svc_heat', arguments: {} }), (e) => e instanceof UnauthorizedError);
  } finally { await first.client.close().catch(() => {}); }
  assert.match(provider.info.client_id, /^svc_oc_/, 'registered through RFC 7591');
  const url = provider.authorizationUrl!;
  assert.equal(url.origin + url.pathname, `${base}/api/oauth/authorize`);
  assert.equal(url.searchParams.get('scope'), 'compute machine:read');
  assert.equal(url.searchParams.get('resource'), base);
  // the owner sees the request and approves it with the machine key
  const pending = await t.call('GET', url.pathname + url.search);
  assert.equal(pending.status, 200, pending.text);
  const approved = await t.call('POST', '/api/oauth/authorize/approve', { requestId: pending.body.requestId }, owner.apiKey);
  assert.equal(approved.status, 200, approved.text);
  const callback = new URL(approved.body.redirectUrl);
  assert.equal(callback.searchParams.get('state'), provider.lastState);
  // the client finishes: iss checked, code exchanged for tokens
  const finishing = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await finishing.finishAuth(callback.searchParams);
  assert.match(provider.saved.access_token, /^svc_oat_/);
  assert.equal(provider.saved.scope, 'compute machine:read');

  const before = await tokensLeft();
  const { client } = await connectWith(provider);
  try {
    const heat: any = await client.callTool({ name: 'svc_heat', arguments: {} });
    assert.equal(heat.isError, undefined, JSON.stringify(heat.content));
    assert.equal(heat.structuredContent.keyPrefix, provider.saved.access_token.slice(0, 16));
    assert.equal(await tokensLeft(), before - 1, 'charged to the machine that granted the token');
    // the receipt is the owner's: readable with machine:read, and listed on the owner's chain
    const read = await client.readResource({ uri: heat.content[1].uri });
    assert.equal(JSON.parse((read.contents[0] as any).text).receipt.id, heat.structuredContent.receipt.id);
    const mine = await t.call('GET', `/api/receipts/${heat.structuredContent.receipt.id}`, undefined, owner.apiKey);
    assert.equal(mine.status, 200);
    // key-only operations still need the machine key itself
    const spin: any = await client.callTool({ name: 'svc_contract_list', arguments: {} });
    assert.equal(spin.isError, true);
  } finally { await client.close(); }

  // the owner logs the client out: every token of the grant is refused from now on
  const grants = await t.call('GET', '/api/oauth/grants', undefined, owner.apiKey);
  const g = grants.body.grants.find((x: any) => x.clientId === provider.info.client_id && !x.revokedAt);
  assert.ok(g, JSON.stringify(grants.body));
  assert.equal((await t.call('DELETE', `/api/oauth/grants/${g.id}`, undefined, owner.apiKey)).status, 200);
  const raw = await rpc(base, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'svc_heat', arguments: {}, _meta: envelope() } },
    { authorization: `Bearer ${provider.saved.access_token}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'svc_heat' });
  assert.equal(raw.status, 401);
  assert.match(raw.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  assert.equal((await t.call('POST', '/api/svc/heat', {}, provider.saved.access_token)).status, 401);
  // the SDK client, holding the revoked tokens, is refused at once (a revoked bearer is a 401 on
  // any request), cannot refresh them (the grant is gone) and asks for a new sign-in
  provider.authorizationUrl = undefined;
  const again = new Client({ name: 'svc-oauth-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await assert.rejects(again.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })), (e) => e instanceof UnauthorizedError);
  await again.close().catch(() => {});
  assert.ok(provider.authorizationUrl, 'sent back to authorize');
  assert.equal(provider.saved, undefined, 'the revoked tokens were dropped');
  assert.equal(await tokensLeft(), before - 1, 'nothing charged after the revocation');
});

test('a token without compute runs no solver: 403 insufficient_scope over MCP and HTTP', async () => {
  const tok = await grant(t, owner.apiKey, { scope: 'openid machine:read' });
  const h = { authorization: `Bearer ${tok.access_token}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'svc_heat' };
  const r = await rpc(base, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_heat', arguments: {}, _meta: envelope() } }, h);
  assert.equal(r.status, 403);
  assert.equal(r.message.requiredScope, 'compute');
  assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope", scope="compute", resource_metadata="/);
  const http = await t.call('POST', '/api/svc/heat', {}, tok.access_token);
  assert.equal(http.status, 403);
  assert.match(http.headers['www-authenticate'], /insufficient_scope/);
  // with compute it runs, over HTTP too
  const compute = await grant(t, owner.apiKey, { scope: 'compute' });
  const ok = await t.call('POST', '/api/svc/quant', {}, compute.access_token);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.keyPrefix, compute.access_token.slice(0, 16));
  // the token endpoint accepts the resource indicator of this node and refuses another
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({ client_id: 'rc', redirect_uri: 'https://client.example/callback', response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'compute' });
  const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
  const code = (await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, owner.apiKey)).body.code;
  const wrong = await t.call('POST', '/api/oauth/token', form({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback', code_verifier: verifier, client_id: 'rc', resource: 'https://elsewhere.example' }), undefined, FORM);
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error, 'invalid_target');
  const right = await t.call('POST', '/api/oauth/token', form({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback', code_verifier: verifier, client_id: 'rc', resource: `${base}/api/mcp` }), undefined, FORM);
  assert.equal(right.status, 200, right.text);
});
