// Compute tokens are charged atomically (DESIGN §5): with 50 tokens left, 100 concurrent sealed
// calls seal exactly 50 and refuse 50 with 429 QUOTA_EXCEEDED (nothing sealed or charged for
// them), and the chain verifies. Runs on the store CI gives it (embedded, or PostgreSQL with
// DATABASE_URL); on PostgreSQL a second node shares the database and takes half the calls, so the
// charging is serialised by the database, not by one process's seal queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';

// One machine's 100 concurrent calls all reach the seal (issue 19's fair scheduling would queue
// them one at a time, 16 deep): many running jobs per machine, a deep queue, and a 1 s budget, so
// a call is admitted with 1 token left (a call must hold its budget's worth of tokens).
const ALL_AT_ONCE = { SVC_SOLVER_TIMEOUT_MS: '1000', SVC_MACHINE_CONCURRENCY: '32', SVC_MACHINE_QUEUE: '200' };

type Res = { status: number; body: any; headers: Record<string, any> };

/** 100 concurrent sealed calls: HTTP and MCP alternately, through `nodes` in turn. */
async function hundredCalls(nodes: TestNode[], apiKey: string): Promise<Res[]> {
  return Promise.all(Array.from({ length: 100 }, async (_, i): Promise<Res> => {
    const n = nodes[i % nodes.length];
    if ((i >> 1) % 2 === 0) return n.call('POST', '/api/svc/protect', { liveness: (i % 10) / 10 }, apiKey);
    const r = await n.tool('svc_protect', { liveness: (i % 10) / 10 }, apiKey);
    return { status: r.isError ? (r.body.code === 'QUOTA_EXCEEDED' ? 429 : 500) : 200, body: r.body, headers: {} };
  }));
}

async function checkOutcome(t: TestNode, m: { zid: string; apiKey: string }, results: Res[], chainBefore: number, receiptsBefore: number) {
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  assert.equal(ok.length, 50, `sealed: ${ok.length}, statuses: ${JSON.stringify(results.map((r) => r.status))}`);
  assert.equal(refused.length, 50);
  for (const r of refused) {
    assert.equal(r.body.ok, false);
    assert.equal(r.body.code, 'QUOTA_EXCEEDED');
    assert.equal(r.body.tokens.cost, 1);
  }
  for (const r of refused.filter((x) => Object.keys(x.headers).length)) assert.ok(Number(r.headers['retry-after']) > 0);
  // each sealed call saw a distinct remaining count: 49, 48, …, 0
  assert.deepEqual(ok.map((r) => r.body.tokens.remaining).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  // 50 distinct receipts on 50 consecutive chain positions
  assert.equal(new Set(ok.map((r) => r.body.receipt.id)).size, 50);
  assert.deepEqual(ok.map((r) => r.body.receipt.chain.seq).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => chainBefore + 1 + i));
  const v = (await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body;
  assert.equal(v.valid, true, JSON.stringify(v));
  assert.equal(v.length, chainBefore + 50);
  const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
  assert.equal(Number(n), receiptsBefore + 50);
  assert.equal((await t.call('GET', '/api/machines/me', undefined, m.apiKey)).body.tokens.remaining, 0);
  // nothing more can be sealed today
  assert.equal((await t.call('POST', '/api/svc/protect', {}, m.apiKey)).status, 429);
  assert.equal((await t.call('POST', '/api/svc/shift', { steps: 1 }, m.apiKey)).status, 429);
}

test('100 concurrent sealed calls on a machine with 50 tokens left: exactly 50 sealed, 50 refused, the chain verifies', async () => {
  const t = await testNode({ env: { SVC_TOKENS_PER_DAY: '60', ...ALL_AT_ONCE } });
  try {
    const m = await t.machine('quota');
    // spend 10 of the 60 first: 50 left
    assert.equal((await t.call('POST', '/api/svc/shift', { steps: 10 }, m.apiKey)).body.tokens.remaining, 50);
    const results = await hundredCalls([t], m.apiKey);
    // genesis, key.minted, the shift seal
    await checkOutcome(t, m, results, 3, 1);
  } finally { await t.close(); }
});

test('the same across two nodes sharing one PostgreSQL database', { skip: !process.env.DATABASE_URL && 'needs PostgreSQL (DATABASE_URL)' }, async () => {
  const a = await testNode({ env: { SVC_TOKENS_PER_DAY: '60', ...ALL_AT_ONCE } });
  const b = await testNode({ env: { SVC_TOKENS_PER_DAY: '60', ...ALL_AT_ONCE, SVC_DATABASE_SCHEMA: a.app.config.databaseSchema! } });
  try {
    const m = await a.machine('quota-shared');
    assert.equal((await b.call('POST', '/api/svc/shift', { steps: 10 }, m.apiKey)).body.tokens.remaining, 50);
    const results = await hundredCalls([a, b], m.apiKey);
    await checkOutcome(a, m, results, 3, 1);
    assert.equal((await b.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.valid, true);
  } finally { await b.close(); await a.close(); }
});

test('a multi-token call is refused whole when it does not fit, and charges nothing', async () => {
  const t = await testNode({ env: { SVC_TOKENS_PER_DAY: '10' } });
  try {
    const m = await t.machine('quota2');
    const r = await t.call('POST', '/api/svc/shift', { steps: 11 }, m.apiKey);
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 'QUOTA_EXCEEDED');
    assert.equal(r.body.tokens.remaining, 10);
    const ok = await t.call('POST', '/api/svc/shift', { steps: 10 }, m.apiKey);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.tokens.remaining, 0);
  } finally { await t.close(); }
});
