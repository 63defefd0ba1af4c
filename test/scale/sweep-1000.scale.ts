// Issue 27's sweep line at its own scale: a 1,000-run `epi` sweep (40 β × 25 γ) submitted to one of
// three node processes on one PostgreSQL; its runs spread over the three nodes; every run sealed
// (one receipt each, stored); each run's membership in the sweep receipt verifies against the
// sealed RFC 6962 root (the verifier here is written from RFC 6962 §2.1.1, apart from the node's
// prover); the sweep's table equals 1,000 synchronous calls `POST /api/svc/epi` with the same
// values, made afterwards on another machine. Part of `npm run test:scale` (CI, on PostgreSQL).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, stopNode, http, newMachine, schemaName, dropSchema, type NodeProc } from './harness.ts';
import { sweepInclusionProof } from '../../src/jobs/sweep.ts';
import { verifyMembership } from '../jobs/merkle-verify.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const SKIP = DATABASE_URL ? false : 'multi-node tests need PostgreSQL: set DATABASE_URL=postgres://… (CI does)';
const ENV = { SVC_SOLVER_THREADS: '2', SVC_TOKENS_PER_DAY: '1000000', SVC_SWEEP_CONCURRENCY: '6' };

let nodes: NodeProc[] = [];
let schema = '';
after(async () => {
  await Promise.all(nodes.map((n) => stopNode(n)));
  if (DATABASE_URL && schema) await dropSchema(DATABASE_URL, schema);
});



test('a 1,000-run epi sweep across three nodes: every run sealed, every membership verifies, the table equals 1,000 synchronous calls', { skip: SKIP, timeout: 1_200_000 }, async () => {
  schema = schemaName('sweep1000');
  for (let i = 0; i < 3; i++) nodes.push(await startNode({ databaseUrl: DATABASE_URL, schema, env: ENV, readyTimeoutMs: 240_000 }));
  const owner = await newMachine(nodes[0].url, 'sweep 1000');
  const betas = Array.from({ length: 40 }, (_, i) => Number((0.15 + i * 0.01).toFixed(2)));
  const gammas = Array.from({ length: 25 }, (_, i) => Number((0.04 + i * 0.004).toFixed(3)));
  const t0 = Date.now();
  const sw = await http(nodes[0].url, 'POST', '/api/jobs', { key: owner.apiKey, body: { tool: 'svc_epi', arguments: { days: 60 }, sweep: { beta: betas, gamma: gammas }, budget: { seconds: 5 } } });
  assert.equal(sw.status, 202, sw.text);
  assert.equal(sw.body.runs, 1000);
  let v = sw.body;
  while (!['succeeded', 'failed', 'cancelled'].includes(v.status)) v = (await http(nodes[1].url, 'GET', `/api/jobs/${sw.body.id}?wait=25`, { key: owner.apiKey, timeoutMs: 60_000 })).body;
  const sweepS = (Date.now() - t0) / 1000;
  assert.equal(v.status, 'succeeded', JSON.stringify(v).slice(0, 600));
  const res = v.response.body.result;
  assert.equal(res.runs, 1000);
  assert.equal(res.sealedRuns, 1000);
  assert.equal(res.table.length, 1000);

  const pg = (await import('pg')).default as any;
  const db = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path="${schema}"` });
  await db.connect();
  try {
    // spread over the nodes; one stored receipt per run, plus the sweep's own
    const byNode = (await db.query(`SELECT node, count(*)::int AS n FROM jobs WHERE parent_id = $1 GROUP BY node`, [sw.body.id])).rows;
    assert.ok(byNode.length === 3 && byNode.every((r: any) => r.n > 0), `runs per node: ${JSON.stringify(byNode)}`);
    const ids = res.table.map((r: any) => r.receipt);
    assert.equal(new Set(ids).size, 1000);
    assert.equal((await db.query(`SELECT count(*)::int AS n FROM receipts WHERE id = ANY($1)`, [ids])).rows[0].n, 1000);
    assert.equal((await db.query(`SELECT count(*)::int AS n FROM receipts WHERE zid = $1`, [owner.zid])).rows[0].n, 1001, 'the runs and the sweep, nothing twice');
    console.log(`# 1,000-run sweep in ${sweepS.toFixed(1)} s; runs per node ${byNode.map((r: any) => r.n).join(' / ')}`);
  } finally {
    await db.end();
  }

  // membership: every run's audit path leads to the sealed root; a neighbour's digest does not
  const digests: string[] = res.table.map((r: any) => r.digest);
  for (let i = 0; i < digests.length; i++) {
    const path = sweepInclusionProof(digests, i);
    assert.ok(verifyMembership(digests[i], i, 1000, path, res.merkleRoot), `run ${i}`);
    assert.ok(!verifyMembership(digests[(i + 1) % 1000], i, 1000, path, res.merkleRoot), `run ${i} with another digest`);
  }

  // the table equals 1,000 synchronous calls (another machine, four at a time over the three nodes)
  const caller = await newMachine(nodes[2].url, 'sweep 1000 sync');
  let next = 0;
  const t1 = Date.now();
  await Promise.all([0, 1, 2, 3].map(async (w) => {
    for (let i = next++; i < 1000; i = next++) {
      const row = res.table[i];
      assert.deepEqual(row.values, { beta: betas[Math.floor(i / 25)], gamma: gammas[i % 25] }, `row ${i}: β slowest`);
      const r = await http(nodes[w % 3].url, 'POST', '/api/svc/epi', { key: caller.apiKey, body: { days: 60, ...row.values } });
      assert.equal(r.status, 200, r.text);
      assert.equal(row.status, 'succeeded');
      assert.equal(row.value, r.body.value, `row ${i} value`);
      assert.equal(row.errorPct, r.body.precision.errorPct, `row ${i} errorPct`);
    }
  }));
  console.log(`# 1,000 synchronous calls in ${((Date.now() - t1) / 1000).toFixed(1)} s: the table equals them`);
  const chain = await http(nodes[1].url, 'GET', '/api/chain/verify', { key: owner.apiKey, timeoutMs: 120_000 });
  assert.equal(chain.body.valid, true, chain.text);
});
