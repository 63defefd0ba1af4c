// Issue 27's first acceptance line at its own scale, on the store CI gives it (PGlite, or PostgreSQL
// with DATABASE_URL): one computation of about 30 s (a U(1) lattice gauge Monte Carlo, 32×32
// links, 48,000 Metropolis sweeps: 9.8e7 link updates, 25-30 s of one worker on a quiet 2-core
// machine) submitted three ways at once:
//   - over REST (`POST /api/jobs`), polled;
//   - over MCP 2026-07-28 by the SDK v2 client declaring `io.modelcontextprotocol/tasks`, driven by
//     the official tasks client, with the `subscriptions/listen` stream of `notifications/tasks`;
//   - over MCP 2025-11-25 core tasks (`params.task`, notifications/tasks/status, tasks/result).
// Each: progress rises (many reports: a 30 s run flushes its progress every 0.4 s), the answer is
// the synchronous call's (the node here allows a 300 s synchronous call, run alongside), exactly one
// receipt. Cancelling mid-run, and other machines seeing nothing, are in test/jobs/rest.test.ts and
// test/mcp/tasks.test.ts (the cancel there stops a job of this same size within 1 s).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resultFromTaskOutcome, taskViewFromExecutionEvent } from '@modelcontextprotocol/ext-tasks/client';
import { testNode, type TestNode } from '../helpers.ts';
import { connect } from '../mcp/client.ts';
import { modernClient, taskSession, listen, percent, sealed, TaskResult, AnyResult } from '../mcp/tasks-client.ts';

const THIRTY = { L: 32, sweeps: 48_000, therm: 0 };

let t: TestNode;
let base: string;

before(async () => {
  t = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '300000', SVC_SOLVER_THREADS: '4' } });
  base = await t.listen();
}, { timeout: 120_000 });
after(async () => { await t?.close(); });

const diag = (s: string) => process.stderr.write(`# ${s}\n`);
const receipts = async (zid: string) => Number((await t.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [zid]))[0].n);
const rising = (xs: number[], what: string) => { for (let i = 1; i < xs.length; i++) assert.ok(xs[i] >= xs[i - 1], `${what} falls: ${xs.join(', ')}`); };

test('a job of about 30 s over REST, over MCP 2026-07-28 tasks and over MCP 2025-11-25 core tasks: progress rises, the answer is the synchronous call\'s, one receipt each', { timeout: 600_000 }, async () => {
  const [R, M, L, S] = await Promise.all(['thirty REST', 'thirty MCP 2026', 'thirty MCP 2025', 'thirty sync'].map((n) => t.machine(n)));
  const t0 = Date.now();
  // the synchronous call, on a fourth machine, at the same time
  const syncP = t.call('POST', '/api/svc/gauge', THIRTY, S.apiKey).then((r) => { diag(`synchronous call: ${((Date.now() - t0) / 1000).toFixed(1)} s`); return r; });

  const viaRest = (async () => {
    const sub = await t.call('POST', '/api/jobs', { tool: 'svc_gauge', arguments: THIRTY }, R.apiKey);
    assert.equal(sub.status, 202, sub.text);
    const fractions: number[] = [];
    for (;;) {
      const j = (await t.call('GET', `/api/jobs/${sub.body.id}`, undefined, R.apiKey)).body;
      if (j.status === 'running' && j.progress) fractions.push(j.progress.fraction);
      if (['succeeded', 'failed', 'cancelled'].includes(j.status)) {
        assert.equal(j.status, 'succeeded', JSON.stringify(j.response?.body));
        assert.equal(j.attempts, 1);
        assert.equal(j.tokens.charged, j.response.body.tokens.cost);
        const inner = fractions.filter((f) => f > 0 && f < 1);
        assert.ok(new Set(inner).size >= 3, `REST progress: ${fractions.join(', ')}`);
        rising(fractions, 'REST progress');
        diag(`REST job: ${((Date.now() - t0) / 1000).toFixed(1)} s, ${new Set(inner).size} distinct progress readings`);
        return j.response.body;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();

  const via2026 = (async () => {
    const c = await modernClient(base, M.apiKey);
    const session = taskSession(base, c, M.apiKey);
    try {
      const ex = await session.callTool('svc_gauge', THIRTY, { metadata: { 'svc/task': true } });
      assert.equal(ex.kind, 'task');
      const taskId = (ex as any).handle.taskId as string;
      const notes = listen(base, M.apiKey, [taskId]);
      const { outcome } = await ex.settle({ onEvent: (e) => { taskViewFromExecutionEvent(e); } });
      const result: any = resultFromTaskOutcome(outcome);
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      const tasks = (await notes).filter((m) => m.method === 'notifications/tasks').map((m) => m.params);
      const progress = tasks.map((x) => percent(x.statusMessage)).filter((p) => !Number.isNaN(p));
      assert.ok(new Set(progress).size >= 3, `2026 notifications/tasks: ${tasks.map((x) => x.statusMessage).join(' | ')}`);
      rising(progress, '2026 progress');
      assert.equal(tasks.at(-1).status, 'completed');
      diag(`MCP 2026 task: ${((Date.now() - t0) / 1000).toFixed(1)} s, progress ${progress.join(' → ')} %`);
      return result.structuredContent;
    } finally { await session.close().catch(() => {}); await c.close(); }
  })();

  const via2025 = (async () => {
    const a = await connect(base, 'legacy', L.apiKey);
    try {
      const statuses: any[] = [];
      a.setNotificationHandler('notifications/tasks/status' as any, (n: any) => { statuses.push(n.params); });
      const created = await (a as any).request({ method: 'tools/call', params: { name: 'svc_gauge', arguments: THIRTY, task: { ttl: 600_000 } } }, TaskResult);
      const taskId = created.task.taskId;
      const result = await (a as any).request({ method: 'tasks/result', params: { taskId } }, AnyResult, { timeout: 500_000 });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      for (let i = 0; i < 50 && statuses.at(-1)?.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
      const progress = statuses.map((s) => percent(s.statusMessage)).filter((p) => !Number.isNaN(p));
      assert.ok(new Set(progress).size >= 3, `2025 notifications/tasks/status: ${statuses.map((s) => s.statusMessage).join(' | ')}`);
      rising(progress, '2025 progress');
      assert.equal(statuses.at(-1).status, 'completed');
      diag(`MCP 2025 task: ${((Date.now() - t0) / 1000).toFixed(1)} s, progress ${progress.join(' → ')} %`);
      return result.structuredContent;
    } finally { await a.close(); }
  })();

  const [sync, rest, m26, m25] = await Promise.all([syncP, viaRest, via2026, via2025]);
  assert.equal(sync.status, 200, sync.text);
  for (const [face, body] of [['REST', rest], ['MCP 2026', m26], ['MCP 2025', m25]] as const) {
    assert.deepEqual(sealed(body), sealed(sync.body), `${face}: the synchronous call's answer`);
    assert.notEqual(body.receipt.id, sync.body.receipt.id);
  }
  for (const m of [R, M, L, S]) assert.equal(await receipts(m.zid), 1, 'one computation, one receipt');
});
