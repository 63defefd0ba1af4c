// One verification, three verifiers (issue 29 item 3, issue 33 item 3; docs/verify.md): a table of
// saved receipts — untouched, each field edited (the checkpoint's signature and its root too),
// signature removed or edited, extra members,
// duplicated names, a lone surrogate, a log index written 1804.0, a key the JWKS does not have —
// run through `svc verify` (bin/svc.js, a process), the Python verifier (`python3 -m
// svc_client.verify`, a process) and the console's verifier (src/console/static/verify.js
// verifySaved: imported and run under Node 24, the same module the browser loads, with WebCrypto
// and fetch from Node; and, where Chromium is installed (required in CI, as for every browser
// test), run in headless Chromium on the console's page, with the browser's WebCrypto and fetch
// under the console's CSP), in three modes: the node reachable (--url, --key), offline (--jwks, a saved
// key set) and the node unreachable (--url of a closed port). The three must give the same exit
// code and name the same failed checks on every row; the expected exit codes are in the table.
// Also: POST /api/svc/verify refuses bodies that are not I-JSON.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNode, freePort, type TestNode } from '../helpers.ts';
import { needsChromium, launchChromium } from '../system-tools.ts';
import { verifySaved as consoleVerify } from '../../src/console/static/verify.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const PYDIR = fileURLToPath(new URL('../../clients/python', import.meta.url));
const hasPython = (() => { try { execFileSync('python3', ['-c', 'import cryptography'], { stdio: 'ignore' }); return true; } catch { return false; } })();
if (!hasPython && process.env.CI === 'true') throw new Error('python3 with the cryptography module is required in CI (the Python verifier)');
if (!hasPython) process.stderr.write('\n*** SKIPPED (the Python column): python3 with the cryptography module is not installed ***\n\n');

