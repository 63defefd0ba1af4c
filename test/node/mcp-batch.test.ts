// Issue 19: a single JSON-RPC POST may not carry an unbounded batch. At most 10 messages: a larger
// batch is refused whole (HTTP 400, JSON-RPC -32600) and none of it runs; under a protocol version
// without batches (all but 2025-03-26) every batch is refused; each call of an accepted batch counts
// against every limit on its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let base: string;
before(async () => { t = await testNode(); base = await t.listen(); });
after(async () => { await t.close(); });

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** JSON-RPC messages of a response: a JSON body, or the data lines of an SSE one. */
async function messages(r: Response): Promise<any[]> {
  const text = await r.text();
  if ((r.headers.get('content-type') ?? '').includes('application/json')) {
    const j = JSON.parse(text);
    return Array.isArray(j) ? j : [j];
  }
  return text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
}

/** An initialized session for `protocolVersion`, with `key` as the bearer of every request. */
async function session(protocolVersion: string, key: string) {
  const headers = { ...HEADERS, authorization: `Bearer ${key}` };
  const init = await fetch(new URL('/api/mcp', base), {
    method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'batch', version: '1' } } }),
  });
  assert.equal(init.status, 200);
  const [res] = await messages(init);
  assert.equal(res.result.protocolVersion, protocolVersion);
  const sid = init.headers.get('mcp-session-id')!;
  const h = { ...headers, 'mcp-session-id': sid };
  const ack = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(ack.status, 202);
  return (body: unknown, extra: Record<string, string> = {}) => fetch(new URL('/api/mcp', base), { method: 'POST', headers: { ...h, ...extra }, body: JSON.stringify(body) });
}

const spinUp = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'svc_spin_up', arguments: { displayName: `batch ${id}` } } });

async function machinesOf(demo: string): Promise<number> {
  const { createHash } = await import('node:crypto');
  const [{ n }] = await t.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM machines WHERE family = $1', [createHash('sha256').update(demo).digest('hex')]);
  return Number(n);
}

test('an 11-call batch is refused whole (400, -32600) and runs none of its calls', async () => {
  const demo = await t.demoKey();
  const post = await session('2025-03-26', demo);
  const r = await post(Array.from({ length: 11 }, (_, i) => spinUp(i + 1)));
  assert.equal(r.status, 400);
  const [err] = await messages(r);
  assert.equal(err.jsonrpc, '2.0');
  assert.equal(err.error.code, -32600);
  assert.match(err.error.message, /at most 10 messages \(this one has 11\); none of them was run/);
  assert.equal(await machinesOf(demo), 0, 'no call of the refused batch ran');
  // an empty batch is not a request either
  const empty = await post([]);
  assert.equal(empty.status, 400);
  assert.equal((await messages(empty))[0].error.code, -32600);
});

test('each call of an accepted batch counts on its own: four spin-ups with one demo key make three machines', async () => {
  const demo = await t.demoKey();
  const post = await session('2025-03-26', demo);
  const r = await post([1, 2, 3, 4].map(spinUp));
  assert.equal(r.status, 200);
  const out = (await messages(r)).sort((a, b) => a.id - b.id);
  assert.equal(out.length, 4);
  // a tool result's text block is the operation's JSON body (errors carry no structuredContent)
  const bodies = out.map((m) => JSON.parse(m.result.content[0].text));
  assert.equal(bodies.filter((b) => b.ok === true).length, 3);
  const refused = out.filter((m) => m.result.isError);
  assert.equal(refused.length, 1);
  assert.equal(JSON.parse(refused[0].result.content[0].text).code, 'QUOTA_EXCEEDED');
  assert.equal(await machinesOf(demo), 3);
  // ten calls is the most a batch carries
  const ten = await post(Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'svc_pulse', arguments: {} } })));
  assert.equal(ten.status, 200);
  assert.equal((await messages(ten)).length, 10);
});

test('protocol versions without batches refuse every batch', async () => {
  const demo = await t.demoKey();
  for (const version of ['2025-06-18', '2025-11-25']) {
    const post = await session(version, demo);
    const r = await post([spinUp(1), spinUp(2)]);
    assert.equal(r.status, 400, version);
    const [err] = await messages(r);
    assert.equal(err.error.code, -32600);
    assert.match(err.error.message, new RegExp(`protocol version ${version} has no JSON-RPC batches`));
    // a single call still works
    const one = await post(spinUp(3));
    assert.equal(one.status, 200);
    const [res] = await messages(one);
    assert.equal(JSON.parse(res.result.content[0].text).ok, true);
  }
  // the stateless 2026-07-28 era has no batches either
  const modern = await fetch(new URL('/api/mcp', base), {
    method: 'POST', headers: { ...HEADERS, authorization: `Bearer ${demo}`, 'mcp-protocol-version': '2026-07-28' },
    body: JSON.stringify([spinUp(1), spinUp(2)]),
  });
  assert.equal(modern.status, 400);
  assert.equal((await messages(modern))[0].error.code, -32600);
  // on a 2025-03-26 session, a request that says it speaks a later version is held to it
  const post = await session('2025-03-26', await t.demoKey());
  const r = await post([spinUp(1)], { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(r.status, 400);
  assert.equal(await machinesOf(demo), 2);
});
