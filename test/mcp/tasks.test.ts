// MCP tasks (issue 27): a long solver call as a task, i.e. a job, over both protocol generations.
//   - 2026-07-28: the SDK v2 client pinned to 2026-07-28 declaring `io.modelcontextprotocol/tasks`,
//     driven by the official tasks client (@modelcontextprotocol/ext-tasks, which frames its own
//     2026 task requests because the SDK client rejects `resultType: "task"`), plus the
//     `subscriptions/listen` stream of `notifications/tasks`;
//   - 2025-11-25: the SDK v2 client after a 2025-11-25 initialize, with `params.task`, tasks/get,
//     tasks/result, tasks/list, tasks/cancel and notifications/tasks/status.
// Scale: svc_gauge (U(1), 32×32 links, 8,000 sweeps): about 3 s of one worker on a quiet machine,
// long enough for several progress reports and for the polls to see it run, short enough to run
// four of them in one file; the 30 s job of the acceptance line,
// with many progress reports, is test/jobs/thirty-seconds.test.ts. Runs on PGlite, or on PostgreSQL with DATABASE_URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { resultFromTaskOutcome, taskViewFromExecutionEvent } from '@modelcontextprotocol/ext-tasks/client';
import { testNode, type TestNode } from '../helpers.ts';
import { connect, rpc, envelope, MODERN, LEGACY } from './client.ts';
import { TASKS, CAPS, modernClient as mcpModernClient, taskSession as mcpTaskSession, modernRpc as mcpModernRpc, listen as mcpListen, percent, sealed, TaskResult, AnyResult } from './tasks-client.ts';
import type { Jobs } from '../../src/jobs/types.ts';
import { POLL_QUEUED_MS, POLL_RUNNING_MS } from '../../src/mcp/tasks.ts';

/** a job of a few seconds (U(1) gauge, 32×32, 8,000 sweeps: ~3 s of a worker on a quiet machine) */
const LONG = { L: 32, sweeps: 8_000, therm: 0 };
/** a job of about 30 s (U(1) gauge, 32×32, 48,000 sweeps), cancelled mid-run */
const THIRTY = { L: 32, sweeps: 48_000, therm: 0 };

let t: TestNode;
let base: string;
let jobs: Jobs;
let A: { apiKey: string; zid: string };
let B: { apiKey: string; zid: string };

before(async () => {
  t = await testNode();
  jobs = t.app.jobs;
  base = await t.listen();
  A = await t.machine('tasks A');
  B = await t.machine('tasks B');
});
after(async () => { await t?.close(); });

const modernClient = (key: string) => mcpModernClient(base, key);
const taskSession = (c: Client, key: string) => mcpTaskSession(base, c, key);
const modernRpc = (key: string, method: string, params: Record<string, unknown>, declare = true) => mcpModernRpc(base, key, method, params, declare);
const listen = (key: string, taskIds: string[], signal?: AbortSignal) => mcpListen(base, key, taskIds, signal);

/** a figure for the report (stderr) */
const diag = (s: string) => process.stderr.write(`# ${s}\n`);


async function receiptCount(zid: string): Promise<number> {
  return Number((await t.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [zid]))[0].n);
}


