// The solver engine: every solver module loads and is served; the same input and seed give the
// same bits (twice, and on both stores when DATABASE_URL is set); the time budget stops a job;
// a cancelled job is stopped; non-finite output is never sealed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { loadSolvers, SOLVER_FILES, SolverPool, downsampleSeries } from '../../src/solvers/engine.ts';

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
        : name === 'protect' ? { t: 1790000000, phase: 1.25, health: 'slow' } : {};
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
        assert.deepStrictEqual(c.body.result, a.body.result, `${name}: PGlite and PostgreSQL disagree`);
        assert.ok(Object.is(c.body.value, a.body.value));
      }
    }
  } finally { await other?.close(); }
});

test('a job past the time budget is stopped and refused with 422 TIME_BUDGET_EXCEEDED, nothing charged', async () => {
  const n = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '1' } });
  try {
    const m = await n.machine('slow');
    const r = await n.call('POST', '/api/svc/protect', {}, m.apiKey);
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'TIME_BUDGET_EXCEEDED');
    const me = await n.call('GET', '/api/machines/me', undefined, m.apiKey);
    assert.equal(me.body.tokens.remaining, n.app.config.tokensPerDay);
    assert.equal((await n.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length, 2);
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

test('a client that disconnects cancels its job: the solver run is aborted, nothing is sealed', async () => {
  const base = await t.listen();
  const m = await t.machine('disconnect');
  const pool = t.app.pool;
  const original = pool.run.bind(pool);
  let settled: Promise<unknown> | null = null;
  pool.run = ((name: string, input: unknown, opts: any) => {
    const p = original(name, input, opts);
    settled = p.then(() => 'completed', (e: any) => e?.code ?? 'rejected');
    return p;
  }) as typeof pool.run;
  try {
    const ac = new AbortController();
    const req = fetch(`${base}/api/svc/action`, {
      method: 'POST', signal: ac.signal,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` },
      body: JSON.stringify({ system: 'kepler', order: 8, steps: 2_000_000, dt: 0.0001, compare: true }),
    }).catch((e) => e);
    const t0 = Date.now();
    while (!settled && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await req;
    const outcome = await Promise.race([settled, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    assert.equal(outcome, 'INVALID_INPUT', 'the job was cancelled, not completed');
    const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
    assert.equal(Number(n), 0);
  } finally { pool.run = original; }
});
