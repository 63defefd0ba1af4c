// Any node answers for any task (issue 27 item 2): two node processes on one PostgreSQL. A task
// created over MCP on one node is polled, listened to and cancelled through the other (2026-07-28
// extension), and listed by a 2025-11-25 session on the other; another machine finds it on
// neither. Multi-node needs PostgreSQL (DATABASE_URL; CI sets it): skipped loudly without it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, newMachine, schemaName, dropSchema, type NodeProc } from '../scale/harness.ts';
import { rpc, envelope, MODERN, JSON_HEADERS, LEGACY } from './client.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const SKIP = DATABASE_URL ? false : 'multi-node tests need PostgreSQL: set DATABASE_URL=postgres://… (CI does)';
const CAPS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
// svc_action, Kepler orbit by Yoshida-8 over 2,000,000 steps: seconds of one worker
const LONG = { system: 'kepler', order: 8, steps: 2_000_000, dt: 0.001, compare: false };

let nodes: NodeProc[] = [];
let schema = '';
after(async () => {
  await Promise.all(nodes.map((n) => { n.kill('SIGKILL'); return n.exited; }));
  if (DATABASE_URL && schema) await dropSchema(DATABASE_URL, schema);
});

function modern(base: string, key: string, method: string, params: Record<string, unknown>) {
  const name = (params.name ?? params.taskId) as string | undefined;
  return rpc(base, { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': CAPS, ...(params._meta as object ?? {}) } } },
    { authorization: `Bearer ${key}`, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
}

test('two nodes on PostgreSQL: a task made on one is polled, listened to, listed and cancelled through the other', { skip: SKIP, timeout: 240_000 }, async () => {
  schema = schemaName('tasks');
  nodes = [await startNode({ databaseUrl: DATABASE_URL, schema }), await startNode({ databaseUrl: DATABASE_URL, schema })];
  const [n0, n1] = nodes.map((n) => n.url);
  const A = await newMachine(n0, 'tasks cluster A');
  const B = await newMachine(n1, 'tasks cluster B');
  const created = await modern(n0, A.apiKey, 'tools/call', { name: 'svc_action', arguments: LONG, _meta: { 'svc/task': true } });
  assert.equal(created.message.result?.resultType, 'task', created.text);
  const taskId = created.message.result.taskId;
  // node 1 answers for it at once (the record is in the store)
  const got = await modern(n1, A.apiKey, 'tasks/get', { taskId });
  assert.equal(got.message.result.taskId, taskId, got.text);
  assert.equal(got.message.result.status, 'working');
  assert.equal((await modern(n1, B.apiKey, 'tasks/get', { taskId })).message.error?.code, -32602);
  assert.equal((await modern(n0, B.apiKey, 'tasks/get', { taskId })).message.error?.code, -32602);
  // a listen on node 1 sees it run; a 2025-11-25 session on node 1 lists it
  const ac = new AbortController();
  const seen: string[] = [];
  const listening = fetch(new URL('/api/mcp', n1), {
    method: 'POST', signal: ac.signal,
    headers: { ...JSON_HEADERS, authorization: `Bearer ${A.apiKey}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'l1', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': CAPS } } }),
  }).then(async (r) => {
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const line of dec.decode(value).split('\n')) if (line.startsWith('data:')) { const m = JSON.parse(line.slice(5)); if (m.method === 'notifications/tasks') seen.push(m.params.statusMessage); }
    }
  }).catch(() => {});
  const init = await rpc(n1, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, { authorization: `Bearer ${A.apiKey}` });
  const sid = init.headers.get('mcp-session-id')!;
  const h = { authorization: `Bearer ${A.apiKey}`, 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY };
  await rpc(n1, { jsonrpc: '2.0', method: 'notifications/initialized' }, h);
  const list = await rpc(n1, { jsonrpc: '2.0', id: 2, method: 'tasks/list', params: {} }, h);
  assert.ok(list.message.result.tasks.some((x: any) => x.taskId === taskId), list.text);
  // wait until it reports progress, then cancel it through node 1
  for (let i = 0; i < 600 && !seen.some((s) => /running \d+%/.test(s)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(seen.some((s) => /running \d+%/.test(s)), `node 1's listen saw it run: ${seen.join(' | ')}`);
  const cancel = await modern(n1, A.apiKey, 'tasks/cancel', { taskId });
  assert.equal(cancel.message.result?.resultType, 'complete', cancel.text);
  let status = '';
  for (let i = 0; i < 40 && status !== 'cancelled'; i++) { await new Promise((r) => setTimeout(r, 100)); status = (await modern(n0, A.apiKey, 'tasks/get', { taskId })).message.result.status; }
  assert.equal(status, 'cancelled', 'node 0 sees the cancel made through node 1');
  await Promise.race([listening, new Promise((r) => setTimeout(r, 5_000))]);
  ac.abort();
  assert.equal(seen.at(-1), 'cancelled', `the listen ended with the cancel: ${seen.join(' | ')}`);
});
