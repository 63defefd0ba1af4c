// Issue 27's blob line at its own scale: a 300 MB CNF (a planted 3-SAT instance generated as a
// stream, never whole in memory or on disk: test/jobs/cnf-stream.ts) uploaded to a node process as
// a blob while its RSS is sampled every 20 ms (the rise stays under 64 MB); solved as a job
// (`svc_sat` with `{cnf: {blob}}`); the receipt seals the blob's digest; `svc verify --replay
// --url … --key …` (the CLI, as a user runs it) fetches the blob and reproduces value and result.
// On the store CI gives it (PostgreSQL with DATABASE_URL, else embedded). Part of
// `npm run test:scale`, not of `npm test`: the solve and the replay take minutes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startNode, stopNode, newMachine, schemaName, dropSchema, http, type NodeProc } from './harness.ts';
import { cnfStream } from '../jobs/cnf-stream.ts';
import { uploadStream } from '../jobs/blob-upload.ts';

const MB = 1024 * 1024;
const SIZE = Number(process.env.BLOB_BIG_MB ?? 300) * MB;
const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

const databaseUrl = process.env.DATABASE_URL;
const schema = databaseUrl ? schemaName('bigcnf') : undefined;
const work = mkdtempSync(join(tmpdir(), 'svc-big-cnf-'));
let node: NodeProc | undefined;
after(async () => {
  if (node) await stopNode(node);
  if (databaseUrl && schema) await dropSchema(databaseUrl, schema);
  rmSync(work, { recursive: true, force: true });
});


test('a 300 MB CNF as a blob: RSS rises < 64 MB during the upload; solved as a job; the receipt seals the digest; svc verify --replay --url reproduces it', { timeout: 1_800_000 }, async () => {
  node = await startNode({ databaseUrl, schema, dataDir: databaseUrl ? undefined : join(work, 'data'), env: { SVC_JOB_MAX_SECONDS: '3600' }, readyTimeoutMs: 240_000 });
  const key = (await newMachine(node.url, 'big cnf')).apiKey;
  // warm the upload path (module loading) before the baseline
  const warm = cnfStream(2 * MB, 1000, 7);
  assert.equal((await uploadStream(node.url, key, warm.stream, warm.bytes)).status, 201);
  await new Promise((r) => setTimeout(r, 500));
  const base = rssOf(node.pid);
  let peak = base;
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(node!.pid)); }, 20);
  const cnf = cnfStream(SIZE);
  const t0 = performance.now();
  const up = await uploadStream(node.url, key, cnf.stream, cnf.bytes);
  clearInterval(sampler);
  const rise = (Math.max(peak, rssOf(node.pid)) - base) / MB;
  console.log(`# ${databaseUrl ? 'PostgreSQL' : 'embedded'}: ${(cnf.bytes / MB).toFixed(0)} MB (${cnf.clauses} clauses) uploaded in ${((performance.now() - t0) / 1000).toFixed(1)} s; RSS rise ${rise.toFixed(1)} MB`);
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const digest = cnf.digest();
  assert.equal(up.body.digest, digest);
  assert.ok(rise < 64, `RSS rose by ${rise.toFixed(1)} MB during the upload`);

  const t1 = performance.now();
  const sub = await http(node.url, 'POST', '/api/jobs', { key, body: { tool: 'svc_sat', arguments: { cnf: { blob: up.body.digest } }, budget: { seconds: 3600 } } });
  assert.equal(sub.status, 202, sub.text);
  let job: any;
  for (;;) {
    job = (await http(node.url, 'GET', `/api/jobs/${sub.body.id}?wait=20`, { key, timeoutMs: 60_000 })).body;
    if (['succeeded', 'failed', 'cancelled'].includes(job?.status)) break;
  }
  const body = job.response?.body ?? {};
  console.log(`# job ${job.status} in ${((performance.now() - t1) / 1000).toFixed(1)} s: ${JSON.stringify(body.result?.stats ?? body.error ?? {})}`);
  assert.equal(job.status, 'succeeded', JSON.stringify(body).slice(0, 500));
  assert.equal(body.result.satisfiable, true);
  assert.equal(body.precision.withinBound, true);
  // the receipt seals the digest of the bytes, not the bytes
  assert.equal(body.input.cnf.blob, digest);
  assert.equal(body.input.cnf.bytes, cnf.bytes);

  // `svc verify --replay --url --key`: the CLI fetches the blob, checks its digest and runs the solver again
  const file = join(work, 'receipt.json');
  writeFileSync(file, JSON.stringify(body));
  const t2 = performance.now();
  const out = spawnSync(process.execPath, [SVC, 'verify', file, '--replay', '--url', node.url, '--key', key], { encoding: 'utf8', timeout: 1_500_000, maxBuffer: 64 * MB });
  console.log(`# svc verify --replay: exit ${out.status} in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
  assert.equal(out.status, 0, `${out.stdout}\n${out.stderr}`);
  assert.match(out.stdout, /replay/);
  assert.match(out.stdout, /"valid":\s*true|valid: true|\bvalid\b/);
});
