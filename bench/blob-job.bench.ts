// The 300 MB acceptance line of issue 27 (docs/jobs.md "Blobs"): a generated CNF (streamed, never
// on disk) uploaded as a blob to a node process, the node's RSS sampled during the upload; then
// solved as a job (POST /api/jobs, svc_sat with {cnf: {blob}}); the receipt must seal the digest;
// then `svc verify --replay --url` (replayReceipt with the key) must reproduce it. Prints figures.
// BLOB_JOB_MB (default 300) sets the size; DATABASE_URL selects PostgreSQL.
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startNode, stopNode, newMachine, schemaName, dropSchema, http } from '../test/scale/harness.ts';
import { cnfStream } from '../test/jobs/cnf-stream.ts';
import { replayReceipt } from '../src/verify.ts';

const MB = 1024 * 1024;
const size = Number(process.env.BLOB_JOB_MB ?? 300) * MB;
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

const databaseUrl = process.env.DATABASE_URL;
const schema = databaseUrl ? schemaName('blobjob') : undefined;
const dataDir = databaseUrl ? undefined : mkdtempSync(join(tmpdir(), 'svc-blob-job-'));
const node = await startNode({ databaseUrl, schema, dataDir, env: { SVC_JOB_MAX_SECONDS: '3600' } });
try {
  const key = (await newMachine(node.url, 'blob job bench')).apiKey;
  const cnf = cnfStream(size);
  const base = rssOf(node.pid);
  let peak = base;
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(node.pid)); }, 20);
  let t = performance.now();
  const up: any = await new Promise((resolve, reject) => {
    const req = request(`${node.url}/api/blobs`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-length': String(cnf.bytes) } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, ...JSON.parse(text) }));
    });
    req.on('error', reject);
    pipeline(cnf.stream, req).catch(reject);
  });
  clearInterval(sampler);
  const uploadS = (performance.now() - t) / 1000;
  console.log(`store: ${databaseUrl ? 'PostgreSQL' : 'embedded'}; CNF ${cnf.variables} variables, ${cnf.clauses} clauses, ${(cnf.bytes / MB).toFixed(0)} MB`);
  console.log(`upload: HTTP ${up.status} in ${uploadS.toFixed(1)} s (${(cnf.bytes / MB / uploadS).toFixed(1)} MB/s); node RSS ${(base / MB).toFixed(0)} -> peak ${(peak / MB).toFixed(0)} MB (rise ${((peak - base) / MB).toFixed(1)} MB); digest ${up.digest === cnf.digest() ? 'correct' : 'WRONG'}`);
  t = performance.now();
  const sub = await http(node.url, 'POST', '/api/jobs', { key, body: { tool: 'svc_sat', arguments: { cnf: { blob: up.digest } }, budget: { seconds: 1800 } } });
  if (sub.status !== 202) throw new Error(`submit: ${sub.status} ${sub.text}`);
  let job: any;
  let peakJob = rssOf(node.pid);
  for (;;) {
    job = (await http(node.url, 'GET', `/api/jobs/${sub.body.id}?wait=5`, { key, timeoutMs: 60_000 })).body;
    peakJob = Math.max(peakJob, rssOf(node.pid));
    if (['succeeded', 'failed', 'cancelled'].includes(job?.status)) break;
  }
  const jobS = (performance.now() - t) / 1000;
  const body = job.response?.body ?? {};
  console.log(`job: ${job.status} in ${jobS.toFixed(1)} s; node RSS peak ${(peakJob / MB).toFixed(0)} MB; ${body.ok ? `value ${body.value} ${body.unit}, satisfiable ${body.result?.satisfiable}, stats ${JSON.stringify(body.result?.stats ?? {})}` : `${job.response?.status} ${body.code}: ${body.error}`}`);
  if (body.ok) {
    console.log(`receipt seals input.cnf = ${JSON.stringify(body.input?.cnf)} (${body.input?.cnf?.blob === up.digest ? 'the digest' : 'NOT the digest'})`);
    t = performance.now();
    const replay = await replayReceipt(body, { url: node.url, key });
    console.log(`svc verify --replay --url: ${JSON.stringify(replay)} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
} finally {
  await stopNode(node);
  if (databaseUrl && schema) await dropSchema(databaseUrl, schema);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
