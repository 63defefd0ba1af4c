// Issue 28 ("a lean, fast node"): every figure of the table beside its target, in one run,
// with the anchor (a bare Fastify route returning the same JSON as a sealed svc_protect call,
// bench/bare_server.ts) measured in the same run, and the PostgreSQL figures too.
//
// The node runs as `npm start` runs it: package.json's start script (the build in dist/, its flags,
// its environment), with a large token allowance and one machine allowed 32 jobs at once (the load
// comes from one machine over 32 connections). Figures:
//   - `npm start` to the first 200 of GET /api/svc/pulse, with a new data folder, then with that
//     (now existing) folder; the second node is the one measured below;
//   - RSS 10 s after start (nothing called), after one call of each of five pooled solvers, and the
//     peak under the 32-connection sealed load;
//   - sealed svc_protect req/s against the bare route's, p99 at half the sealed peak rate;
//   - /docs cold: bytes on the wire (br) of the page, its scripts and the specification.
// The load average is printed beside the figures: on a busy shared machine they measure the
// neighbours as much as the node. BENCH_SECONDS (10), BENCH_PG=0 skips PostgreSQL (DATABASE_URL,
// default postgres://postgres@127.0.0.1:5432/test), BENCH_TIERS=0 skips the other WebAssembly tiers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, load, fmt } from './lib.ts';
import { rssBytes } from './load-lib.ts';

const DURATION = Number(process.env.BENCH_SECONDS || 10);
const ROOT = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const mib = (b: number) => b / 2 ** 20;
const load1 = () => loadavg().map((x) => x.toFixed(1)).join(' ');
const rows: [string, string, string, boolean | null][] = [];
const row = (figure: string, value: string, target: string, met: boolean | null) => { rows.push([figure, value, target, met]); console.log(`node.bench: ${figure}: ${value}  (target ${target}${met === null ? '' : met ? ': met' : ': NOT MET'})  [load ${load1()}]`); };

function freePort(): Promise<number> {
  return new Promise((res) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as any).port; s.close(() => res(p)); }); });
}

/** the node process the start script runs (sh runs it as its one child) */
function nodePid(sh: number): number {
  try {
    if (readFileSync(`/proc/${sh}/comm`, 'utf8').trim() === 'node') return sh;
    return Number(readFileSync(`/proc/${sh}/task/${sh}/children`, 'utf8').trim().split(/\s+/)[0]);
  } catch { return sh; }
}

interface Started { child: ChildProcess; pid: number; url: string; ms: number; stop(): Promise<void> }

/** Starts the node exactly as `npm start` does; resolves at its first 200 to GET /api/svc/pulse. */
async function startNode(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn('sh', ['-c', pkg.scripts.start], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, PORT: String(port), SVC_QUIET: '1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.on('exit', () => { exited = true; });
  for (;;) {
    if (exited) throw new Error('the node exited before answering');
    try {
      const r = await fetch(url + '/api/svc/pulse', { signal: AbortSignal.timeout(1000) });
      if (r.status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 20));
    if (performance.now() - t0 > 180_000) throw new Error('no answer in 180 s');
  }
  const ms = performance.now() - t0;
  const pid = nodePid(child.pid!);
  return {
    child, pid, url, ms,
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => child.once('exit', r));
      try { process.kill(pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
      await gone;
    },
  };
}

/** bytes on the wire (the compressed body) of a GET with Accept-Encoding: br */
function wireBytes(url: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => resolve({ bytes: n, encoding: String(res.headers['content-encoding'] ?? 'identity') }));
    }).on('error', reject).end();
  });
}

