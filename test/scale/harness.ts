// Scale-out test harness (issue 12): node processes on loopback (test/scale/node-proc.ts), HTTP
// helpers with per-request timeouts, an SSE reader, and PostgreSQL schema management. Used by
// the multi-node, crash and fuzz tests and by bench/load.bench.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SEAL_SECRET = 'cd'.repeat(32);
export const ADMIN_KEY = 'scale-admin-key-' + 'y'.repeat(16);
const NODE_PROC = new URL('./node-proc.ts', import.meta.url).pathname;

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface NodeProc {
  url: string;
  port: number;
  pid: number;
  nodeId: string;
  child: ChildProcess;
  /** stdout lines after the ready line (JSON logs when SVC_LOG=1) */
  lines: string[];
  /** the last 4000 characters of stderr */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

export interface NodeOptions {
  port?: number;
  /** PostgreSQL: DATABASE_URL + schema; embedded: a data directory */
  databaseUrl?: string;
  schema?: string;
  dataDir?: string;
  env?: Record<string, string>;
  /** ms to wait for the ready line (start-up on a loaded 2-core machine is slow) */
  readyTimeoutMs?: number;
}

/** Starts one node process and waits until it listens. */
export async function startNode(opts: NodeOptions = {}): Promise<NodeProc> {
  const port = opts.port ?? await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_SEAL_SECRET: SEAL_SECRET,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_LOG: '0',
    SVC_TRUST_PROXY: '1',
    DATABASE_URL: opts.databaseUrl,
    SVC_DATABASE_SCHEMA: opts.schema,
    SVC_DATA_DIR: opts.dataDir ?? (opts.databaseUrl ? ':memory:' : mkdtempSync(join(tmpdir(), 'svc-scale-'))),
    // no test reaches the internet: every literature source points at a closed local port
    ...Object.fromEntries(['PREPRINT', 'OPEN_CATALOGUE', 'DOI_REGISTRY', 'BIOMEDICAL_INDEX', 'SEMANTIC_INDEX', 'BIO_PREPRINT'].map((s) => [`SVC_PAPERS_${s}_URL`, 'http://127.0.0.1:9'])),
    ...opts.env,
  };
  if (!opts.databaseUrl) { delete env.DATABASE_URL; delete env.SVC_DATABASE_SCHEMA; }
  const child = spawn(process.execPath, [NODE_PROC], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = await new Promise<any>((resolve, reject) => {
    let buf = '';
    let got = false;
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`node on port ${port} not ready in ${opts.readyTimeoutMs ?? 90_000} ms: ${stderr}`)); }, opts.readyTimeoutMs ?? 90_000);
    child.stdout!.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!got && line.startsWith('{"svcNodeReady"')) {
          got = true;
          clearTimeout(timer);
          resolve(JSON.parse(line).svcNodeReady);
        } else lines.push(line);
      }
    });
    void exited.then((e) => { if (!got) { clearTimeout(timer); reject(new Error(`node exited before ready (${e.code ?? e.signal}): ${stderr}`)); } });
  });
  return {
    url: ready.url, port, pid: child.pid!, nodeId: ready.nodeId, child, lines, exited, stderr: () => stderr,
    kill(signal: NodeJS.Signals = 'SIGTERM') { if (child.exitCode === null && child.signalCode === null) child.kill(signal); },
  };
}

