// Issue 12, load: drives node processes with autocannon and prints throughput, p50/p99 latency
// and peak RSS.
//   1. sealed svc_protect at the open rate (peak) and at 50 % of peak, 1 node, embedded store
//   2. a solver mix at a fixed rate, 1 node
//   3. with DATABASE_URL: sealed calls on 1 and on 3 nodes sharing one PostgreSQL schema (on 3
//      nodes also with each node's clients on machines of their own)
//   4. a soak at a fixed rate (BENCH_SOAK_SECONDS, default 600): RSS after warm-up vs at the end
// BENCH_SECONDS (default 60) sets each measured run. Every node is a separate process started by
// test/scale/harness.ts; autocannon runs in this process, so client and nodes share the cores.
import { startNode, stopNode, newMachine, http, schemaName, dropSchema, type NodeProc, type Machine } from '../test/scale/harness.ts';
import { drive, sampleRss, mb, line, type Target } from './load-lib.ts';
import { cpus, loadavg } from 'node:os';

const SECONDS = Number(process.env.BENCH_SECONDS || 60);
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32);
const DATABASE_URL = process.env.DATABASE_URL;
const ENV = { SVC_TOKENS_PER_DAY: '1000000000' };
const WARMUP = Math.min(5, SECONDS);

const SOLVER_MIX: { solver: string; body: Record<string, unknown> }[] = [
  { solver: 'protect', body: { health: 'up' } },
  { solver: 'lotka', body: { tMax: 10, dt: 0.01 } },
  { solver: 'acoustic', body: { L: 1, c: 343, ends: 'open-open', mode: 2 } },
  { solver: 'schrodinger', body: { potential: 'harmonic', n: 1, N: 200 } },
  { solver: 'heat', body: { dim: 1, nx: 64, steps: 200 } },
  { solver: 'epi', body: {} },
  { solver: 'kalman', body: { F: 1, H: 1, Q: 0.01, R: 0.1 } },
  { solver: 'quant', body: { paths: 2000 } },
];