test('2026-07-28: the tasks client runs a solver as a task; notifications/tasks rise; the result is the synchronous one, sealed once', { timeout: 180_000 }, async () => {
  const c = await modernClient(A.apiKey);
  const session = taskSession(c, A.apiKey);
  try {
    assert.deepEqual((c.getServerCapabilities() as any)?.extensions?.[TASKS], {}, 'server/discover declares the extension');
    const before = await receiptCount(A.zid);
    const ex = await session.callTool('svc_gauge', LONG, { metadata: { 'svc/task': true } });
    assert.equal(ex.kind, 'task', 'the server answered resultType "task"');
    const taskId = (ex as any).handle.taskId as string;
    assert.match(taskId, /^job_[0-9A-Z]{26}$/, 'the task id is the job id');
    const notes = listen(A.apiKey, [taskId]);
    const polled: string[] = [];
    const { outcome } = await ex.settle({ onEvent: (e) => { const v = taskViewFromExecutionEvent(e); if (v?.statusMessage) polled.push(v.statusMessage); } });
    const result: any = resultFromTaskOutcome(outcome);
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    // the stream: acknowledged for this task, then the DetailedTask at every change, then a graceful end
    const msgs = await notes;
    assert.equal(msgs[0].method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(msgs[0].params.notifications.taskIds, [taskId]);
    const tasks = msgs.filter((m) => m.method === 'notifications/tasks').map((m) => m.params);
    assert.ok(tasks.every((x) => x.taskId === taskId && x._meta['io.modelcontextprotocol/subscriptionId'] === 'sub-1'));
    const progress = tasks.map((x) => percent(x.statusMessage)).filter((p) => !Number.isNaN(p));
    // a run of a second or so flushes its progress once or twice (every 0.4 s); the 30 s job of
    // test/jobs/thirty-seconds.test.ts shows many
    assert.ok(progress.length >= 1, `progress notifications: ${tasks.map((x) => x.statusMessage).join(' | ')}`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i] >= progress[i - 1], `progress rises: ${progress.join(', ')}`);
    diag(`2026 task: ${tasks.length} notifications/tasks, progress ${progress.join(' → ')} %`);
    const last = tasks.at(-1);
    assert.equal(last.status, 'completed');
    assert.deepEqual(last.result.structuredContent, result.structuredContent, 'the notification carries the result tasks/get gives');
    assert.deepEqual(msgs.at(-1).result?.resultType, 'complete', 'the stream ends gracefully once every task is terminal');
    // the same job over REST's record: succeeded, one attempt, one receipt
    const job = await jobs.get({ kind: 'machine', zid: A.zid, keyPrefix: '', keyHash: '' }, taskId);
    // the client polls at the interval the server suggests (POLL_QUEUED_MS, then POLL_RUNNING_MS):
    // a run longer than both is seen running by some poll (a fast machine may finish sooner)
    const ranMs = Date.parse(job.finishedAt!) - Date.parse(job.startedAt!);
    if (ranMs > POLL_QUEUED_MS + 2 * POLL_RUNNING_MS) assert.ok(polled.some((m) => /running/.test(m)), `tasks/get polls saw it run (${ranMs} ms): ${polled.join(' | ')}`);
    diag(`2026 task ran ${ranMs} ms; tasks/get polls: ${polled.join(' | ')}`);
    assert.equal(job.status, 'succeeded');
    assert.equal(job.attempts, 1);
    assert.equal(job.response?.body.receipt && (job.response.body.receipt as any).id, result.structuredContent.receipt.id);
    assert.equal(await receiptCount(A.zid), before + 1, 'one job, one receipt');
    // the synchronous call with the same input seals the same figures
    const sync: any = await c.callTool({ name: 'svc_gauge', arguments: { ...LONG, series: true } }, { timeout: 120_000 });
    assert.equal(sync.isError, undefined, JSON.stringify(sync.content));
    assert.deepEqual(sealed(result.structuredContent), sealed(sync.structuredContent));
    assert.deepEqual(result.structuredContent.series, sync.structuredContent.series, 'a task\'s answer keeps its series');
    assert.notEqual(result.structuredContent.receipt.id, sync.structuredContent.receipt.id);
  } finally { await session.close().catch(() => {}); await c.close(); }
});

test('2026-07-28: server-directed only for declaring clients; a budget over the synchronous one makes a task; the rest runs as before', { timeout: 60_000 }, async () => {
  // not declared: asking for a task (or a long budget) is -32021 naming the extension
  for (const meta of [{ 'svc/task': true }, { 'svc/budget': { seconds: 120 } }]) {
    const r = await modernRpc(A.apiKey, 'tools/call', { name: 'svc_quant', arguments: {}, _meta: meta }, false);
    assert.equal(r.message.error?.code, -32021, r.text);
    assert.deepEqual(r.message.error.data.requiredCapabilities, { extensions: { [TASKS]: {} } });
  }
  // declared, with a budget over the synchronous 20 s: a task, whose job has that budget
  const r = await modernRpc(A.apiKey, 'tools/call', { name: 'svc_quant', arguments: {}, _meta: { 'svc/budget': { seconds: 120 } } });
  assert.equal(r.message.result?.resultType, 'task', r.text);
  assert.equal(r.message.result.pollIntervalMs > 0, true);
  const caller = { kind: 'machine' as const, zid: A.zid, keyPrefix: '', keyHash: '' };
  assert.deepEqual((await jobs.get(caller, r.message.result.taskId)).budget, { seconds: 120 });
  const done = await jobs.wait(caller, r.message.result.taskId, 30_000);
  assert.equal(done.status, 'succeeded');
  const g = await modernRpc(A.apiKey, 'tasks/get', { taskId: done.id });
  assert.equal(g.message.result.status, 'completed');
  assert.equal(g.message.result.resultType, 'complete');
  assert.equal(g.message.result.result.structuredContent.unit, '$');
  // a declaring client's ordinary call is synchronous; a bad budget is the tool's INVALID_INPUT
  const plain = await modernRpc(A.apiKey, 'tools/call', { name: 'svc_quant', arguments: {} });
  assert.equal(plain.message.result.resultType, 'complete');
  assert.equal(plain.message.result.structuredContent.unit, '$');
  const bad = await modernRpc(A.apiKey, 'tools/call', { name: 'svc_quant', arguments: {}, _meta: { 'svc/budget': { seconds: -1 } } });
  assert.equal(bad.message.result.isError, true);
  assert.equal(JSON.parse(bad.message.result.content[0].text).code, 'INVALID_INPUT');
  // a look-up is never a task; tasks/get without the extension is -32021; an unknown id is -32602
  const lookup = await modernRpc(A.apiKey, 'tools/call', { name: 'svc_pulse', arguments: {}, _meta: { 'svc/task': true } });
  assert.equal(lookup.message.result.isError, true, lookup.text);
  assert.equal((await modernRpc(A.apiKey, 'tasks/get', { taskId: done.id }, false)).message.error.code, -32021);
  assert.equal((await modernRpc(A.apiKey, 'tasks/get', { taskId: 'job_01M8GX2RHDQS426S6MVQ477V0Z' })).message.error.code, -32602);
  // tasks need a key: none is a 401 that starts sign-in
  const anon = await rpc(base, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: done.id, _meta: { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': CAPS } } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tasks/get', 'mcp-name': done.id });
  assert.equal(anon.status, 401);
  assert.match(anon.headers.get('www-authenticate') ?? '', /resource_metadata/);
});

