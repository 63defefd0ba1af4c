// Operations endpoints (issue 12): /healthz, /readyz, Prometheus /metrics, x-request-id echo and
// the live observer feed (GET /api/observer/stream) on one node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';
import { readSse } from './harness.ts';
import { markDraining } from '../../src/observability/index.ts';
import { SolverPool, type SolverJobEvent } from '../../src/solvers/engine/pool.ts';
import { descriptor as action } from '../../src/solvers/action.ts';

function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const p of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[p[1]] = p[2];
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return null;
}

test('GET /healthz answers while the process is up; GET /readyz checks the store and the migrations', async () => {
  const t = await testNode();
  try {
    const h = await t.call('GET', '/healthz');
    assert.equal(h.status, 200);
    assert.equal(h.body.status, 'up');
    assert.equal(h.body.node, t.app.nodeId);
    const r = await t.call('GET', '/readyz');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.checks, { store: 'ok', migrations: 'ok', draining: false });
    // a migration this build ships but the store lacks: not ready, and the answer names it
    await t.app.db.query("DELETE FROM schema_migrations WHERE name = '600_chain_notify.sql'");
    const r2 = await t.call('GET', '/readyz');
    assert.equal(r2.status, 503);
    assert.equal(r2.body.ready, false);
    assert.match(r2.body.checks.migrations, /600_chain_notify\.sql/);
    await t.app.db.query("INSERT INTO schema_migrations(name) VALUES ('600_chain_notify.sql')");
    assert.equal((await t.call('GET', '/readyz')).status, 200);
    // a draining node (SIGTERM) is not ready, while it still answers as live
    markDraining(t.app);
    const r3 = await t.call('GET', '/readyz');
    assert.equal(r3.status, 503);
    assert.deepEqual(r3.body.checks, { store: 'ok', migrations: 'ok', draining: true });
    assert.equal((await t.call('GET', '/healthz')).status, 200);
  } finally {
    await t.close();
  }
});

test('GET /readyz is 503 when the store does not answer', async () => {
  const t = await testNode();
  try {
    const q = t.app.db.query.bind(t.app.db);
    t.app.db.query = async () => { throw new Error('connection refused'); };
    const r = await t.call('GET', '/readyz');
    assert.equal(r.status, 503);
    assert.match(r.body.checks.store, /unreachable: connection refused/);
    t.app.db.query = q;
  } finally {
    await t.close();
  }
});

test('x-request-id: a client id is honoured and echoed; without one the node makes one and echoes it', async () => {
  const t = await testNode();
  try {
    const a = await t.call('GET', '/api/svc/pulse', undefined, undefined, { 'x-request-id': 'client-req-42' });
    assert.equal(a.headers['x-request-id'], 'client-req-42');
    const b = await t.call('GET', '/api/svc/pulse');
    assert.match(String(b.headers['x-request-id']), /^[0-9A-HJKMNP-TV-Z]{26}$/);
    const c = await t.call('GET', '/no/such/route', undefined, undefined, { 'x-request-id': 'nf-1' });
    assert.equal(c.status, 404);
    assert.equal(c.headers['x-request-id'], 'nf-1');
  } finally {
    await t.close();
  }
});