async function machineKey(url: string): Promise<string> {
  const demo = await (await fetch(`${url}/api/demo-key/mint`, { method: 'POST' })).json() as any;
  const m = await (await fetch(`${url}/api/machines`, { method: 'POST', headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' }, body: '{"displayName":"bench"}' })).json() as any;
  return m.apiKey;
}

/** RSS of the process by kind of mapping: anonymous (heaps, WebAssembly memory and code, malloc), the node binary, the rest */
function rssParts(pid: number): string {
  const by = new Map<string, number>();
  let cur = '';
  for (const l of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(l);
    if (m) { const f = m[1]; cur = !f || f.startsWith('[anon') || f === '[heap]' ? 'anonymous' : f.endsWith('/node') ? 'node binary' : 'other files'; continue; }
    const r = /^Rss:\s+(\d+) kB/.exec(l);
    if (r) by.set(cur, (by.get(cur) ?? 0) + Number(r[1]) / 1024);
  }
  return [...by].map(([k, v]) => `${k} ${v.toFixed(0)} MiB`).join(', ');
}

const SOLVERS = ['epi', 'heat', 'lorenz', 'ode', 'fit'];
const examples = JSON.parse(readFileSync(join(ROOT, 'src/ops/solver-examples.json'), 'utf8'));
const NODE_ENV = { SVC_TOKENS_PER_DAY: '1000000000', SVC_MACHINE_CONCURRENCY: '32', SVC_MACHINE_QUEUE: '1000' };

const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('the build failed');
console.log(`node.bench: ${new Date().toISOString()}, load average ${load1()}, ${DURATION} s per load run`);

// ---- embedded store
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-node-'));
const fresh = await startNode({ ...NODE_ENV, SVC_DATA_DIR: dataDir });
await fresh.stop();
const node = await startNode({ ...NODE_ENV, SVC_DATA_DIR: dataDir });
row('`npm start` to first answer, new data folder', `${fmt(fresh.ms / 1000, 2)} s`, '≤ 4 s', fresh.ms <= 4000);
row('`npm start` to first answer, existing data folder', `${fmt(node.ms / 1000, 2)} s`, '≤ 2 s', node.ms <= 2000);
let bare: Awaited<ReturnType<typeof startChild>> | null = null;
try {
  // 10 s after its first answer, nothing called
  await new Promise((r) => setTimeout(r, 10_000));
  const idle = rssBytes(node.pid);
  row('idle RSS 10 s after start', `${fmt(mib(idle), 0)} MiB (${rssParts(node.pid)})`, '≤ 200 MiB', mib(idle) <= 200);
  // /docs, cold
  let docs = 0;
  const parts: string[] = [];
  for (const path of ['/docs', '/docs/assets/redoc.standalone.js', '/docs/assets/init.js', '/openapi.json']) {
    const w = await wireBytes(node.url + path);
    docs += w.bytes;
    parts.push(`${path} ${fmt(w.bytes / 1024, 0)} KiB ${w.encoding}`);
  }
  row('/docs bytes on the wire, cold', `${fmt(docs / 1024, 0)} KiB (${parts.join('; ')})`, '≤ 400 KB', docs <= 400_000);
  const key = await machineKey(node.url);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  for (const s of SOLVERS) {
    const r = await fetch(`${node.url}/api/svc/${s}`, { method: 'POST', headers, body: JSON.stringify(examples[s].request) });
    if (r.status !== 200) throw new Error(`${s}: ${r.status} ${await r.text()}`);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const five = rssBytes(node.pid);
  row(`RSS after one call of each of five solvers (${SOLVERS.join(', ')})`, `${fmt(mib(five), 0)} MiB (${rssParts(node.pid)})`, '≤ 250 MB', five <= 250e6);
  // the anchor and the sealed path, in the same run
  const body = JSON.stringify({ health: 'up' });
  const sample = await (await fetch(`${node.url}/api/svc/protect`, { method: 'POST', headers, body })).json();
  bare = await startChild(join(ROOT, 'bench/bare_server.ts'), { SAMPLE_JSON: JSON.stringify(sample) });
  await load({ url: bare.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: 2 });
  await load({ url: node.url + '/api/svc/protect', method: 'POST', headers, body, duration: 2 });
  const b = await load({ url: bare.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION });
  let peak = 0;
  const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(node.pid)); }, 200);
  const s = await load({ url: node.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION });
  clearInterval(sampler);
  peak = Math.max(peak, rssBytes(node.pid));
  console.log(`node.bench: bare Fastify route   ${fmt(b.rps, 0)} req/s  p50 ${b.p50} ms  p99 ${b.p99} ms  (non-2xx ${b.non2xx})`);
  console.log(`node.bench: sealed svc_protect   ${fmt(s.rps, 0)} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  (non-2xx ${s.non2xx}, errors ${s.errors})`);
  row('peak RSS, 32 connections sealed', `${fmt(peak / 1e6, 0)} MB`, '≤ 400 MB', peak <= 400e6);
  row('sealed svc_protect / bare Fastify, req/s', `${fmt((100 * s.rps) / b.rps)} % (${fmt(s.rps, 0)} / ${fmt(b.rps, 0)})`, '≥ 20 %', s.rps / b.rps >= 0.2);
  const half = await load({ url: node.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION, overallRate: Math.max(1, Math.round(s.rps / 2)) });
  row('p99 at half the sealed peak', `${half.p99} ms (${Math.round(s.rps / 2)} req/s offered, ${fmt(half.rps, 0)} served, p50 ${half.p50} ms, non-2xx ${half.non2xx})`, '≤ 10 ms', half.p99 <= 10);
  const v = await fetch(node.url + '/api/chain/verify', { headers }).then((r) => r.json()) as any;
  console.log(`node.bench: chain after the run: ${v.length} entries, valid=${v.valid}`);
  await new Promise((r) => setTimeout(r, 3000));
  console.log(`node.bench: RSS 3 s after the load ${fmt(mib(rssBytes(node.pid)), 0)} MiB (${rssParts(node.pid)})`);
} finally {
  await node.stop();
  bare?.child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}

// ---- the WebAssembly tiers of the embedded store (docs/node.md "WebAssembly tiers"): start-up,
// idle RSS, sealed throughput and peak RSS for each (the run above is the default, liftoff)
if (process.env.BENCH_TIERS !== '0') {
  for (const tiers of ['dynamic', 'turbofan']) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-tiers-'));
    const n0 = await startNode({ ...NODE_ENV, SVC_DATA_DIR: dir, SVC_WASM_TIERS: tiers });
    await n0.stop();
    const n = await startNode({ ...NODE_ENV, SVC_DATA_DIR: dir, SVC_WASM_TIERS: tiers });
    try {
      await new Promise((r) => setTimeout(r, 10_000));
      const idle = rssBytes(n.pid);
      const key = await machineKey(n.url);
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
      const body = JSON.stringify({ health: 'up' });
      await load({ url: n.url + '/api/svc/protect', method: 'POST', headers, body, duration: 2 });
      let peak = 0;
      const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(n.pid)); }, 200);
      const s = await load({ url: n.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION });
      clearInterval(sampler);
      console.log(`node.bench: tiers ${tiers}: start ${fmt(n0.ms / 1000, 2)} s new / ${fmt(n.ms / 1000, 2)} s existing; idle RSS ${fmt(mib(idle), 0)} MiB; sealed svc_protect ${fmt(s.rps, 0)} req/s p99 ${s.p99} ms; peak RSS ${fmt(peak / 1e6, 0)} MB  [load ${load1()}]`);
    } finally {
      await n.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

// ---- PostgreSQL
if (process.env.BENCH_PG !== '0') {
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_node_${process.pid}`;
  const pgEnv = { ...NODE_ENV, DATABASE_URL: databaseUrl, SVC_DATABASE_SCHEMA: schema, SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-pg-')) };
  let pgNode: Started | null = null;
  try {
    const first = await startNode(pgEnv);
    await first.stop();
    pgNode = await startNode(pgEnv);
    console.log(`node.bench: PostgreSQL: npm start to first answer, new schema ${fmt(first.ms / 1000, 2)} s, existing ${fmt(pgNode.ms / 1000, 2)} s`);
    await new Promise((r) => setTimeout(r, 10_000));
    console.log(`node.bench: PostgreSQL: idle RSS 10 s after start ${fmt(mib(rssBytes(pgNode.pid)), 0)} MiB`);
    const key = await machineKey(pgNode.url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const body = JSON.stringify({ health: 'up' });
    await load({ url: pgNode.url + '/api/svc/protect', method: 'POST', headers, body, duration: 2 });
    let peak = 0;
    const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(pgNode!.pid)); }, 200);
    const s = await load({ url: pgNode.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION });
    clearInterval(sampler);
    const half = await load({ url: pgNode.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION, overallRate: Math.max(1, Math.round(s.rps / 2)) });
    console.log(`node.bench: PostgreSQL: sealed svc_protect ${fmt(s.rps, 0)} req/s p50 ${s.p50} ms p99 ${s.p99} ms (non-2xx ${s.non2xx}); at half the peak p99 ${half.p99} ms (p50 ${half.p50} ms); peak RSS ${fmt(peak / 1e6, 0)} MB  [load ${load1()}]`);
  } finally {
    await pgNode?.stop();
    const pg: any = await import('pg');
    const c = new (pg.default ?? pg).Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }
}

console.log('\nnode.bench: | figure | measured | target | met |');
console.log('node.bench: |---|---|---|---|');
for (const [f, v, t, m] of rows) console.log(`node.bench: | ${f} | ${v} | ${t} | ${m === null ? '' : m ? 'yes' : 'no'} |`);