test('2026-07-28: cancelling a running task stops its worker within 1 s and charges the time used; another machine cannot see or cancel it', { timeout: 120_000 }, async () => {
  const c = await modernClient(A.apiKey);
  const session = taskSession(c, A.apiKey);
  try {
    const ex = await session.callTool('svc_gauge', THIRTY, { metadata: { 'svc/task': true } });
    const taskId = (ex as any).handle.taskId as string;
    // machine B: not found on tasks/get, tasks/cancel and tasks/update; left out of a listen's ack
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const r = await modernRpc(B.apiKey, method, { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) });
      assert.equal(r.message.error?.code, -32602, `${method}: ${r.text}`);
      assert.doesNotMatch(r.text, /running|working/);
    }
    const bNotes = await listen(B.apiKey, [taskId]);
    assert.deepEqual(bNotes[0].params.notifications.taskIds, []);
    // wait until it runs with progress, then cancel
    const caller = { kind: 'machine' as const, zid: A.zid, keyPrefix: '', keyHash: '' };
    for (let i = 0; i < 600 && !(await jobs.get(caller, taskId)).progress; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await jobs.get(caller, taskId)).status, 'running');
    const me0 = (await t.call('GET', '/api/machines/me', undefined, A.apiKey)).body.tokens.remaining;
    const stopped = t.app.pool.stats.stoppedJobs;
    const t0 = performance.now();
    await ex.cancel();
    while (t.app.pool.stats.stoppedJobs === stopped && performance.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 10));
    const stopMs = performance.now() - t0;
    assert.equal(t.app.pool.stats.stoppedJobs, stopped + 1, 'the worker was stopped');
    assert.ok(stopMs < 1000, `stopped ${stopMs.toFixed(0)} ms after tasks/cancel`);
    diag(`2026 tasks/cancel → worker stopped in ${stopMs.toFixed(0)} ms`);
    const g = await modernRpc(A.apiKey, 'tasks/get', { taskId });
    assert.equal(g.message.result.status, 'cancelled', g.text);
    // charged for the worker time it used (1 token per started second)
    let me1 = me0;
    for (let i = 0; i < 50 && me1 === me0; i++) { await new Promise((r) => setTimeout(r, 100)); me1 = (await t.call('GET', '/api/machines/me', undefined, A.apiKey)).body.tokens.remaining; }
    assert.ok(me1 < me0, `tokens ${me0} → ${me1}`);
    let job = await jobs.get(caller, taskId);
    for (let i = 0; i < 50 && job.tokens.charged === null; i++) { await new Promise((r) => setTimeout(r, 100)); job = await jobs.get(caller, taskId); }
    assert.ok((job.tokens.charged ?? 0) >= 1 && job.tokens.charged! < job.tokens.reserved, `the job's record: charged ${job.tokens.charged} of ${job.tokens.reserved} reserved`);
    diag(`cancelled task charged ${job.tokens.charged} of ${job.tokens.reserved} tokens reserved`);
    // cancelling again is acknowledged and changes nothing
    const again = await modernRpc(A.apiKey, 'tasks/cancel', { taskId });
    assert.equal(again.message.result?.resultType, 'complete', again.text);
    assert.equal((await modernRpc(A.apiKey, 'tasks/get', { taskId })).message.result.status, 'cancelled');
  } finally { await session.close().catch(() => {}); await c.close(); }
});


