// Issue 19, "Fair under abuse": solver scheduling and paid work. The pool runs at most
// SVC_MACHINE_CONCURRENCY jobs of one machine at once, serves machines round robin, bounds each
// machine's queue, and counts the time budget from the start of the run; a run stopped by its
// budget or cancelled after it started is charged for its worker time. Runs on both stores
// (DATABASE_URL=postgres://… for PostgreSQL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SolverPool, type SolverJobEvent } from '../../src/solvers/engine/pool.ts';
import { testNode } from '../helpers.ts';
import { descriptor as evolve } from '../../src/solvers/evolve.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** minutes of work for one worker: evolve at its schema maximum */
const MAX_EVOLVE = { N: 2000, steps: 200_000, equilibrate: 50_000 };
const SMALL_EVOLVE = { N: 32, steps: 100, equilibrate: 0 };
/** the same as the pool takes them (validated, defaults applied) */
const maxEvolve = () => evolve.input.parse(MAX_EVOLVE);
const smallEvolve = () => evolve.input.parse(SMALL_EVOLVE);

function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)];
}

test('the pool keeps at least two worker threads, whatever it is given', () => {
  assert.equal(new SolverPool({ timeoutMs: 1000, threads: 1 }).threads, 2);
  assert.equal(new SolverPool({ timeoutMs: 1000 }).threads, 2);
  assert.equal(new SolverPool({ timeoutMs: 1000, threads: 4, memoryLimitMb: 4096 }).threads, 4);
  // and no more than the node's memory holds with every worker at its budget (issue 33)
  assert.equal(new SolverPool({ timeoutMs: 1000, threads: 8, jobMemoryMb: 512, memoryLimitMb: 2048 }).threads, 3);
  assert.equal(new SolverPool({ timeoutMs: 1000, threads: 8, jobMemoryMb: 1024, memoryLimitMb: 2048 }).threads, 2);
});

test('machines are served round robin: a third machine\'s first job starts before the first two machines\' third jobs', async () => {
  const pool = new SolverPool({ timeoutMs: 20_000, threads: 2, machineConcurrency: 1 });
  const order: string[] = [];
  pool.onJob.push((e: SolverJobEvent) => { if (e.phase === 'dispatched') order.push(e.tenant!); });
  try {
    const jobs: Promise<unknown>[] = [];
    for (const tenant of ['A', 'B', 'C']) for (let i = 0; i < 3; i++) jobs.push(pool.run('protect', { health: 'up' }, { seed: i, now: 1_790_000_000, tenant }));
    await Promise.all(jobs);
    assert.equal(order.length, 9);
    // first come, first served would start A, B, A, B, A, B and only then C
    const thirdOf = (t: string) => order.map((x, i) => [x, i] as const).filter(([x]) => x === t)[2][1];
    assert.ok(order.indexOf('C') < thirdOf('A') && order.indexOf('C') < thirdOf('B'), order.join(' '));
    // and each machine had at most one job running at any time
    const running = new Map<string, number>();
    let worst = 0;
    const pool2 = new SolverPool({ timeoutMs: 20_000, threads: 3, machineConcurrency: 1 });
    pool2.onJob.push((e) => {
      if (e.phase === 'dispatched') { running.set(e.tenant!, (running.get(e.tenant!) ?? 0) + 1); worst = Math.max(worst, running.get(e.tenant!)!); }
      if (e.phase === 'settled') running.set(e.tenant!, (running.get(e.tenant!) ?? 1) - 1);
    });
    try {
      await Promise.all(Array.from({ length: 8 }, (_, i) => pool2.run('protect', { health: 'up' }, { seed: i, now: 1_790_000_000, tenant: 'A' })));
      assert.equal(worst, 1, 'one machine never runs two jobs at once with SVC_MACHINE_CONCURRENCY=1');
    } finally { await pool2.close(); }
  } finally {
    await pool.close();
  }
});

