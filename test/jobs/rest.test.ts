// Jobs over REST (issue 27, docs/jobs.md), on the store CI gives it (embedded, or PostgreSQL with
// DATABASE_URL): a job's progress rises and its sealed answer equals the synchronous call's
// (value, result, input, precision), with one receipt; a running job cancelled stops within a
// second and is charged the worker time it used; another machine sees none of it (404);
// `Prefer: respond-async` turns a sealed call into a job (RFC 7240).
// The "long" job here is a few seconds (a U(1) gauge Monte Carlo of a few thousand sweeps): the
// properties are the same as for a 30 s one, which bench/jobs.bench.ts runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';

const LONG = { L: 16, sweeps: 6_000, therm: 0 };
const ENDLESS = { L: 32, sweeps: 58_000, therm: 0 };

async function until(t: TestNode, key: string, id: string, pred: (j: any) => boolean, ms = 60_000, seen?: any[]): Promise<any> {
  const t0 = Date.now();
  for (;;) {
    const r = await t.call('GET', `/api/jobs/${id}`, undefined, key);
    assert.equal(r.status, 200, r.text);
    seen?.push(r.body);
    if (pred(r.body)) return r.body;
    if (Date.now() - t0 > ms) throw new Error(`job ${id} did not get there: ${r.text}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

test('a job over REST: progress rises, its answer is the synchronous one, one receipt; cancel stops it within 1 s and charges the time used; another machine gets 404', async () => {
  const t = await testNode({ env: { SVC_SOLVER_THREADS: '3' } });
  try {
    const a = await t.machine('jobs A');
    const b = await t.machine('jobs B');
    const sub = await t.call('POST', '/api/jobs', { tool: 'svc_gauge', arguments: LONG, budget: { seconds: 120 } }, a.apiKey);
    assert.equal(sub.status, 202, sub.text);
    assert.equal(sub.headers.location, `/api/jobs/${sub.body.id}`);
    assert.match(sub.body.id, /^job_[0-9A-Z]{26}$/);
    assert.equal(sub.body.tokens.reserved, 120);
    assert.equal(sub.body.tokens.charged, null);
    // another machine can neither see nor cancel it
    assert.equal((await t.call('GET', `/api/jobs/${sub.body.id}`, undefined, b.apiKey)).status, 404);
    assert.equal((await t.call('DELETE', `/api/jobs/${sub.body.id}`, undefined, b.apiKey)).status, 404);
    assert.equal((await t.call('GET', '/api/jobs', undefined, b.apiKey)).body.jobs.length, 0);
    const seen: any[] = [];
    const done = await until(t, a.apiKey, sub.body.id, (j) => j.status === 'succeeded' || j.status === 'failed', 120_000, seen);
    assert.equal(done.status, 'succeeded', JSON.stringify(done.response?.body));
    const fractions = seen.filter((j) => j.status === 'running' && j.progress).map((j) => j.progress.fraction);
    assert.ok(fractions.some((f) => f > 0 && f < 1), `progress seen: ${fractions}`);
    for (let i = 1; i < fractions.length; i++) assert.ok(fractions[i] >= fractions[i - 1], `progress falls: ${fractions}`);
    assert.equal(done.attempts, 1);
    assert.equal(done.response.status, 200);
    const body = done.response.body;
    // charged what its receipt says: the seal and the worker time past the first second (issue 33)
    assert.equal(done.tokens.charged, body.tokens.cost);
    assert.ok(body.tokens.cost >= 1);
    const sync = await t.call('POST', '/api/svc/gauge', LONG, a.apiKey);
    assert.equal(sync.status, 200);
    for (const k of ['value', 'result', 'input', 'precision', 'unit', 'solver', 'method']) assert.deepEqual(body[k], sync.body[k], k);
    const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE id = $1', [body.receipt.id]);
    assert.equal(n, 1);
    // the listing shows it; another machine's listing does not
    const mine = (await t.call('GET', '/api/jobs?status=succeeded', undefined, a.apiKey)).body;
    assert.deepEqual(mine.jobs.map((j: any) => j.id), [sub.body.id]);

    // cancel a running job
    const long = await t.call('POST', '/api/jobs', { tool: 'svc_gauge', arguments: ENDLESS, budget: { seconds: 300 } }, a.apiKey);
    assert.equal(long.status, 202, long.text);
    await until(t, a.apiKey, long.body.id, (j) => (j.status === 'running' && (j.progress?.fraction ?? 0) > 0) || j.status === 'failed');
    await new Promise((res) => setTimeout(res, 1500));
    const t0 = Date.now();
    const c = await t.call('DELETE', `/api/jobs/${long.body.id}`, undefined, a.apiKey);
    assert.equal(c.status, 200, c.text);
    const ended = c.body.status === 'cancelled' ? c.body : await until(t, a.apiKey, long.body.id, (j) => j.status === 'cancelled', 5000);
    const stopMs = Date.now() - t0;
    assert.ok(stopMs < 1500, `stopped after ${stopMs} ms`);
    const used = ended.response.body.workerSeconds;
    assert.ok(used >= 1.5, `worker seconds ${used}`);
    assert.equal(ended.tokens.charged, Math.ceil(used), JSON.stringify(ended));
    assert.ok(Number.isInteger(ended.tokens.charged) && ended.tokens.charged >= 2);
    // cancelling it again changes nothing
    assert.deepEqual((await t.call('DELETE', `/api/jobs/${long.body.id}`, undefined, a.apiKey)).body, c.body.status === 'cancelled' ? c.body : ended);
  } finally {
    await t.close();
  }
});

test('Prefer: respond-async on a sealed operation answers 202 with Location and Preference-Applied; the job ends with the sealed answer', async () => {
  const t = await testNode();
  try {
    const a = await t.machine('prefer');
    const r = await t.call('POST', '/api/svc/epi', { model: 'sir' }, a.apiKey, { prefer: 'respond-async' });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.headers['preference-applied'], 'respond-async');
    assert.equal(r.headers.location, `/api/jobs/${r.body.id}`);
    assert.equal(r.body.tool, 'svc_epi');
    const done = await until(t, a.apiKey, r.body.id, (j) => j.status === 'succeeded');
    const sync = await t.call('POST', '/api/svc/epi', { model: 'sir' }, a.apiKey);
    for (const k of ['value', 'result', 'input', 'precision']) assert.deepEqual(done.response.body[k], sync.body[k], k);
    // its events: the job as it is, then the stream ends (it has ended)
    const ev = await t.call('GET', `/api/jobs/${r.body.id}/events`, undefined, a.apiKey);
    assert.equal(ev.status, 200);
    assert.match(String(ev.headers['content-type']), /text\/event-stream/);
    const frames = ev.text.split('\n').filter((l: string) => l.startsWith('data: ')).map((l: string) => JSON.parse(l.slice(6)));
    assert.equal(frames.at(-1).status, 'succeeded');
    assert.equal(frames.at(-1).response.body.receipt.id, done.response.body.receipt.id);
    assert.equal((await t.call('GET', `/api/jobs/${r.body.id}/events`, undefined, (await t.machine('other')).apiKey)).status, 404);
    // a refusal is the synchronous refusal, before anything is queued
    const bad = await t.call('POST', '/api/svc/epi', { model: 'nope' }, a.apiKey, { prefer: 'respond-async' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, (await t.call('POST', '/api/svc/epi', { model: 'nope' }, a.apiKey)).body);
  } finally {
    await t.close();
  }
});