test('GET /metrics: request rate and latency by operation, solver job times, pool, seals and token refusals', async () => {
  const t = await testNode({ config: { tokensPerDay: 2 } });
  try {
    const m = await t.machine();
    for (let i = 0; i < 3; i++) await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey);
    await t.call('POST', '/api/svc/lotka', { alpha: 1, beta: 1, gamma: 1, delta: 1, x0: 1, y0: 1, tMax: 1, dt: 0.01 }, m.apiKey);
    await t.call('GET', '/api/svc/pulse');
    const r = await t.call('GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = r.text;
    assert.equal(metricValue(text, 'svc_http_requests_total', { operation: 'solver.protect', method: 'POST', status: '200' }), 2);
    assert.equal(metricValue(text, 'svc_http_requests_total', { operation: 'solver.protect', method: 'POST', status: '429' }), 1);
    assert.equal(metricValue(text, 'svc_http_requests_total', { operation: 'pulse.get', method: 'GET', status: '200' }), 1);
    assert.equal(metricValue(text, 'svc_http_request_duration_seconds_count', { operation: 'solver.protect' }), 3);
    assert.equal(metricValue(text, 'svc_http_request_duration_seconds_bucket', { operation: 'solver.protect', le: '+Inf' }), 3);
    assert.equal(metricValue(text, 'svc_seals_total', { solver: 'protect' }), 2);
    // the machine had 2 tokens: the third protect and the lotka call are refused
    assert.equal(metricValue(text, 'svc_token_refusals_total'), 2);
    assert.equal(metricValue(text, 'svc_http_errors_total', { code: 'QUOTA_EXCEEDED' }), 2);
    assert.equal(metricValue(text, 'svc_solver_job_duration_seconds_count', { solver: 'protect', outcome: 'ok' }), 2);
    for (const g of ['svc_pool_threads', 'svc_pool_queue_depth', 'svc_pool_utilization', 'svc_http_requests_in_flight', 'process_resident_memory_bytes', 'svc_solver_jobs_in_flight']) {
      assert.notEqual(metricValue(text, g), null, `${g} is exported`);
    }
    assert.equal(metricValue(text, 'svc_node_info', { node_id: t.app.nodeId }), 1);
    // unknown routes fold into one series
    await t.call('GET', '/nope/' + 'x'.repeat(50));
    const r2 = await t.call('GET', '/metrics');
    assert.equal(metricValue(r2.text, 'svc_http_requests_total', { operation: 'unmatched', method: 'GET', status: '404' }), 1);
    assert.equal(metricValue(r2.text, 'svc_http_requests_total', { operation: 'route:/metrics', method: 'GET', status: '200' }), 1);
  } finally {
    await t.close();
  }
});

test('the solver pool tells its onJob listeners of each job, and how it ended: ok, refused, cancelled, timeout, error', async () => {
  const pool = new SolverPool({ timeoutMs: 60_000, threads: 1 });
  const events: SolverJobEvent[] = [];
  pool.onJob.push((e) => events.push(e));
  pool.onJob.push(() => { throw new Error('a broken listener'); }); // never breaks a job
  const run = (name: string, input: unknown, opts: { signal?: AbortSignal; timeoutMs?: number } = {}) =>
    pool.run(name, input, { seed: 1, now: 0, ...opts }).then(() => 'ok', (e) => e?.code ?? 'raw');
  try {
    assert.equal(await run('protect', { health: 'up' }), 'ok');
    assert.equal(await run('action', action.input.parse({ system: 'kepler', q0: [0, 0], p0: [1, 0] })), 'INVALID_INPUT');
    const ac = new AbortController();
    ac.abort();
    assert.equal(await run('protect', { health: 'up' }, { signal: ac.signal }), 'INVALID_INPUT');
    // over a second of work (the worker has loaded the solver already), stopped by a 0.4 s budget
    assert.equal(await run('action', action.input.parse({ system: 'kepler', order: 8, steps: 2_000_000, dt: 0.0001 }), { timeoutMs: 400 }), 'TIME_BUDGET_EXCEEDED');
    assert.equal(await run('no-such-solver', {}), 'raw');
    const settled = events.filter((e) => e.phase === 'settled');
    assert.equal(events.filter((e) => e.phase === 'submitted').length, 5);
    assert.deepEqual(settled.map((e) => [e.solver, e.outcome, e.started]), [
      ['protect', 'ok', true], ['action', 'refused', true], ['protect', 'cancelled', false], ['action', 'timeout', true], ['no-such-solver', 'error', false],
    ]);
    const timeout = settled[3];
    assert.ok(timeout.phase === 'settled' && timeout.seconds >= 0.4 && timeout.seconds < 10, `timeout after ${JSON.stringify(timeout)}`);
  } finally {
    await pool.close();
  }
});

test('svc_seals_total counts contract fires too (they seal inside their own transaction), and only fires that sealed', async () => {
  const t = await testNode();
  try {
    const m = await t.machine();
    const def = {
      version: 2, name: 'Two steps', initial: 'open',
      states: [{ name: 'open' }, { name: 'done', terminal: true }],
      transitions: [{ from: 'open', to: 'done', name: 'finish', guard: 'ready' }],
      variables: { ready: false },
    };
    const d = await t.call('POST', '/api/contracts', { definition: def }, m.apiKey);
    assert.equal(d.status, 200, d.text);
    const blocked = await t.call('POST', `/api/contracts/${d.body.id}/fire`, {}, m.apiKey);
    assert.equal(blocked.body.fired, false, blocked.text);
    const fired = await t.call('POST', `/api/contracts/${d.body.id}/fire`, { variables: { ready: true } }, m.apiKey);
    assert.equal(fired.body.fired, true, fired.text);
    const text = (await t.call('GET', '/metrics')).text;
    assert.equal(metricValue(text, 'svc_seals_total', { solver: 'contract' }), 1);
  } finally {
    await t.close();
  }
});

