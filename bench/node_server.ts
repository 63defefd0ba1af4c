// A node for benchmarks: embedded store in a temporary directory, a machine with a large token
// allowance; prints {url, key} when ready.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.ts';
import { buildHttp } from '../src/http/server.ts';

const app = await createApp({ env: { ...process.env, SVC_DATA_DIR: process.env.SVC_DATA_DIR || mkdtempSync(join(tmpdir(), 'svc-bench-')), SVC_TOKENS_PER_DAY: '1000000000', PORT: '0' } });
const http = await buildHttp(app);
await http.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(http.server.address() as any).port}`;
const demo = await (await fetch(`${url}/api/demo-key/mint`, { method: 'POST' })).json() as any;
const m = await (await fetch(`${url}/api/machines`, { method: 'POST', headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' }, body: '{"displayName":"bench"}' })).json() as any;
const sample = await (await fetch(`${url}/api/svc/protect`, { method: 'POST', headers: { authorization: `Bearer ${m.apiKey}`, 'content-type': 'application/json' }, body: '{"health":"up"}' })).json();
process.stdout.write(JSON.stringify({ url, key: m.apiKey, sample }) + '\n');
process.on('SIGTERM', async () => { await http.close(); await app.close(); process.exit(0); });
