// The solver engine: every solver module loads and is served; the same input and seed give the
// same bits (twice, and on both stores when DATABASE_URL is set); the time budget stops a running
// job; a client that disconnects stops its job; the common fields; `svc solve` (runUnsealed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { EXAMPLE_MPS } from '../../src/solvers/lp.ts';
import { loadSolvers, SOLVER_FILES } from '../../src/solvers/engine/loader.ts';
import { SolverPool } from '../../src/solvers/engine/pool.ts';
import { downsampleSeries, solverInputSchema, runUnsealed } from '../../src/ops/solvers.ts';

let t: TestNode;
let key: string;
before(async () => { t = await testNode(); key = (await t.machine('engine')).apiKey; });
after(async () => { await t.close(); });

test('every module in src/solvers/ loads and exports a descriptor and a run function', async () => {
  const loaded = await loadSolvers();
  const names = loaded.map((s) => s.file);
  const files = SOLVER_FILES();
  assert.deepEqual(files.filter((f) => !names.includes(f)), [], 'these solver modules failed to load or lack descriptor/run');
  for (const s of loaded) {
    const d = s.descriptor;
    assert.ok(d.domain && d.method && d.unit && d.summary, d.name);
    assert.ok(d.operators.length >= 1 && d.operators[0].startsWith('KO42'), `${d.name}: KO42 first`);
    assert.ok(d.examples.length >= 6, `${d.name}: at least 6 examples`);
    assert.ok(t.app.operations.some((o) => o.tool === `svc_${d.name}` && o.path === `/api/svc/${d.name}`), d.name);
  }
});

test('the same input and seed give the same bits on two runs of every solver, and on both stores', async () => {
  const other = process.env.DATABASE_URL ? await testNode({ env: { DATABASE_URL: '' } }) : null;
  try {
    const otherKey = other ? (await other.machine('engine-b')).apiKey : null;
    for (const s of await loadSolvers()) {
      const name = s.descriptor.name;
      const body = name === 'solve' || name === 'multibody'
        ? { prompt: 'determinism check', ...(name === 'multibody' ? { bodies: [{ mass: 1 }, { mass: 2 }] } : {}) }
        : name === 'protect' ? { t: 1790000000, phase: 1.25, health: 'slow' } : name === 'lp' ? { mps: EXAMPLE_MPS } : {};
      const a = await t.call('POST', `/api/svc/${name}`, body, key);
      if (a.status !== 200) {
        // a solver may refuse its defaults only with a documented 422; never a 500
        assert.ok(a.status === 422, `${name}: ${a.status} ${a.text.slice(0, 300)}`);
        continue;
      }
      const b = await t.call('POST', `/api/svc/${name}`, body, key);
      assert.equal(b.status, 200, name);
      for (const field of ['value', 'result', 'series', 'precision', 'seed'] as const) {
        assert.deepStrictEqual(b.body[field], a.body[field], `${name}.${field} differs between runs`);
      }
      assert.ok(Object.is(a.body.value, b.body.value));
      if (other && otherKey) {
        const c = await other.call('POST', `/api/svc/${name}`, body, otherKey);
        assert.equal(c.status, 200, name);
        for (const field of ['result', 'series', 'precision', 'seed'] as const) {
          assert.deepStrictEqual(c.body[field], a.body[field], `${name}.${field}: PGlite and PostgreSQL disagree`);
        }
        assert.ok(Object.is(c.body.value, a.body.value));
      }
    }
  } finally { await other?.close(); }
});