test('GET /metrics can require a bearer (SVC_METRICS_TOKEN)', async () => {
  const t = await testNode({ env: { SVC_METRICS_TOKEN: 'scrape-secret' } });
  try {
    assert.equal((await t.call('GET', '/metrics')).status, 401);
    assert.equal((await t.call('GET', '/metrics', undefined, 'wrong')).status, 401);
    assert.equal((await t.call('GET', '/metrics', undefined, 'scrape-secret')).status, 200);
  } finally {
    await t.close();
  }
});

test('the observer stream delivers each chain append live: global (no values) and the machine\'s own, resumable by Last-Event-ID', async () => {
  const t = await testNode();
  try {
    const url = await t.listen();
    const a = await t.machine('observer a');
    const b = await t.machine('observer b');
    const global = await readSse(`${url}/api/observer/stream`);
    const mine = await readSse(`${url}/api/observer/stream`, { authorization: `Bearer ${a.apiKey}` });
    const sealed: any[] = [];
    for (let i = 0; i < 3; i++) sealed.push((await t.call('POST', '/api/svc/protect', { health: 'up' }, a.apiKey)).body);
    await t.call('POST', '/api/svc/protect', { health: 'up' }, b.apiKey);
    const g = await global.until((evs) => evs.filter((e) => e.event === 'entry').length >= 4);
    const ge = g.filter((e) => e.event === 'entry').map((e) => JSON.parse(e.data));
    assert.deepEqual(Object.keys(ge[0]).sort(), ['at', 'hash', 'kind', 'machine']);
    assert.deepEqual(ge.map((e) => e.machine), [a.slug, a.slug, a.slug, b.slug]);
    assert.equal(ge[0].hash, sealed[0].receipt.chain.hash.slice(0, 12));
    const me = (await mine.until((evs) => evs.filter((e) => e.event === 'entry').length >= 3)).filter((e) => e.event === 'entry');
    assert.deepEqual(me.map((e) => Number(e.id)), sealed.map((s) => s.receipt.chain.seq));
    const full = JSON.parse(me[2].data);
    assert.equal(full.zid, a.zid);
    assert.equal(full.ref, sealed[2].receipt.id);
    assert.equal(full.hash, sealed[2].receipt.chain.hash);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(mine.events.filter((e) => e.event === 'entry').length, 3, 'machine A never sees machine B\'s entries');
    global.close();
    mine.close();
    // reconnect with Last-Event-ID after the first seal: the two later entries are replayed
    const resumed = await readSse(`${url}/api/observer/stream`, { authorization: `Bearer ${a.apiKey}`, 'last-event-id': String(sealed[0].receipt.chain.seq) });
    const re = (await resumed.until((evs) => evs.filter((e) => e.event === 'entry').length >= 2)).filter((e) => e.event === 'entry');
    assert.deepEqual(re.map((e) => Number(e.id)), [sealed[1].receipt.chain.seq, sealed[2].receipt.chain.seq]);
    resumed.close();
    // scope=machine without a machine key is refused
    assert.equal((await fetch(`${url}/api/observer/stream?scope=machine`)).status, 401);
  } finally {
    await t.close();
  }
});

test('a machine-scope observer stream ends when the machine\'s keys are revoked', async () => {
  const t = await testNode();
  try {
    const url = await t.listen();
    const a = await t.machine('revoked');
    const s = await readSse(`${url}/api/observer/stream`, { authorization: `Bearer ${a.apiKey}` });
    const r = await t.call('POST', `/api/admin/machines/${a.zid}/revoke-keys`, {}, (await import('../helpers.ts')).ADMIN_KEY);
    assert.equal(r.status, 200, r.text);
    const evs = await s.until((e) => e.some((x) => x.event === 'end'));
    assert.equal(JSON.parse(evs.find((x) => x.event === 'end')!.data).reason, 'keys-changed');
    await s.ended;
  } finally {
    await t.close();
  }
});
