// `npm run bench jobs` (issue 27, docs/jobs.md): the job queue's figures.
//   1. embedded store (one node, in process): submit-to-start latency p50/p99 on an idle node,
//      tiny jobs per second, and memory with 10,000 queued jobs (one 10,000-run sweep);
//   2. three nodes on PostgreSQL (when DATABASE_URL is set): tiny jobs per second, a 1,000-run epi
//      sweep across the three nodes (every run sealed, every membership proof verified, the table
//      equal to 1,000 unsealed runs of the same inputs), and one real ~30 s job.
// Figures are printed, never asserted on time. The host is shared: compare ratios within one run.
import { testNode } from '../test/helpers.ts';
import { startNode, stopNode, http, newMachine, schemaName, dropSchema, sleep, type NodeProc } from '../test/scale/harness.ts';
import { runUnsealed } from '../src/ops/solvers.ts';
import { sweepInclusionProof } from '../src/jobs/sweep.ts';
import { verifyMembership } from '../test/jobs/merkle-verify.ts';

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]; };
const mb = (b: number) => (b / 1048576).toFixed(0);
const TINY = { days: 20 };

async function embedded(): Promise<void> {
  const t = await testNode({ env: { SVC_SOLVER_THREADS: '3', SVC_JOBS_PER_MACHINE: '4', SVC_JOBS_QUEUED_PER_MACHINE: '20000', SVC_TOKENS_PER_DAY: '1000000', SVC_SWEEP_CONCURRENCY: '4' } });
  try {
    const m = await t.machine('bench');
    // 1. submit-to-start on an idle node: one job at a time
    const lat: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await t.call('POST', '/api/jobs', { tool: 'svc_epi', arguments: { ...TINY, beta: 0.3 + i / 1000 }, budget: { seconds: 5 } }, m.apiKey);
      const v = (await t.call('GET', `/api/jobs/${r.body.id}?wait=10`, undefined, m.apiKey)).body;
      lat.push(Date.parse(v.startedAt) - Date.parse(v.createdAt));
    }
    console.log(`embedded: submit-to-start on an idle node (40 jobs, one at a time): p50 ${pct(lat, 0.5)} ms, p99 ${pct(lat, 0.99)} ms`);
    // 2. tiny jobs per second: 200 jobs from 4 machines at once
    const ms = [m, await t.machine('b2'), await t.machine('b3'), await t.machine('b4')];
    const t0 = performance.now();
    const ids = await Promise.all(Array.from({ length: 200 }, async (_, i) => ({ id: (await t.call('POST', '/api/jobs', { tool: 'svc_epi', arguments: { ...TINY, gamma: 0.1 + i / 10000 }, budget: { seconds: 5 } }, ms[i % 4].apiKey)).body.id, key: ms[i % 4].apiKey })));
    for (const j of ids) {
      let v = (await t.call('GET', `/api/jobs/${j.id}?wait=30`, undefined, j.key)).body;
      while (v.status === 'queued' || v.status === 'running') v = (await t.call('GET', `/api/jobs/${j.id}?wait=30`, undefined, j.key)).body;
      if (v.status !== 'succeeded') throw new Error(JSON.stringify(v));
    }
    const s = (performance.now() - t0) / 1000;
    console.log(`embedded: 200 tiny jobs (svc_epi ${JSON.stringify(TINY)}) from 4 machines: ${s.toFixed(1)} s, ${(200 / s).toFixed(1)} jobs/s`);
    // 3. memory with 10,000 queued jobs: one sweep of 10,000 runs
    global.gc?.();
    const rss0 = process.memoryUsage.rss();
    const ts = performance.now();
    const sw = await t.call('POST', '/api/jobs', { tool: 'svc_epi', arguments: TINY, sweep: { beta: Array.from({ length: 100 }, (_, i) => 0.2 + i / 500), gamma: Array.from({ length: 100 }, (_, i) => 0.05 + i / 1000) }, budget: { seconds: 1 } }, m.apiKey);
    if (sw.status !== 202) throw new Error(sw.text);
    const submitS = (performance.now() - ts) / 1000;
    const [{ n }] = await t.app.db.query<any>(`SELECT count(*)::int AS n FROM jobs WHERE parent_id = $1 AND status = 'queued'`, [sw.body.id]);
    const rss1 = process.memoryUsage.rss();
    console.log(`embedded: a 10,000-run sweep submitted in ${submitS.toFixed(1)} s; ${n} runs queued; node RSS ${mb(rss0)} → ${mb(rss1)} MB (the store runs in this process)`);
    await t.call('DELETE', `/api/jobs/${sw.body.id}`, undefined, m.apiKey);
  } finally {
    await t.close();
  }
}


async function waitJob(base: string, key: string, id: string): Promise<any> {
  for (;;) {
    const v = (await http(base, 'GET', `/api/jobs/${id}?wait=25`, { key, timeoutMs: 60_000 })).body;
    if (!['queued', 'running'].includes(v.status)) return v;
  }
}

