// Jobs on a cluster (issue 27, docs/jobs.md "Leases"): three node processes on one PostgreSQL.
// Jobs are queued through any node and run on all three; the node running most of them is killed
// with SIGKILL; every job still succeeds (handed out again to another node, run from the
// start), with exactly one receipt each, results bit-identical to an uninterrupted run, and no job
// sealed twice. At the scale: 30 jobs of 3-10 s each on a quiet 2-core machine (U(1)
// gauge, 32×32 links, 5,000 to 16,600 sweeps), and every one of them compared with the same input
// run again synchronously once the cluster is done. Part of `npm run test:scale` (CI runs it on
// PostgreSQL after the two suites), not of `npm test`: it takes several minutes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, stopNode, http, newMachine, schemaName, dropSchema, sleep, type NodeProc } from './harness.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const SKIP = DATABASE_URL ? false : 'multi-node tests need PostgreSQL: set DATABASE_URL=postgres://… (CI does)';
const ENV = { SVC_SOLVER_THREADS: '3', SVC_JOBS_PER_MACHINE: '4', SVC_JOB_HEARTBEAT_SECONDS: '10', SVC_SOLVER_TIMEOUT_MS: '300000' };

let nodes: NodeProc[] = [];
let schema = '';
after(async () => {
  await Promise.all(nodes.map((n) => { n.kill('SIGKILL'); return n.exited; }));
  if (DATABASE_URL && schema) await dropSchema(DATABASE_URL, schema);
});