let t: TestNode;
let url: string;
let closed: string;
let m: Awaited<ReturnType<TestNode['machine']>>;
let dir: string;
let jwksPath: string;
let jwks: any;
const NO_CHROMIUM = needsChromium('the console verifier\'s column in Chromium');
let browser: any = null;
let page: any = null;
before(async () => {
  t = await testNode();
  url = await t.listen();
  closed = `http://127.0.0.1:${await freePort()}`;
  m = await t.machine('verify-table');
  dir = mkdtempSync(join(tmpdir(), 'svc-vtable-'));
  jwks = (await t.call('GET', '/.well-known/jwks.json')).body;
  jwksPath = join(dir, 'jwks.json');
  writeFileSync(jwksPath, JSON.stringify(jwks));
  if (!NO_CHROMIUM) {
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${url}/console`);
  }
});
after(async () => { await browser?.close(); await t.close(); rmSync(dir, { recursive: true, force: true }); });

type Mode = 'online' | 'offline' | 'unreachable';
interface Row {
  name: string;
  text: string;
  /** the check that must be among the failed ones (null: none fails) */
  fails: string | null;
  /** the exit code per mode */
  exit: Record<Mode, 0 | 1 | 2>;
}

const clone = (x: any) => JSON.parse(JSON.stringify(x));
const flipB64 = (s: string, at: number, url = false) => {
  const b = Buffer.from(s, url ? 'base64url' : 'base64'); b[at] ^= 1; return b.toString(url ? 'base64url' : 'base64');
};

function table(r: any): Row[] {
  const text = JSON.stringify(r);
  const edit = (name: string, fn: (x: any) => void, fails: string, exit: Record<Mode, 0 | 1 | 2>): Row => { const x = clone(r); fn(x); return { name, text: JSON.stringify(x), fails, exit }; };
  const definite = { online: 1, offline: 1, unreachable: 1 } as const;   // found without a key
  const keyed = { online: 1, offline: 1, unreachable: 2 } as const;      // found with the key set only
  const idx = r.receipt.log.index;
  assert.ok(text.includes(`"index":${idx},`), 'the log index is written as an integer');
  return [
    { name: 'untouched', text, fails: null, exit: { online: 0, offline: 0, unreachable: 2 } },
    edit('value', (x) => { x.value = x.value * 2 + 1; }, 'digest', definite),
    edit('unit', (x) => { x.unit = 'kWh'; }, 'digest', definite),
    edit('result', (x) => { x.result = { ...x.result, edited: true }; }, 'digest', definite),
    edit('input', (x) => { x.input = { ...x.input, steps: 7 }; }, 'digest', definite),
    edit('precision', (x) => { x.precision = { ...x.precision, errorPct: 0 }; }, 'digest', definite),
    edit('tokens.remaining', (x) => { x.tokens.remaining += 1000; }, 'signature', keyed),
    edit('receipt.id', (x) => { x.receipt.id = 'rcpt_01M00000000000000000000000'; }, 'digest', definite),
    edit('log index', (x) => { x.receipt.log.index = idx + 1; }, 'inclusion', definite),
    edit('checkpoint signature', (x) => {
      x.receipt.log.checkpoint = x.receipt.log.checkpoint.replace(/(\u2014 \S+ )([A-Za-z0-9+/=]+)\n$/, (_: string, a: string, b: string) => `${a}${flipB64(b, 10)}\n`);
    }, 'checkpoint', keyed),
    edit('checkpoint root', (x) => {
      x.receipt.log.checkpoint = x.receipt.log.checkpoint.replace(/^([^\n]+\n\d+\n)([A-Za-z0-9+/=]+)\n/, (_: string, a: string, b: string) => `${a}${flipB64(b, 0)}\n`);
    }, 'inclusion', definite),
    edit('signature bytes', (x) => { x.signature.sig = flipB64(x.signature.sig, 3, true); }, 'signature', keyed),
    edit('signature removed', (x) => { delete x.signature; }, 'strict', definite),
    edit('extra member in signature', (x) => { x.signature.note = 'x'; }, 'strict', definite),
    edit('extra member in receipt.log', (x) => { x.receipt.log.note = 'x'; }, 'strict', definite),
    { name: 'duplicated name', text: `{"value":999,${text.slice(1)}`, fails: 'strict', exit: definite },
    { name: 'lone surrogate', text: text.replace(/"unit":"[^"]*"/, '"unit":"\\ud800"'), fails: 'strict', exit: definite },
    { name: 'log index 1804.0', text: text.replace(`"index":${idx},`, `"index":${idx}.0,`), fails: 'strict', exit: definite },
    edit('key unknown (kid not in the JWKS)', (x) => { x.signature.kid = 'Z'.repeat(43); }, 'key', keyed),
  ];
}

interface Verdict { exit: number; failed: string[]; unreachable: string | null; reason?: string }

function args(mode: Mode, file: string): string[] {
  if (mode === 'online') return [file, '--url', url, '--key', m.apiKey];
  if (mode === 'offline') return [file, '--jwks', jwksPath];
  return [file, '--url', closed];
}

async function proc(cmd: string, argv: string[], cwd?: string): Promise<Verdict> {
  const r = await run(cmd, argv, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, SVC_API_KEY: '', SVC_URL: '' } })
    .then((x) => ({ code: 0, stdout: x.stdout, stderr: x.stderr }), (e) => ({ code: e.code, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '') }));
  assert.doesNotMatch(r.stderr, /Warning/, `${cmd} ${argv.join(' ')}: ${r.stderr}`);
  let out: any;
  try { out = JSON.parse(r.stdout); } catch { assert.fail(`${cmd} ${argv.join(' ')} printed no JSON (exit ${r.code}): ${r.stdout}${r.stderr}`); }
  assert.equal(out.exit, r.code, `the printed exit is the exit status: ${r.stdout}`);
  return { exit: r.code, failed: out.failed, unreachable: out.unreachable, reason: out.reason };
}

const verifiers: Record<string, (mode: Mode, file: string, text: string) => Promise<Verdict>> = {
  'svc verify': (mode, file) => proc(process.execPath, [CLI, 'verify', ...args(mode, file)]),
  ...(hasPython ? { python: (mode: Mode, file: string) => proc('python3', ['-m', 'svc_client.verify', ...args(mode, file)], PYDIR) } : {}),
  console: async (mode, _file, text) => {
    const opts = mode === 'online' ? { url, key: m.apiKey } : mode === 'offline' ? { jwks: JSON.parse(JSON.stringify(jwks)) } : { url: closed };
    const rep = await consoleVerify(text, opts);
    return { exit: rep.exit, failed: rep.failed, unreachable: rep.unreachable, reason: rep.reason };
  },
  ...(NO_CHROMIUM ? {} : {
    'console (Chromium)': async (mode: Mode, _file: string, text: string) => {
      const opts = mode === 'online' ? { url, key: m.apiKey } : mode === 'offline' ? { jwks } : { url: closed };
      return page.evaluate(async ({ text, opts }: any) => {
        const { verifySaved } = await import(/* in the page */ String('/console/static/verify.js'));
        const rep = await verifySaved(text, opts);
        return { exit: rep.exit, failed: rep.failed, unreachable: rep.unreachable, reason: rep.reason };
      }, { text, opts });
    },
  }),
};

/** Runs `jobs` with at most `n` at once. */
async function pool<T>(jobs: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => { while (next < jobs.length) { const i = next++; out[i] = await jobs[i](); } }));
  return out;
}

test('the table of saved receipts: the three verifiers give the same verdict, node reachable, offline and unreachable', { timeout: 300_000 }, async () => {
  const r = (await t.call('POST', '/api/svc/heat', {}, m.apiKey)).body;
  assert.ok(r.signature && r.receipt?.log && typeof r.tokens?.remaining === 'number', JSON.stringify(r).slice(0, 300));
  // a few more leaves after it, so that the node's log has grown (consistency is checked online)
  for (let i = 0; i < 2; i++) await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey);
  const rows = table(r);
  const jobs: (() => Promise<{ row: Row; mode: Mode; who: string; v: Verdict }>)[] = [];
  rows.forEach((row, i) => {
    const file = join(dir, `row${i}.json`);
    writeFileSync(file, row.text);
    for (const mode of ['online', 'offline', 'unreachable'] as Mode[]) {
      for (const [who, fn] of Object.entries(verifiers)) jobs.push(async () => ({ row, mode, who, v: await fn(mode, file, row.text) }));
    }
  });
  const results = await pool(jobs, 3);
  const problems: string[] = [];
  const lines: string[] = [];
  for (const row of rows) {
    for (const mode of ['online', 'offline', 'unreachable'] as Mode[]) {
      const mine = results.filter((x) => x.row === row && x.mode === mode);
      const want = row.exit[mode];
      const first = mine[0].v;
      lines.push(`${row.name.padEnd(36)} ${mode.padEnd(11)} exit ${mine.map((x) => x.v.exit).join('/')}  failed ${JSON.stringify(first.failed)}`);
      for (const { who, v } of mine) {
        if (v.exit !== want) problems.push(`${row.name} (${mode}): ${who} exits ${v.exit}, expected ${want}: ${v.reason}`);
        if (want === 1 && row.fails && !v.failed.includes(row.fails)) problems.push(`${row.name} (${mode}): ${who} does not name ${row.fails} among the failed checks ${JSON.stringify(v.failed)}: ${v.reason}`);
        if (want === 0 && v.failed.length) problems.push(`${row.name} (${mode}): ${who} names failed checks ${JSON.stringify(v.failed)}`);
        if (JSON.stringify(v.failed) !== JSON.stringify(first.failed)) problems.push(`${row.name} (${mode}): ${who} names ${JSON.stringify(v.failed)}, ${mine[0].who} ${JSON.stringify(first.failed)}`);
        if (want === 2 && !(v.unreachable ?? '').startsWith(closed)) problems.push(`${row.name} (${mode}): ${who} does not name the unreachable node ${closed}: ${v.unreachable}`);
      }
    }
  }
  process.stdout.write(`verifiers: ${Object.keys(verifiers).join(', ')} ('console': its module under Node; 'console (Chromium)': in the browser)\n${lines.join('\n')}\n`);
  assert.deepEqual(problems, []);
});

test('--allow-unsigned checks an unsigned response and says so, in all three verifiers', { timeout: 120_000 }, async () => {
  const r = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  const { signature: _s, ...unsigned } = r;
  const file = join(dir, 'unsigned.json');
  writeFileSync(file, JSON.stringify(unsigned));
  const outs = [
    JSON.parse((await run(process.execPath, [CLI, 'verify', file, '--jwks', jwksPath, '--allow-unsigned'], { encoding: 'utf8' })).stdout),
    ...(hasPython ? [JSON.parse((await run('python3', ['-m', 'svc_client.verify', file, '--jwks', jwksPath, '--allow-unsigned'], { cwd: PYDIR, encoding: 'utf8' })).stdout)] : []),
    await consoleVerify(JSON.stringify(unsigned), { jwks, allowUnsigned: true }),
  ];
  for (const o of outs) {
    assert.equal(o.exit, 0, JSON.stringify(o).slice(0, 400));
    assert.match(o.unsigned, /--allow-unsigned: the response signature was not checked/);
    assert.equal(o.checks.signature, null);
  }
});

test('POST /api/svc/verify reads its body as I-JSON: duplicate names, lone surrogates and svcond 1804.0 are 400', async () => {
  const r = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  const body = { proof: r.svcProof, operatorIds: r.svcState.operators, R_t: r.svcState.masterSum, svcond: r.svcState.svcond, keyPrefix: r.keyPrefix, value: r.value, unit: r.unit };
  const post = (text: string) => fetch(`${url}/api/svc/verify`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` }, body: text })
    .then(async (res) => ({ status: res.status, body: await res.json() }));
  const ok = await post(JSON.stringify(body));
  assert.deepEqual([ok.status, ok.body.valid], [200, true]);
  const text = JSON.stringify(body);
  for (const [name, bad, why] of [
    ['duplicate', `{"value":999,${text.slice(1)}`, /duplicate member name "value"/],
    ['surrogate', text.replace(/"unit":"[^"]*"/, '"unit":"\\udc00"'), /lone surrogate/],
    ['1804.0', text.replace(`"svcond":${body.svcond}`, `"svcond":${body.svcond}.0`), /svcond is an integer/],
  ] as const) {
    const res = await post(bad);
    assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'INVALID_INPUT');
    assert.match(res.body.error, why);
  }
});