function protectRequests(machines: Machine[]): Target['requests'] {
  return machines.map((m) => ({ method: 'POST', path: '/api/svc/protect', headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` }, body: '{"health":"up"}' }));
}

async function setUp(node: NodeProc, n: number): Promise<Machine[]> {
  const out: Machine[] = [];
  for (let i = 0; i < n; i++) out.push(await newMachine(node.url, `load ${i}`));
  return out;
}

async function verifyChains(url: string, machines: Machine[]): Promise<string> {
  // autocannon stops at the end of its duration with requests still in flight on the nodes:
  // let them commit first (GET /api/chain/verify reads the machine head and the entries in two
  // statements, so it can report a head mismatch while appends are still committing)
  await new Promise((r) => setTimeout(r, 3000));
  const res = await Promise.all(machines.map((m) => http(url, 'GET', '/api/chain/verify', { key: m.apiKey, timeoutMs: 120_000 })));
  const entries = res.reduce((a, r) => a + (r.body?.length ?? 0), 0);
  return `${res.every((r) => r.body?.valid === true) ? 'all valid' : 'INVALID: ' + JSON.stringify(res.map((r) => r.body))} (${entries} entries)`;
}

console.log(`load.bench: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} at start; ${SECONDS} s per run, ${CONNECTIONS} connections; autocannon shares the machine with the nodes`);

// ---- 1 and 2: one node on the embedded store
{
  const node = await startNode({ env: ENV, readyTimeoutMs: 180_000 });
  const machines = await setUp(node, 4);
  const target: Target = { url: node.url, requests: protectRequests(machines) };
  const rss = sampleRss([node.pid]);
  await drive([target], { seconds: WARMUP, connections: CONNECTIONS });
  const peak = await drive([target], { seconds: SECONDS, connections: CONNECTIONS });
  console.log(line('1 node (embedded) sealed protect, open rate', peak));
  const half = await drive([target], { seconds: SECONDS, connections: CONNECTIONS, overallRate: peak.rps / 2 });
  console.log(line(`1 node (embedded) sealed protect @ ${(peak.rps / 2).toFixed(0)}/s (50 %)`, half));
  // the solver mix: each request picks the next solver; fixed rate of 40 % of the sealed peak,
  // capped at 100/s (the heavier solvers are CPU-bound on 2 cores)
  const mixRequests: Target['requests'] = [];
  for (const [i, s] of SOLVER_MIX.entries()) {
    const m = machines[i % machines.length];
    const probe = await http(node.url, 'POST', `/api/svc/${s.solver}`, { key: m.apiKey, body: s.body, timeoutMs: 60_000 });
    if (probe.status !== 200) { console.log(`load.bench: solver mix leaves out ${s.solver}: ${probe.status} ${probe.text.slice(0, 160)}`); continue; }
    mixRequests.push({ method: 'POST', path: `/api/svc/${s.solver}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` }, body: JSON.stringify(s.body) });
  }
  const mixRate = Math.max(5, Math.min(100, Math.round(peak.rps * 0.4)));
  const mix = await drive([{ url: node.url, requests: mixRequests }], { seconds: SECONDS, connections: 16, overallRate: mixRate });
  console.log(line(`1 node (embedded) solver mix (${mixRequests.length} solvers) @ ${mixRate}/s`, mix));
  const r = rss.stop();
  console.log(`load.bench: peak RSS of the node process ${mb(r.peakSingle)}; chains ${await verifyChains(node.url, machines)}`);
  await stopNode(node);
}

// ---- 3: one and three nodes on PostgreSQL
if (DATABASE_URL) {
  for (const count of [1, 3]) {
    const schema = schemaName(`load${count}`);
    const pg = (await import('pg')).default as any;
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    await c.query(`CREATE SCHEMA "${schema}"`);
    await c.end();
    const nodes = await Promise.all(Array.from({ length: count }, () => startNode({ databaseUrl: DATABASE_URL, schema, env: ENV, readyTimeoutMs: 180_000 })));
    try {
      const machines = await setUp(nodes[0], 6);
      const targets = nodes.map((n) => ({ url: n.url, requests: protectRequests(machines) }));
      const rss = sampleRss(nodes.map((n) => n.pid));
      await drive(targets, { seconds: WARMUP, connections: CONNECTIONS });
      const peak = await drive(targets, { seconds: SECONDS, connections: CONNECTIONS });
      console.log(line(`${count} node${count > 1 ? 's' : ' '} (PostgreSQL) sealed protect, open rate`, peak));
      const half = await drive(targets, { seconds: SECONDS, connections: CONNECTIONS, overallRate: peak.rps / 2 });
      console.log(line(`${count} node${count > 1 ? 's' : ' '} (PostgreSQL) sealed @ ${(peak.rps / 2).toFixed(0)}/s (50 %)`, half));
      if (count > 1) {
        // the same load with each node's clients on machines of their own: no machine row is
        // locked by two nodes at once (the seal path locks a machine's row per commit group)
        const own = await setUp(nodes[0], 6);
        const pinned = nodes.map((n, i) => ({ url: n.url, requests: protectRequests(own.filter((_, j) => j % count === i)) }));
        const p = await drive(pinned, { seconds: SECONDS, connections: CONNECTIONS });
        console.log(line(`${count} nodes (PostgreSQL) sealed, machines pinned to nodes`, p));
        machines.push(...own);
      }
      const r = rss.stop();
      console.log(`load.bench: peak RSS of one node process ${mb(r.peakSingle)}; chains ${await verifyChains(nodes[0].url, machines)}`);
    } finally {
      await Promise.all(nodes.map((n) => stopNode(n)));
      await dropSchema(DATABASE_URL, schema);
    }
  }
} else {
  console.log('load.bench: DATABASE_URL unset: the PostgreSQL runs (1 and 3 nodes) are skipped');
}

// ---- 4: the soak
if (SOAK_SECONDS > 0) {
  const node = await startNode({ env: ENV, readyTimeoutMs: 180_000 });
  const machines = await setUp(node, 4);
  const target: Target = { url: node.url, requests: protectRequests(machines) };
  const probe = await drive([target], { seconds: Math.min(10, SOAK_SECONDS), connections: CONNECTIONS });
  const rate = Math.max(10, Math.round(probe.rps / 2));
  const rss = sampleRss([node.pid], 2000);
  const soak = await drive([target], { seconds: SOAK_SECONDS, connections: CONNECTIONS, overallRate: rate });
  const { samples } = rss.stop();
  // warm-up: the first 10 % of the run; end: the last 10 %
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const avg = (xs: { rss: number }[]) => xs.reduce((a, x) => a + x.rss, 0) / xs.length;
  const early = avg(samples.slice(tenth, 2 * tenth));
  const late = avg(samples.slice(-tenth));
  const growth = (100 * (late - early)) / early;
  console.log(line(`soak ${SOAK_SECONDS} s sealed protect @ ${rate}/s`, soak));
  console.log(`load.bench: soak RSS ${mb(early)} after warm-up -> ${mb(late)} at the end: growth ${growth.toFixed(1)} % (target < 10 %: ${growth < 10 ? 'met' : 'NOT MET'}); ${soak.total} sealed; chains ${await verifyChains(node.url, machines)}`);
  await stopNode(node);
}
console.log(`load.bench: load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end`);