test('a job past the time budget is stopped (its worker thread terminated) and refused with 422 TIME_BUDGET_EXCEEDED; it is charged for its worker time, nothing is sealed', async () => {
  // the budget leaves room for a cold worker thread to load the solver on a busy machine
  const n = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '8000' } });
  try {
    const m = await n.machine('slow');
    const small = { N: 32, steps: 100, equilibrate: 0 };
    const warm = await n.call('POST', '/api/svc/evolve', small, m.apiKey);
    assert.equal(warm.status, 200, warm.text);
    const chainBefore = (await n.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length;
    const stoppedBefore = n.app.pool.stats.stoppedJobs;
    const t0 = performance.now();
    // N = 2000 particles for 200,000 steps: minutes of work
    const r = await n.call('POST', '/api/svc/evolve', { N: 2000, steps: 200_000 }, m.apiKey);
    const elapsed = performance.now() - t0;
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.code, 'TIME_BUDGET_EXCEEDED');
    assert.match(r.body.error, /8000 ms/);
    assert.ok(elapsed >= 7900 && elapsed < 30_000, `answered after ${elapsed} ms`);
    assert.equal(n.app.pool.stats.stoppedJobs, stoppedBefore + 1, 'the running job was stopped by terminating its worker');
    // issue 19: the stopped run is charged 1 token per started second of worker time: the whole
    // 8 s budget is 8 tokens (it was 0 before, so a flood of stopped runs cost nothing)
    assert.deepEqual(r.body.tokens, { cost: 8, remaining: n.app.config.tokensPerDay - 1 - 8 });
    assert.ok(r.body.workerSeconds >= 7.9 && r.body.workerSeconds < 9, String(r.body.workerSeconds));
    const me = await n.call('GET', '/api/machines/me', undefined, m.apiKey);
    assert.equal(me.body.tokens.remaining, n.app.config.tokensPerDay - 1 - 8, 'the small solve (1) and the stopped run (8) were charged');
    // nothing sealed, but the charge is on the machine's chain: one entry 'charge' naming the
    // solver, why it stopped, the worker time and the tokens, and the chain still verifies
    const chain = (await n.call('GET', '/api/chain/verify', undefined, m.apiKey)).body;
    assert.equal(chain.valid, true);
    assert.equal(chain.length, chainBefore + 1, 'one charge entry, no receipt');
    assert.equal(r.body.chain.seq, chainBefore + 1);
    assert.match(r.body.error, new RegExp(`recorded on the machine's chain at seq ${chainBefore + 1}`));
    const feed = (await n.call('GET', '/api/observer?limit=1', undefined, m.apiKey)).body.entries[0];
    assert.deepEqual({ kind: feed.kind, ref: feed.ref, seq: feed.seq, hash: feed.hash }, { kind: 'charge', ref: 'evolve', seq: chainBefore + 1, hash: r.body.chain.hash });
    const { payloadHash } = await import('../../src/services/chain.ts');
    assert.equal(feed.payloadHash, payloadHash({ solver: 'evolve', code: 'TIME_BUDGET_EXCEEDED', workerSeconds: r.body.workerSeconds, tokens: { cost: 8, remaining: n.app.config.tokensPerDay - 1 - 8 } }), 'the entry commits to the charge');
    const receipts = await n.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
    assert.equal(Number(receipts[0].n), 1, 'only the small solve was sealed');
    // the pool replaced the thread and still serves
    const again = await n.call('POST', '/api/svc/evolve', small, m.apiKey);
    assert.equal(again.status, 200, again.text);
    assert.deepStrictEqual(again.body.result, warm.body.result);
  } finally { await n.close(); }
});

test('aborting a job (the client went away) stops it at once', async () => {
  const pool = new SolverPool({ timeoutMs: 60_000, threads: 1 });
  try {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1);
    const t0 = performance.now();
    await assert.rejects(pool.run('protect', {}, { seed: 1, now: 0, signal: ac.signal }));
    assert.ok(performance.now() - t0 < 5000);
    // the pool still works afterwards
    const out = await pool.run('protect', { t: 10, phase: 1 }, { seed: 1, now: 0 });
    assert.ok(Number.isFinite(out.value));
  } finally { await pool.close(); }
});

test('series are downsampled to the requested number of points, keeping both ends', () => {
  const s = { t: Array.from({ length: 1001 }, (_, i) => i), y: Array.from({ length: 1001 }, (_, i) => i * i) };
  const d = downsampleSeries(s, 11);
  assert.equal(d.t.length, 11);
  assert.equal(d.t[0], 0);
  assert.equal(d.t[10], 1000);
  assert.deepEqual(d.y, d.t.map((x) => x * x));
});

test('unknown keys in `inputs` are refused listing the accepted ones; inputs merge under top-level fields', async () => {
  const solvers = await loadSolvers();
  const withCommon = solvers.find((s) => !s.noCommonFields);
  if (!withCommon) return;
  const r = await t.call('POST', `/api/svc/${withCommon.descriptor.name}`, { inputs: { not_a_field: 1 } }, key);
  assert.equal(r.status, 400);
  assert.match(r.body.issues[0].message, /accepted:/);
  const d = await t.call('POST', `/api/svc/${withCommon.descriptor.name}`, { domain: 'Not This Domain' }, key);
  assert.equal(d.status, 400);
});

