// The MCP tasks clients the task tests share: a 2026-07-28 SDK v2 client declaring the tasks
// extension, driven by the official tasks client (@modelcontextprotocol/ext-tasks), its raw request
// path, raw 2026 requests, and the `subscriptions/listen` stream of `notifications/tasks`.
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { rpc, envelope, MODERN, JSON_HEADERS } from './client.ts';

export const TASKS = 'io.modelcontextprotocol/tasks';
export const CAPS = { extensions: { [TASKS]: {} } };

/** A 2026-07-28 SDK v2 client that declares the tasks extension. */
export async function modernClient(base: string, key: string): Promise<Client> {
  const c = new Client({ name: 'svc-tasks-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: CAPS as any });
  await c.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', base), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return c;
}

/** The raw request path the tasks client needs for 2026-07-28 task traffic (its `rawDispatch`). */
function rawDispatch(base: string, key: string) {
  let seq = 1000;
  return async (request: any, options?: { signal?: AbortSignal }) => {
    const name = request.params?.name ?? request.params?.taskId;
    const r = await fetch(new URL('/api/mcp', base), {
      method: 'POST', signal: options?.signal,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${key}`, 'mcp-protocol-version': MODERN, 'mcp-method': request.method, ...(name ? { 'mcp-name': name } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, ...request }),
    });
    const text = await r.text();
    const msg = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).filter((d) => d.trim()).at(-1)!);
    return msg.error ? { kind: 'error' as const, error: msg } : { kind: 'result' as const, result: msg.result };
  };
}

export function taskSession(base: string, c: Client, key: string) {
  return createTaskSessionFromClient(c, {
    endpointId: `svc-test-${key.slice(0, 12)}`,
    rawDispatch: rawDispatch(base, key),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: { name: 'svc-tasks-test', version: '1.0.0' }, clientCapabilities: CAPS },
  } as any);
}

/** A raw 2026-07-28 request declaring the extension (or not). */
export function modernRpc(base: string, key: string, method: string, params: Record<string, unknown>, declare = true) {
  const name = (params.name ?? params.taskId) as string | undefined;
  return rpc(base, { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: { ...envelope(), ...(declare ? { 'io.modelcontextprotocol/clientCapabilities': CAPS } : {}), ...(params._meta as object ?? {}) } } },
    { authorization: `Bearer ${key}`, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
}

/** `subscriptions/listen` for task ids: every JSON-RPC message of the stream until it ends. */
export async function listen(base: string, key: string, taskIds: string[], signal?: AbortSignal): Promise<any[]> {
  const r = await fetch(new URL('/api/mcp', base), {
    method: 'POST', signal,
    headers: { ...JSON_HEADERS, authorization: `Bearer ${key}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { notifications: { taskIds }, _meta: { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': CAPS } } }),
  });
  const text = await r.text();
  return text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
}

/** the percentage in a task's status message ("running 35%: …"), NaN without one */
export const percent = (m: string | undefined) => Number(/running (\d+)%/.exec(m ?? '')?.[1] ?? NaN);

/** The sealed figures a task's answer must share with the synchronous call's. */
export const sealed = (b: any) => ({ value: b.value, unit: b.unit, result: b.result, input: b.input, precision: b.precision, seed: b.seed });

export const TaskResult = z.looseObject({ task: z.looseObject({ taskId: z.string(), status: z.string(), pollInterval: z.number().optional() }) });
export const AnyResult = z.looseObject({});
