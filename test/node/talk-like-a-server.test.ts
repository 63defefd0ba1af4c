// Talk like a server (issue 28 item 5): responses compressed where the client asks (br, gzip) with
// the right Content-Encoding and Vary; static assets with a strong ETag answered 304 when it
// matches; /docs' cold load small on the wire; `npm start` prints one line naming the URL, /console,
// /docs and the store, and no request logs unless SVC_LOG_LEVEL asks for them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { testNode, type TestNode } from '../helpers.ts';
import { loggerOptions } from '../../src/serve.ts';

let t: TestNode;
let base: string;
before(async () => { t = await testNode(); base = await t.listen(); });
after(async () => { await t.close(); });

/** a raw GET (fetch would decompress by itself), with the bytes as they came over the wire */
async function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as any), bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ASSETS = ['/docs/assets/redoc.standalone.js', '/openapi.json', '/console/static/app.js', '/console/static/console.css', '/console/solvers.json'];

test('Accept-Encoding br and gzip: /docs assets, /openapi.json and console modules come compressed, with Content-Encoding and Vary', async () => {
  for (const path of ASSETS) {
    const plain = await raw(path);
    assert.equal(plain.status, 200, path);
    assert.equal(plain.headers.get('content-encoding'), null, `${path}: nothing asked, nothing compressed`);
    for (const [enc, inflate] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
      const r = await raw(path, { 'accept-encoding': enc });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-encoding'), enc, `${path} ${enc}`);
      assert.match(r.headers.get('vary') ?? '', /accept-encoding/i, `${path}: Vary`);
      assert.ok(r.bytes.length < plain.bytes.length, `${path}: ${r.bytes.length} < ${plain.bytes.length}`);
      assert.ok(inflate(r.bytes).equals(plain.bytes), `${path}: ${enc} inflates to the same bytes`);
    }
  }
});

test('the cold /docs load is under 400 KB on the wire with brotli', async () => {
  let total = 0;
  for (const path of ['/docs', '/docs/assets/redoc.standalone.js', '/docs/assets/init.js', '/openapi.json']) {
    const r = await raw(path, { 'accept-encoding': 'br, gzip' });
    assert.equal(r.status, 200, path);
    total += r.bytes.length;
  }
  console.log(`/docs cold load: ${(total / 1024).toFixed(0)} KiB on the wire (br)`);
  assert.ok(total <= 400_000, `${total} bytes (the target: 400 KB)`);
});

test('static assets carry a strong ETag; If-None-Match answers 304 without a body; event streams are never compressed', async () => {
  for (const path of ['/docs/assets/redoc.standalone.js', '/console/static/app.js', '/openapi.json']) {
    const first = await raw(path);
    const tag = first.headers.get('etag');
    assert.match(tag ?? '', /^"[A-Za-z0-9_-]{27}"$/, path);
    const again = await raw(path, { 'if-none-match': tag! });
    assert.equal(again.status, 304, path);
    assert.equal(again.bytes.length, 0);
    // the same tag whatever the encoding: it names the bytes
    assert.equal((await raw(path, { 'accept-encoding': 'br' })).headers.get('etag'), tag);
  }
  // an SSE feed asked with br is sent as it is written
  const ac = new AbortController();
  const { request } = await import('node:http');
  const enc = await new Promise<string | undefined>((resolve, reject) => {
    const req = request(`${base}/api/observer/stream`, { headers: { 'accept-encoding': 'br', accept: 'text/event-stream' }, signal: ac.signal }, (res) => { resolve(res.headers['content-encoding'] as string | undefined); ac.abort(); });
    req.on('error', (e) => { if ((e as any).name !== 'AbortError') reject(e); });
    req.end();
  });
  assert.equal(enc, undefined);
});

test('logs: request logs are off by default (warn), SVC_LOG_LEVEL=info turns them on, SVC_LOG=0 silences; text on a terminal, JSON otherwise', () => {
  assert.deepEqual(loggerOptions({}, false), { level: 'warn' });
  assert.deepEqual(loggerOptions({ SVC_LOG_LEVEL: 'info' }, false), { level: 'info' });
  assert.deepEqual(loggerOptions({ SVC_LOG: '1', LOG_LEVEL: 'debug' }, false), { level: 'debug' });
  assert.equal(loggerOptions({ SVC_LOG: '0' }, true), false);
  const tty = loggerOptions({}, true) as any;
  assert.equal(tty.level, 'warn');
  assert.equal(typeof tty.stream.write, 'function');
});

test('`npm start` prints one line naming the URL, the console, the docs and the store, then nothing for requests', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-talk-'));
  const env: Record<string, string> = { ...process.env as Record<string, string>, PORT: '0', SVC_DATA_DIR: dataDir };
  for (const k of ['DATABASE_URL', 'SVC_DATABASE_SCHEMA', 'SVC_LOG', 'SVC_LOG_LEVEL', 'LOG_LEVEL', 'NODE_TEST_CONTEXT']) delete env[k];
  const proc: ChildProcess = spawn(process.execPath, [new URL('../../src/main.ts', import.meta.url).pathname], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (b) => { out += b; });
  proc.stderr!.on('data', (b) => { out += b; });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line:\n${out}`)), 150_000);
      const check = () => { const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out); if (m) { clearTimeout(timer); resolve(m[1]); } };
      proc.stdout!.on('data', check);
      proc.on('exit', (c) => { clearTimeout(timer); reject(new Error(`exited ${c}:\n${out}`)); });
    });
    const line = out.trim().split('\n')[0];
    assert.match(line, new RegExp(`^svc \\S+ listening at ${url.replace(/[.]/g, '\\.')} · console ${url.replace(/[.]/g, '\\.')}/console · API docs ${url.replace(/[.]/g, '\\.')}/docs · store: embedded \\(`));
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${url}/api/svc/pulse`)).status, 200);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(out.trim().split('\n').length, 1, `only the start line:\n${out}`);
  } finally {
    proc.kill('SIGTERM');
  }
});