test('a client that disconnects cancels its job: the running solver is stopped, nothing is sealed', async () => {
  const base = await t.listen();
  const m = await t.machine('disconnect');
  const pool = t.app.pool;
  const original = pool.run.bind(pool);
  let settled: Promise<unknown> | null = null;
  let running = false;
  pool.run = ((name: string, input: unknown, opts: any) => {
    // the worker reports progress only once the job is running in it
    const p = original(name, input, { ...opts, progress: (f: number) => { running = true; opts.progress?.(f); } });
    settled = p.then(() => 'completed', (e: any) => e?.code ?? 'rejected');
    return p;
  }) as typeof pool.run;
  try {
    const stoppedBefore = pool.stats.stoppedJobs;
    const ac = new AbortController();
    // order 8 over 2,000,000 steps plus the RK4 comparison: seconds of work
    const req = fetch(`${base}/api/svc/action`, {
      method: 'POST', signal: ac.signal,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` },
      body: JSON.stringify({ system: 'kepler', order: 8, steps: 2_000_000, dt: 0.0001, compare: true }),
    }).catch((e) => e);
    const t0 = Date.now();
    while (!running && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 5));
    assert.ok(running, 'the job started');
    ac.abort();
    await req;
    const outcome = await Promise.race([settled, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    assert.equal(outcome, 'INVALID_INPUT', 'the job was cancelled, not completed');
    assert.equal(pool.stats.stoppedJobs, stoppedBefore + 1, 'its worker thread was terminated');
    const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
    assert.equal(Number(n), 0);
  } finally { pool.run = original; }
});

test('the common fields are accepted by every solver but closedform and protect, and land in the receipt', async () => {
  const common = { operators: ['XTRA_1'], query: 'a label', sample: 5 };
  for (const s of await loadSolvers()) {
    const name = s.descriptor.name;
    const required = name === 'solve' ? { prompt: 'p' } : name === 'multibody' ? { prompt: 'p', bodies: [{ mass: 1 }, { mass: 2 }] } : name === 'lp' ? { mps: EXAMPLE_MPS } : {};
    const schema = solverInputSchema(s);
    const parsed = schema.safeParse({ ...required, ...common, inputs: {}, domain: s.descriptor.domain });
    if (name === 'closedform' || name === 'protect') {
      assert.ok(s.noCommonFields, name);
      assert.equal(schema.safeParse({ query: 'a label' }).success, false, `${name} takes no common fields`);
    } else {
      assert.ok(parsed.success, `${name}: ${!parsed.success && JSON.stringify(parsed.error.issues)}`);
    }
  }
  // through HTTP on epi: inputs merge under the top-level fields, the operator joins the chain,
  // query is kept, sample downsamples the series, the domain matches case-insensitively
  // a field given both in inputs and at the top level with two values is a 400 (one would be ignored)
  const twice = await t.call('POST', '/api/svc/epi', { gamma: 0.1, inputs: { beta: 0.2, gamma: 0.5 }, domain: 'epidemiology' }, key);
  assert.equal(twice.status, 400);
  assert.equal(twice.body.issues[0].path, 'inputs.gamma');
  const r = await t.call('POST', '/api/svc/epi', { gamma: 0.1, inputs: { beta: 0.2, gamma: 0.1 }, ...common, domain: 'epidemiology' }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.value, 2, 'beta from inputs, gamma from the top level');
  assert.deepEqual(r.body.svcState.operators, ['KO42', 'CELL_GROWTH', 'XTRA_1']);
  assert.equal(r.body.query, 'a label');
  // consts has no effect on a solver: a 400 naming the key, not an echo in the receipt
  const c = await t.call('POST', '/api/svc/epi', { consts: { t: 2 } }, key);
  assert.equal(c.status, 400);
  assert.equal(c.body.issues[0].path, 'consts.t');
  for (const k of Object.keys(r.body.series)) assert.equal(r.body.series[k].length, 5, k);
  assert.equal(r.body.series.t[4], 365);
  assert.equal(r.body.input.beta, 0.2);
  assert.equal('sample' in r.body.input, false);
});

test('runUnsealed (svc solve) validates like the operation and returns the sealed body shape, unsealed', async () => {
  const body = { inputs: { beta: 0.2 }, operators: ['XTRA_1'], query: 'cli', sample: 4 };
  const out: any = await runUnsealed('epi', body);
  const sealed = await t.call('POST', '/api/svc/epi', body, key);
  assert.equal(sealed.status, 200);
  assert.equal(out.sealed, false);
  for (const k of ['solver', 'domain', 'method', 'value', 'unit', 'result', 'series', 'precision', 'stability', 'seed', 'input', 'query']) {
    assert.deepStrictEqual(out[k], sealed.body[k], k);
  }
  assert.deepEqual(out.svcState.operators, sealed.body.svcState.operators);
  assert.equal(out.svcProof, undefined);
  assert.equal(out.receipt, undefined);
  await assert.rejects(runUnsealed('epi', { beta: -1 }), (e: any) => e.code === 'INVALID_INPUT');
  await assert.rejects(runUnsealed('action', { system: 'oscillator', omega: 10, dt: 0.2 }), (e: any) => e.code === 'UNSTABLE');
  await assert.rejects(runUnsealed('closedform', { operators: [{ id: 'X', shape: 'sqrt' }] }), (e: any) => e.code === 'SHAPE_REFUSED');
  await assert.rejects(runUnsealed('nope', {}), (e: any) => e.code === 'NOT_FOUND');
  // the CLI prints it
  const cli = new URL('../../bin/svc.js', import.meta.url).pathname;
  const r = await promisify(execFile)(process.execPath, [cli, 'solve', 'lorenz', '{"steps": 2000, "sample": 3}'], { encoding: 'utf8', timeout: 60_000 });
  const printed = JSON.parse(r.stdout);
  assert.equal(printed.sealed, false);
  assert.equal(printed.solver, 'lorenz');
  assert.equal(printed.unit, '1/t');
  assert.equal(printed.series.t.length, 3);
  assert.ok(Math.abs(printed.value + (10 + 1 + 8 / 3)) < 0.05);
  const bad = await promisify(execFile)(process.execPath, [cli, 'solve', 'lorenz', '{"dt": 1}'], { encoding: 'utf8', timeout: 60_000 }).catch((e) => e);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /INVALID_INPUT/);
});

test('solver refusals are 422 with their code over HTTP and nothing is sealed or charged; clamped fields are reported', async () => {
  const m = await t.machine('refusals');
  const refusals: [string, Record<string, unknown>, string][] = [
    ['solve', { prompt: 'p', beta: 0.5, maxIterations: 1 }, 'PRECISION_REFUSED'],
    ['closedform', { operators: [{ id: 'X1', shape: 'exp' }] }, 'SHAPE_REFUSED'],
    ['action', { system: 'oscillator', omega: 10, dt: 0.2 }, 'UNSTABLE'],
    ['kalman', { F: 2, H: 0, Q: 1, R: 1 }, 'INVALID_INPUT'],
  ];
  for (const [name, body, code] of refusals) {
    const r = await t.call('POST', `/api/svc/${name}`, body, m.apiKey);
    assert.equal(r.status, code === 'INVALID_INPUT' ? 400 : 422, `${name}: ${r.text.slice(0, 200)}`);
    assert.equal(r.body.code, code, name);
    assert.equal(r.body.ok, false);
  }
  const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
  assert.equal(Number(n), 0);
  const me = await t.call('GET', '/api/machines/me', undefined, m.apiKey);
  assert.equal(me.body.tokens.remaining, t.app.config.tokensPerDay);
  // the spec's clamped fields are clamped and reported, then sealed
  const c = await t.call('POST', '/api/svc/solve', { prompt: 'p', referenceMode: 'free-fall', medium: 'vacuum', position: 1e4, tMax: 100, dt: 0.5 }, m.apiKey);
  assert.equal(c.status, 200, c.text);
  assert.deepEqual(c.body.clamped, { tMax: { given: 100, used: 30 }, dt: { given: 0.5, used: 0.1 } });
  assert.equal(c.body.result.tuneStatus, 'converged');
  // a bound that is not clamped is a 400 naming it
  const b = await t.call('POST', '/api/svc/evolve', { N: 2001 }, m.apiKey);
  assert.equal(b.status, 400);
  assert.equal(b.body.issues[0].path, 'N');
  assert.match(b.body.issues[0].message, /2000/);
});