test('a machine\'s queue is bounded (429 RATE_LIMITED with retryAfterSeconds); a waiting job that is cancelled leaves the queue without running', async () => {
  const pool = new SolverPool({ timeoutMs: 20_000, threads: 2, machineConcurrency: 1, machineQueue: 2 });
  try {
    const long = pool.run('evolve', maxEvolve(), { seed: 1, now: 0, tenant: 'A', timeoutMs: 2000 }).then(() => 'ok', (e) => e.code);
    await sleep(50);
    const ac = new AbortController();
    const usage = { started: false, workerMs: 0 };
    const waiting1 = pool.run('protect', { health: 'up' }, { seed: 1, now: 0, tenant: 'A', signal: ac.signal, usage }).then(() => 'ok', (e) => e.code);
    const waiting2 = pool.run('protect', { health: 'up' }, { seed: 2, now: 0, tenant: 'A' }).then(() => 'ok', (e) => e.code);
    assert.deepEqual(pool.tenantLoad('A'), { running: 1, waiting: 2 });
    await assert.rejects(pool.run('protect', { health: 'up' }, { seed: 3, now: 0, tenant: 'A' }), (e: any) => {
      assert.equal(e.code, 'RATE_LIMITED');
      assert.equal(e.details.retryAfterSeconds, 20);
      assert.match(e.message, /at most 1 running and 2 waiting/);
      return true;
    });
    // another machine is not affected by A's full queue: it runs on the second worker at once
    const t0 = performance.now();
    await pool.run('protect', { health: 'up' }, { seed: 4, now: 0, tenant: 'B' });
    assert.ok(performance.now() - t0 < 1500, `B waited ${performance.now() - t0} ms`);
    ac.abort();
    assert.equal(await waiting1, 'INVALID_INPUT');
    assert.equal(usage.started, false, 'the cancelled job never reached a worker');
    assert.deepEqual(pool.tenantLoad('A'), { running: 1, waiting: 1 });
    assert.equal(await long, 'TIME_BUDGET_EXCEEDED');
    assert.equal(await waiting2, 'ok');
  } finally {
    await pool.close();
  }
});

test('the time budget counts from the start of the run: a job queued behind a machine\'s long job still gets its whole budget', async () => {
  const pool = new SolverPool({ timeoutMs: 20_000, threads: 2, machineConcurrency: 1 });
  try {
    // warm both workers with the solver, so the second job runs in milliseconds once started
    await Promise.all([1, 2].map((i) => pool.run('evolve', smallEvolve(), { seed: i, now: 0 })));
    const longUsage = { started: false, workerMs: 0 };
    const long = pool.run('evolve', maxEvolve(), { seed: 1, now: 0, tenant: 'A', timeoutMs: 1500, usage: longUsage }).then(() => 'ok', (e) => e.code);
    const t0 = performance.now();
    const usage = { started: false, workerMs: 0 };
    // queued behind the long job for ~1.5 s, with a budget of 1 s: it must not be stopped
    const queued = await pool.run('evolve', smallEvolve(), { seed: 2, now: 0, tenant: 'A', timeoutMs: 1000, usage });
    const waited = performance.now() - t0;
    assert.ok(Number.isFinite(queued.value));
    assert.ok(waited >= 1400, `the second job waited ${waited} ms for the first`);
    assert.ok(usage.started && usage.workerMs < 1000, `ran ${usage.workerMs} ms`);
    assert.equal(await long, 'TIME_BUDGET_EXCEEDED');
    assert.ok(longUsage.started && longUsage.workerMs >= 1450 && longUsage.workerMs < 3000, `the long job ran ${longUsage.workerMs} ms`);
  } finally {
    await pool.close();
  }
});

test('tenant A floods with concurrent maximum-size jobs while tenant B makes trivial calls: B\'s p99 stays under 1 s and A pays for the worker time it used', { timeout: 120_000 }, async (t) => {
  const n = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '1500' } });
  try {
    const a = await n.machine('flooder');
    const b = await n.machine('bystander');
    const perDay = n.app.config.tokensPerDay;
    // warm-up: both workers have loaded their solver once
    assert.equal((await n.call('POST', '/api/svc/epi', {}, b.apiKey)).status, 200);
    assert.equal((await n.call('POST', '/api/svc/evolve', SMALL_EVOLVE, a.apiKey)).status, 200);
    const FLOOD = 6;
    const started = performance.now();
    const flood = Promise.all(Array.from({ length: FLOOD }, () => n.call('POST', '/api/svc/evolve', MAX_EVOLVE, a.apiKey)));
    let floodDone = false;
    void flood.then(() => { floodDone = true; });
    const latencies: number[] = [];
    while (!floodDone) {
      const t0 = performance.now();
      const r = await n.call('POST', '/api/svc/epi', {}, b.apiKey);
      latencies.push(performance.now() - t0);
      assert.equal(r.status, 200, r.text);
    }
    const floodSeconds = (performance.now() - started) / 1000;
    const answers = await flood;
    for (const r of answers) {
      assert.equal(r.status, 422, r.text);
      assert.equal(r.body.code, 'TIME_BUDGET_EXCEEDED');
      // a 1.5 s budget is 2 tokens (1 per started second); each run used its whole budget
      assert.equal(r.body.tokens.cost, 2);
      assert.ok(r.body.workerSeconds >= 1.45 && r.body.workerSeconds < 3, String(r.body.workerSeconds));
    }
    // A's jobs ran one at a time (SVC_MACHINE_CONCURRENCY=1): the flood took ~FLOOD budgets
    assert.ok(floodSeconds >= FLOOD * 1.45, `the flood ended after ${floodSeconds} s`);
    const charged = perDay - 1 - (await n.call('GET', '/api/machines/me', undefined, a.apiKey)).body.tokens.remaining;
    const workerSeconds = answers.reduce((s, r) => s + r.body.workerSeconds, 0);
    assert.equal(charged, FLOOD * 2);
    const bP99 = pct(latencies, 0.99);
    const figures = `store ${n.app.db.backend}: B made ${latencies.length} calls during A's flood of ${FLOOD} maximum-size evolve jobs (${floodSeconds.toFixed(1)} s): p50 ${pct(latencies, 0.5).toFixed(0)} ms, p99 ${bP99.toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; A used ${workerSeconds.toFixed(2)} s of worker time and was charged ${charged} tokens`;
    t.diagnostic(figures);
    console.log(`fair.test: ${figures}`);
    assert.ok(bP99 < 1000, `B's p99 is ${bP99} ms`);
    assert.ok(latencies.length >= 10, `B made only ${latencies.length} calls`);
  } finally {
    await n.close();
  }
});