test('2025-11-25: core tasks — execution.taskSupport, params.task, notifications/tasks/status, tasks/result equals the synchronous call, tasks/list, tasks/cancel; another machine sees nothing', { timeout: 180_000 }, async () => {
  const a = await connect(base, 'legacy', A.apiKey);
  const b = await connect(base, 'legacy', B.apiKey);
  try {
    assert.equal(a.getNegotiatedProtocolVersion(), LEGACY);
    assert.deepEqual((a.getServerCapabilities() as any).tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const tools = (await a.listTools()).tools as any[];
    assert.deepEqual(tools.find((x) => x.name === 'svc_action').execution, { taskSupport: 'optional' });
    assert.equal(tools.find((x) => x.name === 'svc_pulse').execution, undefined, 'look-ups are never tasks');
    const statuses: any[] = [];
    a.setNotificationHandler('notifications/tasks/status' as any, (n: any) => { statuses.push(n.params); });
    const before = await receiptCount(A.zid);
    const created = await (a as any).request({ method: 'tools/call', params: { name: 'svc_gauge', arguments: LONG, task: { ttl: 600_000 } } }, TaskResult);
    const taskId = created.task.taskId;
    assert.equal(created.task.status, 'working');
    assert.ok(created.task.pollInterval > 0);
    // machine B: tasks/get, tasks/result and tasks/cancel are not found; its tasks/list is empty
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      await assert.rejects((b as any).request({ method, params: { taskId } }, AnyResult), (e: any) => e.code === -32602, method);
    }
    assert.deepEqual((await (b as any).request({ method: 'tasks/list', params: {} }, AnyResult)).tasks, []);
    const got = await (a as any).request({ method: 'tasks/get', params: { taskId } }, AnyResult);
    assert.equal(got.taskId, taskId);
    const result = await (a as any).request({ method: 'tasks/result', params: { taskId } }, AnyResult, { timeout: 120_000 });
    assert.equal(result._meta['io.modelcontextprotocol/related-task'].taskId, taskId);
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    assert.equal(await receiptCount(A.zid), before + 1, 'one job, one receipt');
    for (let i = 0; i < 50 && statuses.at(-1)?.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
    const progress = statuses.map((s) => percent(s.statusMessage)).filter((p) => !Number.isNaN(p));
    assert.ok(progress.length >= 1, `status notifications: ${statuses.map((s) => s.statusMessage).join(' | ')}`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i] >= progress[i - 1], `progress rises: ${progress.join(', ')}`);
    assert.equal(statuses.at(-1).status, 'completed');
    diag(`2025 task: ${statuses.length} notifications/tasks/status, progress ${progress.join(' → ')} %`);
    const sync: any = await a.callTool({ name: 'svc_gauge', arguments: { ...LONG, series: true } }, { timeout: 120_000 });
    assert.deepEqual(sealed(result.structuredContent), sealed(sync.structuredContent));
    const list = await (a as any).request({ method: 'tasks/list', params: {} }, AnyResult);
    assert.ok(list.tasks.some((x: any) => x.taskId === taskId && x.status === 'completed'));
    // a finished task cannot be cancelled (-32602); a running one can, and stops
    await assert.rejects((a as any).request({ method: 'tasks/cancel', params: { taskId } }, AnyResult), (e: any) => e.code === -32602);
    const second = await (a as any).request({ method: 'tools/call', params: { name: 'svc_gauge', arguments: THIRTY, task: {} } }, TaskResult);
    const caller = { kind: 'machine' as const, zid: A.zid, keyPrefix: '', keyHash: '' };
    for (let i = 0; i < 600 && !(await jobs.get(caller, second.task.taskId)).progress; i++) await new Promise((r) => setTimeout(r, 50));
    const stopped = t.app.pool.stats.stoppedJobs;
    await assert.rejects((b as any).request({ method: 'tasks/cancel', params: { taskId: second.task.taskId } }, AnyResult), (e: any) => e.code === -32602);
    const t0 = performance.now();
    const cancelled = await (a as any).request({ method: 'tasks/cancel', params: { taskId: second.task.taskId } }, AnyResult);
    assert.equal(cancelled.status, 'cancelled');
    while (t.app.pool.stats.stoppedJobs === stopped && performance.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 10));
    assert.ok(performance.now() - t0 < 1000, `stopped ${(performance.now() - t0).toFixed(0)} ms after tasks/cancel`);
    diag(`2025 tasks/cancel → worker stopped in ${(performance.now() - t0).toFixed(0)} ms`);
    // a tool without task support refuses params.task (-32601)
    await assert.rejects((a as any).request({ method: 'tools/call', params: { name: 'svc_pulse', arguments: {}, task: {} } }, AnyResult), (e: any) => e.code === -32601);
  } finally { await a.close(); await b.close(); }
});