test('three nodes on PostgreSQL: kill -9 the node running most jobs; every job succeeds once, with one receipt and the uninterrupted result', { skip: SKIP, timeout: 1_500_000 }, async () => {
  schema = schemaName('jobs');
  nodes = [];
  for (let i = 0; i < 3; i++) nodes.push(await startNode({ databaseUrl: DATABASE_URL, schema, env: ENV, readyTimeoutMs: 240_000 }));
  const machines = [await newMachine(nodes[0].url, 'jobs 1'), await newMachine(nodes[1].url, 'jobs 2'), await newMachine(nodes[2].url, 'jobs 3')];
  // a sweep first: its 30 runs spread over the nodes, and the sweep seals them all
  const sw = await http(nodes[0].url, 'POST', '/api/jobs', { key: machines[0].apiKey, body: { tool: 'svc_epi', arguments: { days: 60 }, sweep: { beta: [0.2, 0.25, 0.3, 0.35, 0.4, 0.45], gamma: [0.05, 0.07, 0.09, 0.11, 0.13] }, budget: { seconds: 5 } } });
  assert.equal(sw.status, 202, sw.text);
  let swv = sw.body;
  while (!['succeeded', 'failed', 'cancelled'].includes(swv.status)) swv = (await http(nodes[2].url, 'GET', `/api/jobs/${sw.body.id}?wait=20`, { key: machines[0].apiKey, timeoutMs: 60_000 })).body;
  assert.equal(swv.status, 'succeeded', JSON.stringify(swv).slice(0, 400));
  assert.equal(swv.response.body.result.sealedRuns, 30);
  // 5,000 to 17,000 sweeps (16,200 is left out: its Monte Carlo estimate misses the 0.1 % bound by
  // chance at the derived seed, 0.112 %, and is refused, synchronously too)
  const inputs = Array.from({ length: 30 }, (_, i) => ({ L: 32, sweeps: i === 28 ? 17_000 : 5000 + 400 * i, therm: 0 }));
  const jobs: { id: string; key: string; input: any }[] = [];
  for (const [i, input] of inputs.entries()) {
    const m = machines[i % 3];
    const r = await http(nodes[i % 3].url, 'POST', '/api/jobs', { key: m.apiKey, body: { tool: 'svc_gauge', arguments: input, budget: { seconds: 120 } } });
    assert.equal(r.status, 202, r.text);
    jobs.push({ id: r.body.id, key: m.apiKey, input });
  }
  // wait until jobs run on the nodes, then kill the node running most of them
  const pg = (await import('pg')).default as any;
  const db = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path="${schema}"` });
  await db.connect();
  try {
    let victim: NodeProc | null = null;
    let runningThere: string[] = [];
    const t0 = Date.now();
    while (!victim) {
      const rows = (await db.query(`SELECT id, node FROM jobs WHERE status = 'running' AND node IS NOT NULL`)).rows as { id: string; node: string }[];
      const byNode = new Map<string, string[]>();
      for (const r of rows) byNode.set(r.node, [...(byNode.get(r.node) ?? []), r.id]);
      const [best] = [...byNode.entries()].sort((a, b) => b[1].length - a[1].length);
      if (best && (best[1].length >= 3 || Date.now() - t0 > 30_000)) {
        victim = nodes.find((n) => n.nodeId === best[0]) ?? null;
        runningThere = best[1];
      }
      if (Date.now() - t0 > 60_000) throw new Error('no job started in 60 s');
      await sleep(100);
    }
    victim.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    const alive = nodes.filter((n) => n !== victim);
    // each job the dead node ran is taken again within 30 s (attempts 2, on a live node)
    const retakenAfter = new Map<string, number>();
    while (retakenAfter.size < runningThere.length && Date.now() - killedAt < 300_000) {
      const rows = (await db.query(`SELECT id, attempts, node, status FROM jobs WHERE id = ANY($1)`, [runningThere])).rows;
      for (const r of rows) if (!retakenAfter.has(r.id) && (r.attempts >= 2 || r.status === 'succeeded')) retakenAfter.set(r.id, Date.now() - killedAt);
      await sleep(200);
    }
    // with 30 jobs queued, a job handed out again waits for a free worker like any other: the time
    // is reported, not bounded here (a free worker takes it within 30 s: test/jobs/restart.test.ts)
    console.log(`# jobs of the killed node taken again after ${runningThere.map((id) => retakenAfter.get(id) ?? 'not yet').join(', ')} ms`);
    // every job succeeds
    const done: any[] = [];
    for (const [i, j] of jobs.entries()) {
      const r = await http(alive[i % 2].url, 'GET', `/api/jobs/${j.id}?wait=30`, { key: j.key, timeoutMs: 60_000 });
      let v = r.body;
      const end = Date.now() + 900_000;
      while (!['succeeded', 'failed', 'cancelled'].includes(v.status) && Date.now() < end) v = (await http(alive[0].url, 'GET', `/api/jobs/${j.id}?wait=20`, { key: j.key, timeoutMs: 60_000 })).body;
      assert.equal(v.status, 'succeeded', JSON.stringify(v).slice(0, 400));
      done.push(v);
    }
    // exactly one receipt per job; nothing else sealed for these machines; the chains verify
    const spread = (await db.query(`SELECT count(DISTINCT node)::int AS n FROM jobs WHERE parent_id = $1`, [sw.body.id])).rows[0].n;
    assert.ok(spread >= 2, `the sweep's runs ran on ${spread} node(s)`);
    const receipts = (await db.query(`SELECT id, zid FROM receipts WHERE zid = ANY($1) AND solver = 'gauge'`, [machines.map((m) => m.zid)])).rows;
    assert.equal(receipts.length, jobs.length);
    assert.deepEqual(new Set(receipts.map((r: any) => r.id)), new Set(done.map((v) => v.response.body.receipt.id)));
    for (const m of machines) assert.equal((await http(alive[0].url, 'GET', '/api/chain/verify', { key: m.apiKey })).body.valid, true);
    const again = done.filter((v) => v.attempts > 1);
    assert.ok(again.length >= runningThere.length, `re-run jobs: ${again.length}`);
    // charged once per job: what its one receipt says (the seal and its worker time past the first second)
    for (const v of done) assert.equal(v.tokens.charged, v.response.body.tokens.cost);
    // bit-identical to an uninterrupted run: every job's input run again as a synchronous call
    // (on a machine of its own, two at a time, on the live nodes) once the cluster is done
    const refMachine = await newMachine(alive[0].url, 'jobs reference');
    const refs: any[] = new Array(jobs.length);
    let next = 0;
    await Promise.all([0, 1].map(async (w) => {
      for (let i = next++; i < jobs.length; i = next++) {
        const r = await http(alive[w].url, 'POST', '/api/svc/gauge', { key: refMachine.apiKey, body: jobs[i].input, timeoutMs: 300_000 });
        assert.equal(r.status, 200, r.text);
        refs[i] = r.body;
      }
    }));
    for (const [i, v] of done.entries()) {
      for (const k of ['value', 'result', 'precision', 'input']) assert.deepEqual(v.response.body[k], refs[i][k], `${v.id} (attempts ${v.attempts}) ${k}`);
    }
    console.log(`# ${jobs.length} jobs, ${runningThere.length} running on the killed node, ${again.length} run again; all equal to the synchronous calls`);
    // a cancel sent to one node stops the job where another node runs it, within a second
    const cj = await http(alive[0].url, 'POST', '/api/jobs', { key: machines[2].apiKey, body: { tool: 'svc_gauge', arguments: { L: 32, sweeps: 50_000, therm: 0 }, budget: { seconds: 300 } } });
    assert.equal(cj.status, 202, cj.text);
    let runsOn: string | null = null;
    for (let i = 0; i < 300 && !runsOn; i++) {
      runsOn = (await db.query(`SELECT node FROM jobs WHERE id = $1 AND status = 'running' AND progress IS NOT NULL`, [cj.body.id])).rows[0]?.node ?? null;
      if (!runsOn) await sleep(100);
    }
    const elsewhere = alive.find((n) => n.nodeId !== runsOn)!;
    const cancelAt = Date.now();
    const c = await http(elsewhere.url, 'DELETE', `/api/jobs/${cj.body.id}`, { key: machines[2].apiKey });
    let cv = c.body;
    while (cv.status !== 'cancelled' && Date.now() - cancelAt < 5000) cv = (await http(elsewhere.url, 'GET', `/api/jobs/${cj.body.id}`, { key: machines[2].apiKey })).body;
    const stopMs = Date.parse(cv.finishedAt) - cancelAt;
    console.log(`# cancelled through another node: stopped ${stopMs} ms after the DELETE was sent, charged ${cv.tokens.charged}`);
    assert.equal(cv.status, 'cancelled');
    assert.ok(stopMs < 1000, `stopped after ${stopMs} ms`);
    assert.ok(cv.tokens.charged >= 1);

    // a draining node (SIGTERM) hands its running job back: it runs again on the other node, uncharged for the stopped attempt
    const lj = await http(alive[0].url, 'POST', '/api/jobs', { key: machines[1].apiKey, body: { tool: 'svc_gauge', arguments: { L: 32, sweeps: 8_000, therm: 0 }, budget: { seconds: 120 } } });
    assert.equal(lj.status, 202, lj.text);
    let where: string | null = null;
    for (let i = 0; i < 300 && !where; i++) {
      where = (await db.query(`SELECT node FROM jobs WHERE id = $1 AND status = 'running' AND progress IS NOT NULL`, [lj.body.id])).rows[0]?.node ?? null;
      if (!where) await sleep(100);
    }
    const draining = alive.find((n) => n.nodeId === where)!;
    assert.ok(draining, 'the job runs on a live node');
    const other = alive.find((n) => n !== draining)!;
    const termAt = Date.now();
    draining.kill('SIGTERM');
    const exit = await draining.exited;
    assert.equal(exit.code, 0);
    console.log(`# the draining node exited ${Date.now() - termAt} ms after SIGTERM`);
    let lv = (await http(other.url, 'GET', `/api/jobs/${lj.body.id}`, { key: machines[1].apiKey })).body;
    while (!['succeeded', 'failed', 'cancelled'].includes(lv.status)) lv = (await http(other.url, 'GET', `/api/jobs/${lj.body.id}?wait=20`, { key: machines[1].apiKey, timeoutMs: 60_000 })).body;
    assert.equal(lv.status, 'succeeded');
    assert.equal(lv.attempts, 2);
    assert.equal(lv.tokens.charged, lv.response.body.tokens.cost);
  } finally {
    await db.end();
  }
  await Promise.all(nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null).map((n) => stopNode(n)));
});
