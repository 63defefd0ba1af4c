// A client generated from /openapi.json reads a sealed result without casts (issue 21 item 4):
// openapi-typescript turns the live document into types (scripts/openapi-typescript.ts), a small
// client calls svc_heat with fetch and reads `value`, `precision.errorPct` and a `result` field
// through them, and the project's tsc (TypeScript 7) type-checks it. The client holds no cast;
// `@ts-expect-error` lines prove the types are not `any` (a misspelt field does not compile)
// and that a bare object schema would fail (reading `precision.errorPct` of `unknown` does not
// compile). The client then runs against the node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNode, type TestNode } from '../helpers.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const GENERATE = join(root, 'scripts/openapi-typescript.ts');
const TSC = join(root, 'node_modules/typescript/bin/tsc');

let t: TestNode;
let url: string;
let dir: string;
before(async () => {
  t = await testNode();
  url = await t.listen();
  dir = mkdtempSync(join(tmpdir(), 'svc-typed-client-'));
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const CLIENT = `// a typed svc client: the types come from /openapi.json, nothing is cast
import type { paths } from './svc-api.ts';

type Heat = paths['/api/svc/heat']['post'];
export type HeatBody = NonNullable<Heat['requestBody']>['content']['application/json'];
export type HeatResult = Heat['responses'][200]['content']['application/json'];

export async function heat(base: string, key: string, body: HeatBody): Promise<HeatResult> {
  const res = await fetch(base + '/api/svc/heat', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error('svc answered ' + res.status);
  return res.json();
}

export function summary(r: HeatResult): { value: number; unit: string; errorPct: number; withinBound: boolean; amplitude: number | null | undefined; receipt: string } {
  const value: number = r.value;
  const errorPct: number = r.precision.errorPct;
  const withinBound: boolean = r.precision.withinBound;
  // null where an option leaves it empty (the user mode of heat has no single mode amplitude)
  const amplitude: number | null | undefined = r.result.amplitude;
  return { value, unit: r.unit, errorPct, withinBound, amplitude, receipt: r.receipt.id };
}

export function notAny(r: HeatResult): void {
  // @ts-expect-error a field the answer does not have
  void r.notAField;
  // @ts-expect-error precision.errorPct is a number, not a string
  const s: string = r.precision.errorPct;
  void s;
}

export function bareObjectWouldFail(r: { [k: string]: unknown }): void {
  // @ts-expect-error with a bare object schema, reading precision.errorPct needs a cast
  void r.precision.errorPct;
}

const [base, key] = process.argv.slice(2);
if (base && key) {
  const out = summary(await heat(base, key, { steps: 40, dim: 1, nx: 32, sample: 4 }));
  process.stdout.write(JSON.stringify(out));
}
`;

test('openapi-typescript types from the live /openapi.json let a fetch client read value and precision without casts', async () => {
  await run(process.execPath, [GENERATE, `${url}/openapi.json`, '-o', join(dir, 'svc-api.ts')], { cwd: root, timeout: 90_000, maxBuffer: 16 << 20 });
  const types = readFileSync(join(dir, 'svc-api.ts'), 'utf8');
  assert.match(types, /SealedResult: \{/);
  assert.match(types, /errorPct: number;/);

  writeFileSync(join(dir, 'client.ts'), CLIENT);
  assert.doesNotMatch(CLIENT.replace(/\/\/.*$/gm, ''), /\bas\s+(?!const\b)[A-Za-z{[(]|<[A-Z][A-Za-z]*>\s*[a-z(]/, 'the client holds no cast');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'es2024', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2024', 'dom'], types: ['node'], typeRoots: [join(root, 'node_modules/@types')],
      strict: true, noEmit: true, allowImportingTsExtensions: true, erasableSyntaxOnly: true, skipLibCheck: false,
    },
    files: ['client.ts', 'svc-api.ts'],
  }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const tsc = await run(process.execPath, [TSC, '--noEmit', '-p', join(dir, 'tsconfig.json')], { timeout: 120_000, maxBuffer: 16 << 20 })
    .catch((e: any) => ({ stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? e.message), failed: true }));
  assert.ok(!('failed' in tsc), `the typed client does not compile:\n${tsc.stdout}\n${tsc.stderr}`);

  // and it works: the node answers what the types say
  const m = await t.machine('typed client');
  const ran = await run(process.execPath, [join(dir, 'client.ts'), url, m.apiKey], { timeout: 60_000 });
  const out = JSON.parse(ran.stdout);
  assert.equal(out.unit, 'T');
  assert.equal(typeof out.value, 'number');
  assert.equal(typeof out.errorPct, 'number');
  assert.equal(out.withinBound, true);
  assert.equal(out.amplitude, out.value);
  assert.match(out.receipt, /^rcpt_/);
});
