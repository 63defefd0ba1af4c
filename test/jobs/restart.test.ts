// A lone node on the embedded store killed with SIGKILL while it runs a job (issue 27, docs/jobs.md
// "Leases"): restarted on the same data directory, it takes the job again once its heartbeat lease
// has expired (within 30 s of the restart), runs it from the start, and the job succeeds once,
// with one receipt.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, http, newMachine, sleep, type NodeProc } from '../scale/harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-jobs-restart-'));
let node: NodeProc | null = null;
after(async () => {
  if (node) { node.kill('SIGKILL'); await node.exited; }
  rmSync(dir, { recursive: true, force: true });
});

// The node here is always on the embedded store (a data directory): the PostgreSQL pass of the suite
// would run the very same thing again, so it runs in the embedded pass only; on PostgreSQL, kill -9
// is test/scale/jobs-cluster.scale.ts (three nodes, 30 jobs).
const SKIP = process.env.DATABASE_URL ? 'the embedded store\'s restart runs in the embedded pass (this pass has DATABASE_URL: kill -9 on PostgreSQL is test/scale/jobs-cluster.scale.ts)' : false;

test('the embedded store: a node killed with SIGKILL while running a job takes it again after its restart, and seals it once', { timeout: 240_000, skip: SKIP }, async () => {
  const env = { SVC_SOLVER_THREADS: '2' };
  node = await startNode({ dataDir: dir, env });
  const m = await newMachine(node.url, 'restart');
  const r = await http(node.url, 'POST', '/api/jobs', { key: m.apiKey, body: { tool: 'svc_gauge', arguments: { L: 32, sweeps: 6000, therm: 0 }, budget: { seconds: 120 } } });
  assert.equal(r.status, 202, r.text);
  let v = r.body;
  for (let i = 0; i < 600 && !(v.status === 'running' && v.progress); i++) { await sleep(100); v = (await http(node.url, 'GET', `/api/jobs/${r.body.id}`, { key: m.apiKey })).body; }
  assert.equal(v.status, 'running');
  node.kill('SIGKILL');
  await node.exited;
  node = await startNode({ dataDir: dir, env, port: node.port });
  const readyAt = Date.now();
  let retakenMs = -1;
  for (;;) {
    v = (await http(node.url, 'GET', `/api/jobs/${r.body.id}`, { key: m.apiKey })).body;
    if (retakenMs < 0 && (v.attempts >= 2 || v.status === 'succeeded')) retakenMs = Date.now() - readyAt;
    if (['succeeded', 'failed', 'cancelled'].includes(v.status)) break;
    if (Date.now() - readyAt > 120_000) break;
    await sleep(200);
  }
  console.log(`# taken again ${retakenMs} ms after the restarted node was ready`);
  assert.ok(retakenMs >= 0 && retakenMs < 30_000, `taken again after ${retakenMs} ms`);
  assert.equal(v.status, 'succeeded', JSON.stringify(v).slice(0, 400));
  assert.equal(v.attempts, 2);
  // charged once: what its one receipt says (the seal and its worker time past the first second)
  assert.equal(v.tokens.charged, v.response.body.tokens.cost);
  const receipts = (await http(node.url, 'GET', '/api/folders/default/receipts', { key: m.apiKey })).body;
  const ids = (receipts.receipts ?? receipts.items ?? []).map((x: any) => x.id ?? x.receipt?.id);
  assert.deepEqual(ids.filter((x: string) => x === v.response.body.receipt.id), [v.response.body.receipt.id]);
  assert.equal(ids.length, 1, JSON.stringify(receipts).slice(0, 300));
  assert.equal((await http(node.url, 'GET', '/api/chain/verify', { key: m.apiKey })).body.valid, true);
});
