// Many nodes on one PostgreSQL database (issue 12): three node processes on loopback share a
// fresh schema and the seal secret; requests are spread across them round-robin, as a load
// balancer would. Runs only when DATABASE_URL is set (CI runs the suite on PostgreSQL too).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  startNode, stopNode, http, newMachine, readSse, schemaName, dropSchema, sleep, ADMIN_KEY,
  type NodeProc, type HttpResult,
} from './harness.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const SKIP = DATABASE_URL ? false : 'multi-node tests need PostgreSQL: set DATABASE_URL=postgres://… (CI does)';
const STALE_SECONDS = 3;

let nodes: NodeProc[] = [];
let schema = '';
let rr = 0;
/** the next node, round-robin */
const next = () => nodes[rr++ % nodes.length].url;
const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}): Promise<HttpResult> => http(next(), method, path, opts);

before(async () => {
  if (SKIP) return;
  schema = schemaName('multi');
  // the schema exists before the nodes start (they would race to create it)
  const pg = (await import('pg')).default as any;
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA "${schema}"`);
  await c.end();
  // 90 concurrent calls of one machine reach the seal on every node: many running jobs per machine,
  // a deep queue, and a 1 s budget (a call is admitted with 1 token left; issue 19)
  const env = { SVC_TOKENS_PER_DAY: '50', SVC_MESH_HEARTBEAT_MS: '500', SVC_MESH_STALE_SECONDS: String(STALE_SECONDS), SVC_SOLVER_TIMEOUT_MS: '1000', SVC_MACHINE_CONCURRENCY: '32', SVC_MACHINE_QUEUE: '200' };
  const started = await Promise.allSettled([0, 1, 2].map(() => startNode({ databaseUrl: DATABASE_URL, schema, env, readyTimeoutMs: 120_000 })));
  nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, { timeout: 300_000 });

after(async () => {
  await Promise.all(nodes.map((n) => stopNode(n)));
  if (!SKIP && schema) await dropSchema(DATABASE_URL!, schema);
});

test('/api/mesh on every node lists the three live nodes', { skip: SKIP }, async () => {
  const ids = nodes.map((n) => n.nodeId).sort();
  for (const n of nodes) {
    let got: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await http(n.url, 'GET', '/api/mesh');
      assert.equal(r.status, 200);
      got = r.body.nodes.map((x: any) => x.id).sort();
      if (got.length === 3) break;
      await sleep(250);
    }
    assert.deepEqual(got, ids);
    const self = (await http(n.url, 'GET', '/api/mesh')).body;
    assert.equal(self.node.id, n.nodeId);
    assert.equal(self.node.store, 'postgres');
  }
});

test('quotas charge exactly across nodes: 90 concurrent sealed calls with 50 tokens seal exactly 50', { skip: SKIP }, async () => {
  const m = await newMachine(next(), 'quota across nodes');
  const results = await Promise.all(Array.from({ length: 90 }, () => call('POST', '/api/svc/protect', { key: m.apiKey, body: { health: 'up' } })));
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  assert.equal(ok.length, 50, `sealed ${ok.length}; statuses ${JSON.stringify(results.map((r) => r.status))}`);
  assert.equal(refused.length, 40);
  for (const r of refused) assert.equal(r.body.code, 'QUOTA_EXCEEDED');
  assert.equal(new Set(ok.map((r) => r.body.receipt.id)).size, 50);
  // every remaining count from 49 down to 0 was handed out once
  assert.deepEqual(ok.map((r) => r.body.tokens.remaining).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  const v = await call('GET', '/api/chain/verify', { key: m.apiKey });
  assert.equal(v.body.valid, true);
  // nothing more is sealed on any node
  for (const n of nodes) assert.equal((await http(n.url, 'POST', '/api/svc/protect', { key: m.apiKey, body: { health: 'up' } })).status, 429);
});

test('each machine\'s chain stays one unbroken chain when three nodes append to it at once', { skip: SKIP }, async () => {
  const machines = await Promise.all([0, 1, 2].map((i) => newMachine(nodes[i].url, `chain ${i}`)));
  const results = await Promise.all(machines.flatMap((m) => Array.from({ length: 30 }, () =>
    call('POST', '/api/svc/protect', { key: m.apiKey, body: { health: 'up' } }).then((r) => ({ m, r })))));
  for (const { r } of results) assert.equal(r.status, 200, r.text);
  for (const m of machines) {
    const mine = results.filter((x) => x.m === m).map((x) => x.r.body.receipt.chain.seq).sort((a, b) => a - b);
    const first = mine[0];
    assert.deepEqual(mine, Array.from({ length: 30 }, (_, i) => first + i), 'sequence numbers are consecutive, none twice');
    for (const n of nodes) {
      const v = await http(n.url, 'GET', '/api/chain/verify', { key: m.apiKey });
      assert.equal(v.status, 200);
      assert.equal(v.body.valid, true, JSON.stringify(v.body));
      assert.equal(v.body.length, mine[29]);
    }
    // each receipt is readable through every node
    const any = results.find((x) => x.m === m)!.r.body.receipt.id;
    for (const n of nodes) assert.equal((await http(n.url, 'GET', `/api/receipts/${any}`, { key: m.apiKey })).status, 200);
  }
});

test('a key revoked through one node is refused by every node at once (key cache NOTIFY)', { skip: SKIP }, async () => {
  const m = await newMachine(next(), 'revoked across nodes');
  for (const n of nodes) assert.equal((await http(n.url, 'GET', '/api/machines/me', { key: m.apiKey })).status, 200);
  const r = await http(nodes[0].url, 'POST', `/api/admin/machines/${m.zid}/revoke-keys`, { key: ADMIN_KEY, body: {} });
  assert.equal(r.status, 200, r.text);
  for (const n of nodes) {
    let status = 0;
    for (let i = 0; i < 20; i++) {
      status = (await http(n.url, 'GET', '/api/machines/me', { key: m.apiKey })).status;
      if (status === 401) break;
      await sleep(100);
    }
    assert.equal(status, 401, `node ${n.nodeId} still accepts the revoked key`);
  }
});

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

test('a refresh token rotates exactly once when 30 refreshes race across three nodes', { skip: SKIP }, async () => {
  const owner = await newMachine(next(), 'oauth across nodes');
  const { verifier, challenge } = pkce();
  const redirect = 'https://client.example/callback';
  const q = new URLSearchParams({ client_id: 'scale-client', redirect_uri: redirect, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 's1', scope: 'openid mail:read' });
  // the ceremony itself hops nodes: authorize on one, approve on the next, exchange on the third
  const auth = await http(nodes[0].url, 'GET', `/api/oauth/authorize?${q}`, { headers: { accept: 'application/json' } });
  assert.equal(auth.status, 200, auth.text);
  const ok = await http(nodes[1].url, 'POST', '/api/oauth/authorize/approve', { key: owner.apiKey, body: { requestId: auth.body.requestId } });
  assert.equal(ok.status, 200, ok.text);
  const tok = await http(nodes[2].url, 'POST', '/api/oauth/token', {
    body: new URLSearchParams({ grant_type: 'authorization_code', code: ok.body.code, redirect_uri: redirect, code_verifier: verifier, client_id: 'scale-client' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(tok.status, 200, tok.text);
  // the access token minted on node 2 works on every node
  for (const n of nodes) assert.equal((await http(n.url, 'GET', '/api/mail', { key: tok.body.access_token })).status, 200);
  const races = await Promise.all(Array.from({ length: 30 }, () => call('POST', '/api/oauth/refresh', { body: { refresh_token: tok.body.refresh_token } })));
  const won = races.filter((r) => r.status === 200);
  assert.equal(won.length, 1, `statuses ${JSON.stringify(races.map((r) => r.status))}`);
  for (const r of races.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'INVALID_GRANT');
  }
  // the reuse revoked the family (RFC 9700 §4.14): the winner's new refresh token is refused too
  const after = await call('POST', '/api/oauth/refresh', { body: { refresh_token: won[0].body.refresh_token } });
  assert.equal(after.status, 400);
});

test('the observer feed reaches subscribers connected to any node (LISTEN/NOTIFY)', { skip: SKIP }, async () => {
  const m = await newMachine(nodes[0].url, 'observed across nodes');
  const globals = await Promise.all(nodes.map((n) => readSse(`${n.url}/api/observer/stream`)));
  const mine = await Promise.all(nodes.map((n) => readSse(`${n.url}/api/observer/stream`, { authorization: `Bearer ${m.apiKey}` })));
  try {
    // seal through each node in turn: every subscriber on every node sees all three
    const sealed: any[] = [];
    for (const n of nodes) {
      const r = await http(n.url, 'POST', '/api/svc/protect', { key: m.apiKey, body: { health: 'up' } });
      assert.equal(r.status, 200, r.text);
      sealed.push(r.body);
    }
    const hashes = sealed.map((s) => s.receipt.chain.hash);
    for (const [i, s] of mine.entries()) {
      const evs = (await s.until((e) => e.filter((x) => x.event === 'entry').length >= 3)).filter((x) => x.event === 'entry');
      assert.deepEqual(evs.map((e) => JSON.parse(e.data).hash), hashes, `machine feed on node ${i}`);
    }
    for (const [i, g] of globals.entries()) {
      const evs = await g.until((e) => hashes.every((h) => e.some((x) => x.event === 'entry' && JSON.parse(x.data).hash === h.slice(0, 12))));
      const ours = evs.filter((x) => x.event === 'entry' && JSON.parse(x.data).machine === m.slug);
      assert.ok(ours.length >= 3, `global feed on node ${i}`);
      for (const e of ours) assert.deepEqual(Object.keys(JSON.parse(e.data)).sort(), ['at', 'hash', 'kind', 'machine']);
    }
  } finally {
    for (const s of [...globals, ...mine]) s.close();
  }
});

test('stream events reach a subscriber connected to another node than the one ticking', { skip: SKIP }, async () => {
  const m = await newMachine(nodes[0].url, 'stream across nodes');
  const open = await http(nodes[0].url, 'POST', '/api/streams', { key: m.apiKey, body: { solver: 'protect', body: { health: 'up' }, ticks: 8 } });
  assert.equal(open.status, 200, open.text);
  const id = open.body.channel.id;
  assert.equal(open.body.channel.node, nodes[0].nodeId);
  const far = await readSse(`${nodes[2].url}/api/streams/${id}/events`, { authorization: `Bearer ${m.apiKey}` });
  const first = await far.until((e) => e.length >= 1, 30_000);
  // the channel still ticks on node 0 after node 2 has sent what was stored: every later event
  // can only reach node 2 through NOTIFY
  const st = await http(nodes[1].url, 'GET', `/api/streams/${id}`, { key: m.apiKey });
  assert.equal(st.body.channel.state, 'open', 'the channel ended before the far subscriber got its first event');
  const sentByThen = Number(st.body.channel.nextEventId);
  const evs = await far.until((e) => e.some((x) => x.event === 'end'), 30_000);
  far.close();
  assert.ok(evs.length > Math.max(first.length, sentByThen), `${evs.length} events, ${sentByThen} stored when the first arrived`);
  const ticks = evs.filter((x) => x.event === 'tick');
  assert.equal(ticks.length, 8, JSON.stringify(evs).slice(0, 600));
  assert.deepEqual(evs.map((x) => Number(x.id)), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  const v = await http(nodes[1].url, 'GET', '/api/chain/verify', { key: m.apiKey });
  assert.equal(v.body.valid, true);
});

test('/api/mesh drops a node that stops heartbeating (kill -9) and keeps the others', { skip: SKIP }, async () => {
  const victim = nodes[2];
  victim.kill('SIGKILL');
  await victim.exited;
  // the dead node's row stays (nothing deleted it) until it is older than the staleness window
  const deadline = Date.now() + (STALE_SECONDS + 10) * 1000;
  let ids: string[] = [];
  while (Date.now() < deadline) {
    ids = (await http(nodes[0].url, 'GET', '/api/mesh')).body.nodes.map((x: any) => x.id);
    if (!ids.includes(victim.nodeId)) break;
    await sleep(250);
  }
  assert.deepEqual(ids.sort(), [nodes[0].nodeId, nodes[1].nodeId].sort());
  assert.deepEqual((await http(nodes[1].url, 'GET', '/api/mesh')).body.nodes.map((x: any) => x.id).sort(), ids);
  // the survivors serve on
  const m = await newMachine(nodes[1].url, 'after the kill');
  assert.equal((await http(nodes[0].url, 'POST', '/api/svc/protect', { key: m.apiKey, body: { health: 'up' } })).status, 200);
  nodes = nodes.slice(0, 2);
});
