// `npm run fuzz`: the full fuzz run (issue 12), 20,000 requests by default, on a fresh in-memory
// node (or a fresh PostgreSQL schema when DATABASE_URL is set). Prints progress and the figures;
// exits 1 if anything was found. FUZZ_SEED, FUZZ_COUNT, FUZZ_CONCURRENCY change the run.
import { appendFileSync } from 'node:fs';
import { testNode } from '../helpers.ts';
import { setUpTenants, fuzzNode, FUZZ_NODE_ENV } from './fuzz-lib.ts';

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const requests = Number(process.env.FUZZ_COUNT ?? 20_000);
const concurrency = Number(process.env.FUZZ_CONCURRENCY ?? 4);
const t = await testNode({ env: FUZZ_NODE_ENV });
const tenants = await setUpTenants(t);
console.log(`fuzz: seed ${seed}, ${requests} requests, concurrency ${concurrency}, store ${t.app.db.backend}, ${t.app.operations.length} operations`);
console.log(`fuzz: tenant A holds ${tenants.secrets.length} private values; pooled ids ${JSON.stringify(Object.fromEntries(Object.entries(tenants.pools.foreign).map(([k, v]) => [k, v.length])))}`);
const stats = await fuzzNode(t, tenants, {
  seed, requests, concurrency, timeoutMs: 30_000,
  // FUZZ_TRACE=file: each request is written there before it is sent (finds a request that
  // blocks the event loop: the last lines name it)
  onStart: process.env.FUZZ_TRACE ? (req) => appendFileSync(process.env.FUZZ_TRACE!, JSON.stringify({ ...req, body: req.body?.slice(0, 2000) }) + '\n') : undefined,
  slowMs: Number(process.env.FUZZ_SLOW_MS ?? 5000),
  onSlow: (req, ms, status) => console.log(`fuzz: slow ${(ms / 1000).toFixed(1)} s ${status} ${req.method} ${req.url.slice(0, 120)} ${req.mutation} ${(req.body ?? '').slice(0, 200)}`),
  onProgress: (done, s) => { if (done % 1000 === 0 || done === requests || process.env.FUZZ_VERBOSE) console.log(`fuzz: ${done}/${requests} in ${s.seconds.toFixed(0)} s, ${s.findings.length} findings, statuses ${JSON.stringify(s.byStatus)}`); },
});
console.log(`fuzz: ${stats.requests} requests over ${stats.opsHit}/${stats.operations} operations in ${stats.seconds.toFixed(1)} s (${(stats.requests / stats.seconds).toFixed(1)} req/s)`);
console.log(`fuzz: by mutation ${JSON.stringify(stats.byMutation)}`);
console.log(`fuzz: by status ${JSON.stringify(stats.byStatus)}`);
const byKind: Record<string, number> = {};
for (const f of stats.findings) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
console.log(`fuzz: findings ${stats.findings.length} ${JSON.stringify(byKind)} (500s, hangs, cross-tenant reads)`);
for (const f of stats.findings.slice(0, 20)) console.log(JSON.stringify({ ...f, request: { ...f.request, body: f.request.body?.slice(0, 400) } }));
const noteCodes: Record<string, number> = {};
for (const n of stats.notes) { const c = /"code":"([A-Z_]+)"/.exec(n.detail)?.[1] ?? 'none'; noteCodes[c] = (noteCodes[c] ?? 0) + 1; }
console.log(`fuzz: notes (error answers without the DESIGN §9 body; not failures) ${stats.notes.length} ${JSON.stringify(noteCodes)}`);
for (const n of [...stats.notes.filter((x) => !x.detail.includes("FST_ERR_BAD_URL")), ...stats.notes].slice(0, 4)) console.log(JSON.stringify({ ...n, request: { ...n.request, body: n.request.body?.slice(0, 200) } }).slice(0, 600));
await t.close();
process.exit(stats.findings.length ? 1 : 0);