test('a solver call is admitted only when the machine can pay for its whole time budget; a stopped run is charged what it used', async () => {
  // 2 s budget = 2 tokens; 4 tokens a day
  const n = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '2000', SVC_TOKENS_PER_DAY: '4' } });
  try {
    const m = await n.machine('thrifty');
    assert.equal((await n.call('POST', '/api/svc/epi', {}, m.apiKey)).body.tokens.remaining, 3);
    const stopped = await n.call('POST', '/api/svc/evolve', MAX_EVOLVE, m.apiKey);
    assert.equal(stopped.status, 422, stopped.text);
    assert.equal(stopped.body.code, 'TIME_BUDGET_EXCEEDED');
    assert.deepEqual(stopped.body.tokens, { cost: 2, remaining: 1 });
    assert.match(stopped.body.error, /charged 2 token/);
    // 1 token left cannot pay for a 2 s budget: refused before anything runs
    const refused = await n.call('POST', '/api/svc/epi', {}, m.apiKey);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.code, 'QUOTA_EXCEEDED');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(refused.body.error, /whole time budget/);
    assert.equal((await n.call('GET', '/api/machines/me', undefined, m.apiKey)).body.tokens.remaining, 1);
  } finally {
    await n.close();
  }
});

test('a run cancelled by its caller after it started is charged for the worker time it used; one cancelled while waiting is not', async () => {
  const n = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '20000' } });
  try {
    const base = await n.listen();
    // a worker warm with evolve (another machine's small call): the first job below starts as soon
    // as it is dispatched, not after a cold thread's start (seconds on a loaded host)
    const warm = await n.machine('warm-up');
    assert.equal((await n.call('POST', '/api/svc/evolve', SMALL_EVOLVE, warm.apiKey)).status, 200);
    const m = await n.machine('impatient');
    const perDay = n.app.config.tokensPerDay;
    const events: SolverJobEvent[] = [];
    n.app.pool.onJob.push((e) => events.push(e));
    const post = (body: unknown, signal: AbortSignal) => fetch(`${base}/api/svc/evolve`, {
      method: 'POST', signal, headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` }, body: JSON.stringify(body),
    }).catch((e) => e);
    const running = new AbortController();
    const waiting = new AbortController();
    const r1 = post(MAX_EVOLVE, running.signal);
    const t0 = Date.now();
    while (!events.some((e) => e.phase === 'dispatched') && Date.now() - t0 < 30_000) await sleep(10);
    const r2 = post(MAX_EVOLVE, waiting.signal); // queued behind the first (one job per machine)
    while (n.app.pool.tenantLoad(m.zid).waiting < 1 && Date.now() - t0 < 30_000) await sleep(10);
    await sleep(1500);
    waiting.abort();
    running.abort();
    await Promise.all([r1, r2]);
    // the charge lands once the pool has stopped the job
    let remaining = perDay;
    while (remaining === perDay && Date.now() - t0 < 30_000) {
      await sleep(50);
      remaining = (await n.call('GET', '/api/machines/me', undefined, m.apiKey)).body.tokens.remaining;
    }
    const settled = events.filter((e) => e.phase === 'settled');
    assert.deepEqual(settled.map((e: any) => [e.outcome, e.started]).sort(), [['cancelled', false], ['cancelled', true]]);
    const ran = settled.find((e: any) => e.started) as any;
    const expected = Math.max(1, Math.ceil(ran.runSeconds));
    assert.ok(ran.runSeconds >= 0.3, `the first job ran ${ran.runSeconds} s`);
    assert.equal(perDay - remaining, expected, `charged ${perDay - remaining} for ${ran.runSeconds} s of worker time`);
  } finally {
    await n.close();
  }
});
