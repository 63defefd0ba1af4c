// The fuzzer in CI (issue 12): a fixed seed and a small count; `npm run fuzz` runs 20,000+.
// Every operation gets requests generated from its own JSON Schema and mutations of valid ones;
// no answer may be a 500, none may hang, none may show machine A's data to machine B.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';
import { setUpTenants, fuzzNode, FUZZ_NODE_ENV } from './fuzz-lib.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 1287);
const COUNT = Number(process.env.FUZZ_COUNT ?? 1500);

test(`fuzzing every operation (seed ${SEED}, ${COUNT} requests): no 500, no hang, no cross-tenant read`, { timeout: 300_000 }, async () => {
  const t = await testNode({ env: FUZZ_NODE_ENV });
  try {
    const tenants = await setUpTenants(t);
    const stats = await fuzzNode(t, tenants, { seed: SEED, requests: COUNT, concurrency: 4, timeoutMs: 30_000 });
    const summary = `${stats.requests} requests over ${stats.opsHit}/${stats.operations} operations in ${stats.seconds.toFixed(1)} s; statuses ${JSON.stringify(stats.byStatus)}`;
    assert.deepEqual(stats.findings.slice(0, 5).map((f) => ({ ...f, request: { ...f.request, body: f.request.body?.slice(0, 300) } })), [], summary);
    assert.equal(stats.requests, COUNT);
    // every operation was exercised
    assert.equal(stats.opsHit, stats.operations, summary);
  } finally {
    await t.close();
  }
});