/** Stops a node (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopNode(n: NodeProc, graceMs = 20_000): Promise<void> {
  if (n.child.exitCode !== null || n.child.signalCode !== null) return;
  n.kill('SIGTERM');
  const t = setTimeout(() => n.kill('SIGKILL'), graceMs);
  await n.exited;
  clearTimeout(t);
}

export interface HttpResult { status: number; body: any; text: string; headers: Headers }

/** One HTTP request with a timeout; a network failure is status 0 with the error in `text`. */
export async function http(base: string, method: string, path: string, opts: { body?: unknown; key?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let payload: string | undefined;
  if (opts.body !== undefined) {
    payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  try {
    const res = await fetch(base + path, { method, headers, body: payload, signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
    const text = await res.text();
    let body: any = text;
    try { body = JSON.parse(text); } catch { /* text */ }
    return { status: res.status, body, text, headers: res.headers };
  } catch (e: any) {
    return { status: 0, body: null, text: String(e?.cause?.code ?? e?.name ?? e), headers: new Headers() };
  }
}

export interface Machine { zid: string; apiKey: string; slug: string; keyPrefix: string }

let ipCounter = 1;
/** A demo key then a machine, through the given node. Demo mints are rate limited per client
 * address; loopback requests all come from 127.0.0.1, so each node process allows 10 an hour. */
export async function newMachine(base: string, displayName = 'scale test'): Promise<Machine> {
  // spin-ups are limited per client address too: the machine is made from the mint's address
  const from = { 'x-forwarded-for': `10.9.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}` };
  const demo = await http(base, 'POST', '/api/demo-key/mint', { headers: from });
  if (demo.status !== 200) throw new Error(`demo mint on ${base}: ${demo.status} ${demo.text}`);
  const m = await http(base, 'POST', '/api/machines', { key: demo.body.apiKey, body: { displayName }, headers: from });
  if (m.status !== 200) throw new Error(`spin up on ${base}: ${m.status} ${m.text}`);
  return m.body;
}

export interface SseEvent { event: string; data: string; id?: string }

export interface SseReader {
  events: SseEvent[];
  status: number;
  /** resolves with every event so far once `pred` holds (rejects after timeoutMs) */
  until(pred: (evs: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  ended: Promise<void>;
  close(): void;
}

/** Opens an SSE stream and collects its events. */
export async function readSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  if (res.status !== 200 || !res.body) throw new Error(`SSE ${url}: ${res.status} ${await res.text()}`);
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const ended = (async () => {
    const dec = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as any) {
        buf += dec.decode(chunk, { stream: true });
        let sep;
        while ((sep = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, sep);
          buf = buf.slice(sep + 2);
          const ev: SseEvent = { event: 'message', data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const i = line.indexOf(':');
            const k = i < 0 ? line : line.slice(0, i);
            const v = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (k === 'event') ev.event = v;
            else if (k === 'data') data.push(v);
            else if (k === 'id') ev.id = v;
          }
          if (!data.length && ev.id === undefined && ev.event === 'message') continue;
          ev.data = data.join('\n');
          events.push(ev);
          for (const w of [...waiters]) w();
        }
      }
    } catch { /* aborted */ }
    for (const w of [...waiters]) w();
  })();
  let done = false;
  void ended.then(() => { done = true; });
  return {
    events,
    status: res.status,
    ended,
    close: () => ac.abort(),
    until(pred, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(events)) { cleanup(); resolve(events.slice()); return true; }
          if (done) { cleanup(); reject(new Error(`SSE stream ended; ${events.length} events: ${JSON.stringify(events).slice(0, 800)}`)); return true; }
          return false;
        };
        const timer = setTimeout(() => { cleanup(); reject(new Error(`SSE condition not met in ${timeoutMs} ms; ${events.length} events: ${JSON.stringify(events).slice(0, 800)}`)); }, timeoutMs);
        const cleanup = () => { clearTimeout(timer); waiters.delete(w); };
        const w = () => { check(); };
        if (!check()) waiters.add(w);
      });
    },
  };
}

/** A fresh schema name on the test database. */
export function schemaName(tag: string): string {
  return `scale_${tag}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const pg = (await import('pg')).default as any;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  // the node's schema and its job queue's (src/jobs/queue.ts bossSchema)
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '')}" CASCADE`);
    await c.query(`DROP SCHEMA IF EXISTS "${`${schema}_pgboss`.slice(0, 50).replace(/"/g, '')}" CASCADE`);
  } finally { await c.end(); }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
