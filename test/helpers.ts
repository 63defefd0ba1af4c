// A fresh node for a test: PGlite in memory, or (when DATABASE_URL is set) a fresh PostgreSQL
// schema dropped at close. Requests go through Fastify's inject (no sockets) unless listen().
import { randomBytes } from 'node:crypto';
import { createApp } from '../src/app.ts';
import type { App } from '../src/ops/types.ts';
import { buildHttp } from '../src/http/server.ts';
import type { Config } from '../src/config.ts';
import type { Clock } from '../src/core/clock.ts';
import { callTool } from '../src/mcp/server.ts';
import type { FastifyInstance } from 'fastify';

export interface TestNode {
  app: App;
  http: FastifyInstance;
  call(method: string, path: string, body?: unknown, key?: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, any>; text: string }>;
  tool(name: string, args?: unknown, key?: string): Promise<{ isError: boolean; body: any }>;
  demoKey(): Promise<string>;
  machine(displayName?: string): Promise<{ zid: string; apiKey: string; slug: string; keyPrefix: string; recovery: { equation: string; salt: string } }>;
  /** listens on 127.0.0.1 (an ephemeral port unless `port` is given) and returns the base URL */
  listen(port?: number): Promise<string>;
  close(): Promise<void>;
}

export const ADMIN_KEY = 'test-admin-key-' + 'x'.repeat(24);
export const SEAL_SECRET = 'ab'.repeat(32);

/** A port nobody listens on now (for a node whose SVC_BASE_URL must name its own address). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

export async function testNode(opts: { config?: Partial<Config>; env?: Record<string, string>; clock?: Clock } = {}): Promise<TestNode> {
  const schema = process.env.DATABASE_URL ? `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}` : null;
  const env: Record<string, string | undefined> = {
    SVC_DATA_DIR: ':memory:',
    SVC_SEAL_SECRET: SEAL_SECRET,
    SVC_ADMIN_KEY: ADMIN_KEY,
    DATABASE_URL: process.env.DATABASE_URL,
    SVC_DATABASE_SCHEMA: schema ?? undefined,
    // tests never reach the internet: every literature source points at a closed local port
    ...Object.fromEntries(['PREPRINT', 'OPEN_CATALOGUE', 'DOI_REGISTRY', 'BIOMEDICAL_INDEX', 'SEMANTIC_INDEX', 'BIO_PREPRINT'].map((s) => [`SVC_PAPERS_${s}_URL`, 'http://127.0.0.1:9'])),
    ...opts.env,
  };
  const app = await createApp({ env, config: opts.config, clock: opts.clock });
  const http = await buildHttp(app);
  await http.ready();
  let ipCounter = 0;
  let listening: string | null = null;
  const mintFrom = async (): Promise<{ apiKey: string; ip: string }> => {
    const ip = `10.0.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}`;
    const r = await node.call('POST', '/api/demo-key/mint', {}, undefined, { 'x-test-ip': ip });
    if (r.status !== 200) throw new Error(`demo mint failed: ${r.status} ${r.text}`);
    return { apiKey: r.body.apiKey, ip };
  };
  const node: TestNode = {
    app,
    http,
    async call(method, path, body, key, headers = {}) {
      const h: Record<string, string> = { ...headers };
      if (key) h.authorization = `Bearer ${key}`;
      let payload: string | undefined;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const res = await http.inject({ method: method as any, url: path, headers: h, payload, remoteAddress: h['x-test-ip'] ?? '127.0.0.1' });
      let parsed: any = res.body;
      try { parsed = JSON.parse(res.body); } catch { /* text */ }
      return { status: res.statusCode, body: parsed, headers: res.headers as any, text: res.body };
    },
    async tool(name, args = {}, key) {
      const op = app.operations.find((o) => o.tool === name);
      if (!op) throw new Error(`no tool ${name}`);
      const { resolveCaller } = await import('../src/ops/invoke.ts');
      let caller: import('../src/ops/types.ts').Caller | null = null;
      try { caller = await resolveCaller(app, key ?? null); } catch (e: any) { return { isError: true, body: e.toBody() }; }
      return callTool(app, op, args, { caller, bearer: key ?? null, signal: new AbortController().signal, requestId: 'test', ip: '127.0.0.1', via: 'mcp', headers: {}, progress: () => {} });
    },
    async demoKey() {
      return (await mintFrom()).apiKey;
    },
    async machine(displayName = 'test machine') {
      // each machine comes from its own demo key and client address, as a fresh user's would
      // (spin-ups are limited per demo key and per address)
      const { apiKey: demo, ip } = await mintFrom();
      const r = await node.call('POST', '/api/machines', { displayName }, demo, { 'x-test-ip': ip });
      if (r.status !== 200) throw new Error(`spin up failed: ${r.status} ${r.text}`);
      return r.body;
    },
    async listen(port = 0) {
      if (!listening) {
        await http.listen({ port, host: '127.0.0.1' });
        const addr = http.server.address() as { port: number };
        listening = `http://127.0.0.1:${addr.port}`;
      }
      return listening;
    },
    async close() {
      await http.close();
      await app.close();
      if (schema && process.env.DATABASE_URL) {
        const pg = (await import('pg')).default as any;
        const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.query(`DROP SCHEMA IF EXISTS "${`${schema}_pgboss`.slice(0, 50)}" CASCADE`); // its job queue's
        await c.end();
      }
    },
  };
  return node;
}