async function cluster(url: string): Promise<void> {
  const schema = schemaName('jobsbench');
  const nodes: NodeProc[] = [];
  try {
    for (let i = 0; i < 3; i++) nodes.push(await startNode({ databaseUrl: url, schema, env: { SVC_SOLVER_THREADS: '2', SVC_JOBS_PER_MACHINE: '4', SVC_TOKENS_PER_DAY: '1000000', SVC_SWEEP_CONCURRENCY: '6', SVC_JOBS_QUEUED_PER_MACHINE: '1000' } }));
    const ms = [await newMachine(nodes[0].url, 'c1'), await newMachine(nodes[1].url, 'c2'), await newMachine(nodes[2].url, 'c3')];
    // tiny jobs per second across three nodes
    const t0 = performance.now();
    const ids = await Promise.all(Array.from({ length: 150 }, async (_, i) => ({ id: (await http(nodes[i % 3].url, 'POST', '/api/jobs', { key: ms[i % 3].apiKey, body: { tool: 'svc_epi', arguments: { ...TINY, gamma: 0.1 + i / 10000 }, budget: { seconds: 5 } } })).body.id, m: ms[i % 3] })));
    for (const j of ids) { const v = await waitJob(nodes[0].url, j.m.apiKey, j.id); if (v.status !== 'succeeded') throw new Error(JSON.stringify(v)); }
    const s = (performance.now() - t0) / 1000;
    console.log(`3 PostgreSQL nodes: 150 tiny jobs from 3 machines: ${s.toFixed(1)} s, ${(150 / s).toFixed(1)} jobs/s`);
    // a 1,000-run epi sweep across the three nodes
    const betas = Array.from({ length: 40 }, (_, i) => 0.15 + i * 0.01);
    const gammas = Array.from({ length: 25 }, (_, i) => 0.04 + i * 0.004);
    const ts = performance.now();
    const sw = await http(nodes[0].url, 'POST', '/api/jobs', { key: ms[0].apiKey, body: { tool: 'svc_epi', arguments: { days: 60 }, sweep: { beta: betas, gamma: gammas }, budget: { seconds: 5 } } });
    if (sw.status !== 202) throw new Error(sw.text);
    const done = await waitJob(nodes[1].url, ms[0].apiKey, sw.body.id);
    const sweepS = (performance.now() - ts) / 1000;
    const res = done.response.body.result;
    const pg = (await import('pg')).default as any;
    const db = new pg.Client({ connectionString: url, options: `-c search_path="${schema}"` });
    await db.connect();
    const byNode = (await db.query(`SELECT node, count(*)::int AS n FROM jobs WHERE parent_id = $1 GROUP BY node`, [sw.body.id])).rows;
    const receipts = (await db.query(`SELECT count(*)::int AS n FROM receipts WHERE id = ANY($1)`, [res.table.map((r: any) => r.receipt)])).rows[0].n;
    await db.end();
    const digests = res.table.map((r: any) => r.digest);
    let proved = 0, equal = 0;
    for (let i = 0; i < digests.length; i++) if (verifyMembership(digests[i], i, digests.length, sweepInclusionProof(digests, i), res.merkleRoot)) proved++;
    for (const row of res.table) {
      const ref = await runUnsealed('epi', { days: 60, ...row.values });
      if (ref.value === row.value && (ref.precision as any).errorPct === row.errorPct) equal++;
    }
    console.log(`3 PostgreSQL nodes: 1,000-run epi sweep ${done.status} in ${sweepS.toFixed(1)} s (${(1000 / sweepS).toFixed(1)} runs/s); runs per node ${byNode.map((r: any) => r.n).join(' / ')}; ${receipts} run receipts stored; ${proved}/1000 memberships verify; ${equal}/1000 table rows equal the unsealed run`);
    // one real ~30 s job
    const long = { L: 32, sweeps: 30_000, therm: 0 };
    const tl = performance.now();
    const lj = await http(nodes[2].url, 'POST', '/api/jobs', { key: ms[1].apiKey, body: { tool: 'svc_gauge', arguments: long, budget: { seconds: 300 } } });
    const fr: number[] = [];
    let lv: any;
    for (;;) {
      lv = (await http(nodes[(fr.length % 3)].url, 'GET', `/api/jobs/${lj.body.id}`, { key: ms[1].apiKey })).body;
      if (lv.progress) fr.push(lv.progress.fraction);
      if (!['queued', 'running'].includes(lv.status)) break;
      await sleep(1000);
    }
    console.log(`3 PostgreSQL nodes: one svc_gauge job ${JSON.stringify(long)}: ${lv.status} in ${((performance.now() - tl) / 1000).toFixed(1)} s, progress read ${fr.length} times (${fr.slice(0, 6).map((f) => f.toFixed(2)).join(', ')}, …), charged ${lv.tokens.charged}`);
  } finally {
    await Promise.all(nodes.map((n) => stopNode(n)));
    await dropSchema(url, schema);
  }
}

console.log('(the host is shared with other work: read ratios within this run, not absolutes)');
await embedded();
if (process.env.DATABASE_URL) await cluster(process.env.DATABASE_URL);
else console.log('3 PostgreSQL nodes: skipped (set DATABASE_URL)');
process.exit(0);
