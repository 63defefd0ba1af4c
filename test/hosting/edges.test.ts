// Edges of the node under hostile input (issue 33 item 4): client registration limited per network
// prefix and node-wide; redirect URIs as RFC 8252 and OAuth 2.1 ask; a failed code exchange burns
// the code; numeric query parameters are plain decimal; the witness takes C2SP extension lines and
// refuses a second signature by one key; JSON-RPC ids longer than 256 characters are -32600.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, freePort, type TestNode } from '../helpers.ts';
import { pkce, form, FORM } from './oauth-helpers.ts';
import { addressPrefix } from '../../src/core/net.ts';
import { checkRedirectUri } from '../../src/hosting/oauth.ts';
import { REGISTRATIONS_PER_HOUR_PREFIX, REGISTRATIONS_PER_HOUR_NODE } from '../../src/ops/oauth.ts';
import { checkpointText, ed25519Raw, parseNote, signNote } from '../../src/core/tlog.ts';
import { consistencyProof, logState } from '../../src/services/tlog.ts';
import { MODERN } from '../mcp/client.ts';

let t: TestNode;
let owner: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  t = await testNode();
  owner = await t.machine('edges owner');
});
after(async () => { await t.close(); });

test('an address counts as its network: an IPv4 /24, an IPv6 /64, a mapped IPv4 as IPv4', () => {
  assert.equal(addressPrefix('127.0.0.1'), '127.0.0.0/24');
  assert.equal(addressPrefix('127.0.0.77'), '127.0.0.0/24');
  assert.equal(addressPrefix('::ffff:127.0.0.9'), '127.0.0.0/24');
  assert.equal(addressPrefix('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressPrefix('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(addressPrefix('::1'), '0:0:0:0::/64');
  assert.equal(addressPrefix('fe80::1%eth0'), 'fe80:0:0:0::/64');
});

test('redirect URIs: loopback only as 127.0.0.1 or [::1], no numeric-host aliases, private-use schemes in reverse-domain form', () => {
  for (const ok of ['https://client.example/cb', 'http://127.0.0.1:4321/cb', 'http://[::1]:8080/cb', 'com.example.app:/oauth', 'net.example.tool:/cb', 'https://bücher.example/cb']) {
    assert.equal(checkRedirectUri(ok), ok, ok);
  }
  for (const bad of ['http://2130706433/', 'http://0x7f000001/', 'http://127.1/cb', 'http://0177.0.0.1/cb', 'http://127.0.0.1./cb', 'https://2130706433/cb',
    'http://[0:0:0:0:0:0:0:1]/cb', 'http://localhost/cb', 'http://example.com/cb', 'a.b:', 'a.b:/cb', 'app:/cb', 'javascript:alert(1)', 'x.y.z:/cb', 'com.:/cb']) {
    assert.throws(() => checkRedirectUri(bad), /redirect_uri/, bad);
  }
});

test('registration is refused for a numeric alias and a short private-use scheme, with the RFC 7591 error', async () => {
  for (const uri of ['http://2130706433/', 'http://0x7f000001/', 'a.b:', 'http://localhost/cb']) {
    const r = await t.call('POST', '/api/oauth/register', { redirect_uris: [uri] }, undefined, { 'x-test-ip': '10.9.0.1' });
    assert.equal(r.status, 400, uri);
    assert.equal(r.body.error, 'invalid_redirect_uri', uri);
  }
});

test('client registration is limited per /24 (every alias of one host counts) and node-wide', async () => {
  // refused registrations count too (the test above made some): start from what the node counted
  const [{ n: before }] = await t.app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM rate_events WHERE bucket = 'oauth-register:*'`);
  const reg = (ip: string) => t.call('POST', '/api/oauth/register', { redirect_uris: ['https://client.example/cb'] }, undefined, { 'x-test-ip': ip });
  // 30 registrations from 30 different addresses of one /24 (a loopback alias range, say)
  for (let i = 0; i < REGISTRATIONS_PER_HOUR_PREFIX; i++) assert.equal((await reg(`10.1.1.${i + 1}`)).status, 201);
  const next = await reg('10.1.1.200');
  assert.equal(next.status, 429);
  assert.equal(next.body.code, 'RATE_LIMITED');
  // an IPv6 /64: every address in it is the same subscriber
  for (let i = 0; i < REGISTRATIONS_PER_HOUR_PREFIX; i++) assert.equal((await reg(`2001:db8:5:6::${(i + 1).toString(16)}`)).status, 201);
  assert.equal((await reg('2001:db8:5:6:ffff::9')).status, 429);
  // another network is not affected ...
  assert.equal((await reg('10.1.2.1')).status, 201);
  // ... until the node's own limit: many networks together
  let n = Number(before) + 2 * REGISTRATIONS_PER_HOUR_PREFIX + 1;
  let refused = null as any;
  for (let net = 3; n < REGISTRATIONS_PER_HOUR_NODE + 5 && !refused; net++) {
    for (let i = 0; i < 20 && !refused; i++) {
      const r = await reg(`10.2.${net}.${i + 1}`);
      if (r.status === 429) refused = r; else { assert.equal(r.status, 201); n++; }
    }
  }
  assert.ok(refused, 'the node-wide limit refuses');
  assert.equal(n, REGISTRATIONS_PER_HOUR_NODE);
  assert.match(refused.body.error_description ?? refused.body.error ?? '', /on this node|too many/);
});

test('a failed code exchange burns the code: the right verifier afterwards is refused', async () => {
  const REDIRECT = 'https://client.example/callback';
  for (const wrong of ['verifier', 'redirect', 'client']) {
    const { verifier, challenge } = pkce();
    const q = new URLSearchParams({ client_id: 'cx', redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'openid' });
    const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
    const { code } = (await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, owner.apiKey)).body;
    const ex = (f: Record<string, string>) => t.call('POST', '/api/oauth/token', form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: 'cx', ...f }), undefined, FORM);
    const bad = await ex(wrong === 'verifier' ? { code_verifier: pkce().verifier } : wrong === 'redirect' ? { redirect_uri: 'https://client.example/other' } : { client_id: 'someone-else' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_grant');
    const again = await ex({});
    assert.equal(again.status, 400, `${wrong}: ${again.text}`);
    assert.equal(again.body.error, 'invalid_grant');
    assert.match(again.body.error_description, /used|spent/);
  }
});

test('numeric query parameters are plain decimal: old=0x1, 1e0, 00001, +1, " 1" are 400; 1 is 1', async () => {
  const m = owner;
  for (let i = 0; i < 3; i++) await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey);
  const st = await logState(t.app.db);
  assert.ok(st.size >= 2);
  const good = await t.call('GET', `/log/consistency?old=1&new=${st.size}`);
  assert.equal(good.status, 200, good.text);
  for (const old of ['0x1', '1e0', '00001', '+1', '%201', '1.0', '-1', '0b1', '1_0', '１']) {
    const r = await t.call('GET', `/log/consistency?old=${old}&new=${st.size}`);
    assert.equal(r.status, 400, `old=${old}: ${r.text}`);
    assert.equal(r.body.code, 'INVALID_INPUT');
    assert.match(r.body.error, /plain decimal/);
  }
  // the same rule for every operation's numeric query parameter (here a list's limit)
  const list = await t.call('GET', '/api/observer?limit=1e1', undefined, m.apiKey);
  assert.equal(list.status, 400, list.text);
  assert.equal((await t.call('GET', '/api/observer?limit=10', undefined, m.apiKey)).status, 200);
});

test('JSON-RPC ids longer than 256 characters are -32600 before anything runs; 256 is answered', async () => {
  const rpcCall = (id: unknown) => t.call('POST', '/api/mcp', { jsonrpc: '2.0', id, method: 'server/discover', params: {} }, owner.apiKey, {
    accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN,
  });
  const long = await rpcCall('x'.repeat(200_000));
  assert.equal(long.status, 400);
  assert.equal(long.body.error.code, -32600);
  assert.equal(long.body.id, null);
  assert.ok(long.text.length < 1000, 'the id is not echoed');
  const edge = await rpcCall('y'.repeat(257));
  assert.equal(edge.body.error.code, -32600);
  const fine = await rpcCall('z'.repeat(256));
  assert.notEqual(fine.body?.error?.code, -32600, fine.text.slice(0, 300));
});

test('the witness cosigns a checkpoint with C2SP extension lines and refuses a second signature line by one key', async () => {
  const port = await freePort();
  const witUrl = `http://127.0.0.1:${port}`;
  const logUrl = await t.listen();
  const wit = await testNode({ env: { SVC_WITNESS_OF: logUrl, SVC_BASE_URL: witUrl } });
  try {
    await wit.http.listen({ port, host: '127.0.0.1' });
    const post = (body: string) => fetch(`${witUrl}/add-checkpoint`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    const st = await logState(t.app.db);
    const origin = t.app.logOrigin;
    const key = t.app.logKey;
    // first contact: the witness pins the log and cosigns from size 0
    const plain = signNote(checkpointText(origin, st.size, st.root), origin, key.privateKey, ed25519Raw(key.publicKey));
    const first = await post(`old 0\n\n${plain}`);
    assert.equal(first.status, 200, await first.clone().text());
    // the same tree with an extension line (c2sp.org/tlog-checkpoint: opaque lines after the root)
    const extText = checkpointText(origin, st.size, st.root) + 'ext/v1 something opaque\n';
    const ext = signNote(extText, origin, key.privateKey, ed25519Raw(key.publicKey));
    const r = await post(`old ${st.size}\n\n${ext}`);
    assert.equal(r.status, 200, await r.clone().text());
    const line = await r.text();
    assert.match(line, /^\u2014 \S+ [A-Za-z0-9+/]+=*\n$/);
    // a duplicated signature line: refused, nothing cosigned
    const sigLine = parseNote(plain)!.signatures[0].line;
    const dup = await post(`old ${st.size}\n\n${plain}${sigLine}`);
    assert.equal(dup.status, 400);
    assert.match(await dup.text(), /two signature lines/);
    // unused import guard: a consistency proof helper is available for later sizes
    assert.ok(Array.isArray(await consistencyProof(t.app.db, 1, st.size)));
  } finally { await wit.close(); }
});
