// Issue 28, "run compiled JavaScript" and "threads on demand": `npm start` runs the build (dist/,
// plain JavaScript made by scripts/build.mjs), and no thread of the node strips TypeScript at run
// time; an idle node has no solver worker thread once SVC_WORKER_IDLE_MS has passed.
//
// How the check is made real: `npm start` runs Node with --no-experimental-strip-types, which every
// worker thread inherits; under it, a TypeScript file loaded by any thread fails (the control below
// shows a worker that loads one failing). The node is then started exactly as package.json's start
// script says, its main module and every thread's flags are read back, and the store thread and a
// solver worker both do work (a sealed pooled solver call): had either loaded a .ts module, that
// call would fail. Threads are counted by the operating system (/proc/<pid>/task), not by the pool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const IDLE_MS = 1500;

/** the names of the process's threads (Node names worker threads "WorkerThread") */
function threadNames(pid: number): string[] {
  const out: string[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try { out.push(readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim()); } catch { /* the thread ended */ }
  }
  return out;
}

/** the node process: the shell running the start script, or the one process it started */
function nodePid(sh: number): number {
  if (readFileSync(`/proc/${sh}/comm`, 'utf8').trim() === 'node') return sh;
  const kids = readFileSync(`/proc/${sh}/task/${sh}/children`, 'utf8').trim().split(/\s+/).map(Number);
  assert.equal(kids.length, 1, `the start script runs one process: ${kids}`);
  return kids[0];
}

test('control: under the flag npm start uses, a worker thread that loads TypeScript fails', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ts-'));
  writeFileSync(join(dir, 'w.ts'), 'const x: number = 1; console.log("stripped", x);\n');
  const script = `const w = new (require('node:worker_threads').Worker)(${JSON.stringify(join(dir, 'w.ts'))}); w.on('error', () => { console.log('refused'); }); w.on('exit', (c) => process.exit(c ? 0 : 1));`;
  const flags = pkg.scripts.start.match(/--no-experimental-strip-types/);
  assert.ok(flags, `package.json's start script turns type stripping off: ${pkg.scripts.start}`);
  const r = spawnSync(process.execPath, ['--no-experimental-strip-types', '-e', script], { encoding: 'utf8' });
  assert.match(r.stdout, /refused/);
  assert.doesNotMatch(r.stdout, /stripped/);
  rmSync(dir, { recursive: true, force: true });
});

test('npm start runs the build in every thread, strips no TypeScript, and an idle node stops its solver workers', { timeout: 120_000 }, async () => {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-compiled-'));
  // exactly package.json's start script, as npm runs it (node_modules/.bin first on PATH)
  const child = spawn('sh', ['-c', pkg.scripts.start], {
    cwd: ROOT,
    // the embedded store, whatever pass this is (its thread is the one counted at rest below)
    env: { ...process.env, DATABASE_URL: undefined, SVC_DATABASE_SCHEMA: undefined, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, SVC_DATA_DIR: dataDir, PORT: '0', SVC_WORKER_IDLE_MS: String(IDLE_MS), SVC_LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line in 90 s: ${stdout} ${stderr}`)), 90_000);
      child.stdout!.on('data', () => {
        const m = stdout.match(/listening at (http:\/\/\S+)/);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
      child.on('exit', (c) => reject(new Error(`the node exited (${c}): ${stderr}`)));
    });
    const pid = nodePid(child.pid!);
    // the process runs the start script, which runs dist/main.js, with type stripping off
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes('--no-experimental-strip-types'), cmdline.join(' '));
    assert.ok(cmdline.some((a) => a.endsWith('scripts/start.mjs')), cmdline.join(' '));
    assert.doesNotMatch(stderr, /ExperimentalWarning|Type Stripping|\.ts/);
    // one thread of the node's own at rest: the store's; no solver worker before the first job
    const atRest = threadNames(pid).filter((n) => n === 'WorkerThread').length;
    assert.equal(atRest, 1, `threads at rest: ${threadNames(pid).join(', ')}`);
    const metric = async () => Number((await (await fetch(url + '/metrics')).text()).match(/^svc_pool_threads (\d+)/m)?.[1]);
    assert.equal(await metric(), 0);
    // a sealed call of a pooled solver: the store's thread and a solver worker both run build code
    const mint = await (await fetch(url + '/api/demo-key/mint', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as any;
    const machine = await (await fetch(url + '/api/machines', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${mint.apiKey}` }, body: '{"displayName":"compiled"}' })).json() as any;
    const r = await fetch(url + '/api/svc/epi', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${machine.apiKey}` }, body: '{}' });
    const body = await r.json() as any;
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.equal(body.solver, 'epi');
    assert.ok(body.signature?.sig && body.receipt?.log, 'sealed, signed and logged');
    const busy = threadNames(pid).filter((n) => n === 'WorkerThread').length;
    assert.ok(busy >= 2, `a solver worker ran: ${threadNames(pid).join(', ')}`);
    assert.ok((await metric()) >= 1);
    // idle past SVC_WORKER_IDLE_MS: the worker has stopped (the OS no longer lists its thread)
    const until = Date.now() + IDLE_MS + 15_000;
    let left = busy;
    while (Date.now() < until) {
      await new Promise((res) => setTimeout(res, 250));
      left = threadNames(pid).filter((n) => n === 'WorkerThread').length;
      if (left === 1 && (await metric()) === 0) break;
    }
    assert.equal(left, 1, `after ${IDLE_MS} ms idle: ${threadNames(pid).join(', ')}`);
    assert.equal(await metric(), 0);
    // and a job after that starts a worker again
    const again = await fetch(url + '/api/svc/epi', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${machine.apiKey}` }, body: '{}' });
    assert.equal(again.status, 200);
    assert.equal((await again.json() as any).value, body.value);
  } finally {
    try { process.kill(nodePid(child.pid!), 'SIGTERM'); } catch { child.kill('SIGTERM'); }
    await new Promise((res) => child.once('exit', res));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
