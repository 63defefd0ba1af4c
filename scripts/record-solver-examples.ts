// Records one example request and its sealed answer for every solver into
// src/ops/solver-examples.json: OpenAPI shows them (request and response examples in /docs), and
// each solver's `result` schema is derived from its recorded result (src/ops/solver-examples.ts).
// Run it again when a solver's result changes:
//   node scripts/record-solver-examples.ts            (every solver)
//   node scripts/record-solver-examples.ts heat epi   (only these; the others are kept)
// The request is the solver's default body written out (every field with its default), with a
// prompt for the solvers that need one and `sample: 6` where the result has series (so that the
// example stays short); the answer is what a throwaway in-memory node sealed for it.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.ts';
import { buildHttp } from '../src/http/server.ts';
import { loadSolvers } from '../src/solvers/engine/loader.ts';
import { shapeOf } from '../src/ops/schema.ts';
import { EXAMPLE_MM as LINSOLVE_MM, EXAMPLE_RHS_MM as LINSOLVE_RHS } from '../src/solvers/linsolve.ts';

const OUT = fileURLToPath(new URL('../src/ops/solver-examples.json', import.meta.url));
const only = new Set(process.argv.slice(2));

const app = await createApp({ env: { SVC_DATA_DIR: ':memory:', SVC_SEAL_SECRET: 'ab'.repeat(32), SVC_BASE_URL: 'http://127.0.0.1:8787' } });
const http = await buildHttp(app);
await http.ready();
const call = async (method: 'GET' | 'POST', url: string, body?: unknown, key?: string) => {
  const res = await http.inject({ method, url, payload: body === undefined ? undefined : JSON.stringify(body), headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  return { status: res.statusCode, body: JSON.parse(res.body) };
};
const demo = (await call('POST', '/api/demo-key/mint')).body.apiKey;
const minted = await call('POST', '/api/machines', { displayName: 'docs example' }, demo);
if (minted.status !== 200) throw new Error(`spin-up: ${JSON.stringify(minted.body)}`);
const machine = minted.body;

/** Solvers whose body has a required field besides `prompt`: a documented small problem. */
function earthMoon() {
  // the circular Earth-Moon orbit of test/solvers/multibody.test.ts: barycentric positions and
  // velocities for a = 384,400 km (Kepler's third law gives the sidereal month)
  const G = 6.674e-11, m1 = 5.972e24, m2 = 7.342e22, a = 3.844e8;
  const v = Math.sqrt((G * (m1 + m2)) / a), f1 = m2 / (m1 + m2), f2 = m1 / (m1 + m2);
  const r = (x: number) => Number(x.toPrecision(6));
  return {
    bodies: [
      { mass: m1, position: [r(-a * f1), 0], velocity: [0, r(-v * f1)] },
      { mass: m2, position: [r(a * f2), 0], velocity: [0, r(v * f2)] },
    ],
  };
}
const EXTRA: Record<string, Record<string, unknown>> = {
  multibody: earthMoon(),
  lp: { mps: (await import('../src/solvers/lp.ts')).EXAMPLE_MPS },
  // the 1-D Laplacian of order 4 as Matrix Market text, b = [1, 0, 0, 1] (x = [1, 1, 1, 1])
  linsolve: { matrix: LINSOLVE_MM, rhs: LINSOLVE_RHS },
};

const recorded: Record<string, { request: Record<string, unknown>; response: unknown }> = existsSync(OUT) ? JSON.parse(readFileSync(OUT, 'utf8')) : {};
for (const ls of await loadSolvers()) {
  const d = ls.descriptor;
  if (only.size && !only.has(d.name)) continue;
  const own = shapeOf(d.input);
  let request: Record<string, unknown>;
  const prompt = 'prompt' in own ? { prompt: d.examples[0] } : {};
  try { request = (d.input as any).parse(prompt); } catch { request = { ...prompt }; }
  if (EXTRA[d.name]) {
    try { request = (d.input as any).parse({ ...prompt, ...EXTRA[d.name] }); } catch (e) { throw new Error(`${d.name}: the documented example is refused: ${e}`); }
  }
  // a solver with its own `sample` (the number of output points): a short example too
  if ('sample' in own && request.sample === undefined) request.sample = 11;
  let res = await call('POST', `/api/svc/${d.name}`, request, machine.apiKey);
  if (res.status === 200 && res.body.series && !ls.noCommonFields && !('sample' in own)) {
    request = { ...request, sample: 6 };
    res = await call('POST', `/api/svc/${d.name}`, request, machine.apiKey);
  }
  if (res.status !== 200) throw new Error(`${d.name}: ${res.status} ${JSON.stringify(res.body)}`);
  recorded[d.name] = { request, response: res.body };
  process.stdout.write(`${d.name}: ${JSON.stringify(res.body).length} bytes\n`);
}
const sorted = Object.fromEntries(Object.keys(recorded).sort().map((k) => [k, recorded[k]]));
writeFileSync(OUT, JSON.stringify(sorted, null, 1) + '\n');
await http.close();
await app.close();
