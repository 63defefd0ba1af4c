// Defaults that succeed and refusals that say how to succeed (issue 29 items 1 and 2). A grid the
// caller leaves out follows the mode they chose; a result outside its bound is refused with
// `details.retryWith` (inputs predicted by the method's error model to meet the bound, the
// predicted error and cost), and calling again with them is sealed within the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runUnsealed } from '../../src/ops/solvers.ts';

/** The refusal's code (docs/defaults.md): a 400 INVALID_INPUT naming the fields when the advice
 * changes a setting the caller gave (their resolution cannot meet the bound), else 422
 * PRECISION_REFUSED (a default that did not follow the problem). */
function assertRefusalCode(e: any, body: Record<string, unknown>, what: string): void {
  const changed = Object.keys(e.details?.retryWith?.inputs ?? {}).filter((k) => k in body && JSON.stringify(body[k]) !== JSON.stringify(e.details.retryWith.inputs[k]));
  if (changed.length) {
    assert.equal(e.code, 'INVALID_INPUT', `${what}: ${e.message}`);
    assert.equal(e.status, 400);
    assert.deepEqual(e.issues.map((i: any) => i.path).sort(), [...changed].sort(), `${what}: the issues name the caller's fields`);
  } else assert.equal(e.code, 'PRECISION_REFUSED', `${what}: ${e.message}`);
}

async function outcome(name: string, body: Record<string, unknown>): Promise<{ sealed: true; r: any } | { sealed: false; e: any }> {
  try { return { sealed: true, r: await runUnsealed(name, body) }; } catch (e) { return { sealed: false, e }; }
}

test('heat: the default grid follows the mode (1-D mode 3 and 4 at alpha 0.2, 2-D kx 5 ky 3) and the default problem keeps its grid', async () => {
  for (const body of [{ dim: 1, mode: 3, alpha: 0.2 }, { dim: 1, mode: 4, alpha: 0.2 }, { kx: 5, ky: 3 }, { dim: 1, mode: 8, alpha: 0.1 }]) {
    const o = await outcome('heat', body);
    assert.ok(o.sealed, `${JSON.stringify(body)}: ${!o.sealed && o.e.message}`);
    assert.equal(o.r.precision.withinBound, true);
  }
  const d = await runUnsealed('heat', { steps: 400, sample: 5 }) as any;
  assert.equal(d.result.nx, 64);
  assert.equal(d.result.ny, 64);
  // the README's figure, to the last digit
  assert.equal(d.value, 0.6738788589659851);
});

test('heat: refusals carry retryWith; calling again with it is sealed within the bound, with the predicted error', async () => {
  const refused = [
    { dim: 1, mode: 3, alpha: 0.2, nx: 64 }, { dim: 1, mode: 4, alpha: 0.2, nx: 64 }, { dim: 1, mode: 6, nx: 128 },
    { kx: 9, ky: 2, nx: 64, ny: 32 }, { kx: 3, ky: 3, nx: 32, ny: 32 }, { dim: 1, mode: 2, nx: 16, alpha: 2 },
  ];
  for (const body of refused) {
    const o = await outcome('heat', body);
    assert.equal(o.sealed, false, JSON.stringify(body));
    const e = (o as any).e;
    assertRefusalCode(e, body, JSON.stringify(body));
    const advice = e.details.retryWith;
    assert.ok(advice && Object.keys(advice.inputs).length, `${JSON.stringify(body)}: no retryWith`);
    assert.ok(advice.predictedErrorPct < e.details.boundPct);
    assert.ok(advice.predictedCost.relativeToThisRun >= 1);
    assert.match(e.message, /Calling again with \{/);
    const again = await runUnsealed('heat', { ...body, ...advice.inputs }) as any;
    assert.equal(again.precision.withinBound, true);
    // the error model is exact for a sine mode: the prediction is the computed error to rounding
    assert.ok(Math.abs(again.precision.errorPct - advice.predictedErrorPct) <= 1e-6, `${again.precision.errorPct} vs ${advice.predictedErrorPct}`);
    // the question stays the same: the final time and the mode
    assert.equal(again.result.t, body.dim === 1 ? 0.05 : 0.05);
  }
});

// wave (user mode: leapfrog, second order in space and time, Richardson estimate), ode (the
// re-solve estimate ∝ rtol^(p/(p+1))), quant (Monte Carlo standard error ∝ 1/√paths) and opt
// (the method continued to where its own check meets the bound): each refusal names inputs that
// keep the question (the same final time, mode, option, start), and calling again with them is
// sealed within the bound. With heat's six above, 24 refusals in all.
const REFUSED: [string, Record<string, unknown>][] = [
  ['wave', { initial: 'exp(-100*(x-0.5)^2)', dim: 1, nx: 16, steps: 100 }],
  ['wave', { initial: 'exp(-100*(x-0.5)^2-100*(y-0.5)^2)', nx: 16, ny: 16, steps: 100 }],
  ['wave', { initial: 'exp(-50*(x-0.5)^2)', dim: 1, nx: 16, dt: 0.02, steps: 50 }],
  ['wave', { initial: 'sin(3*pi*x)', dim: 1, nx: 16, steps: 200, source: 'sin(5*t)' }],
  ['ode', { rtol: 0.01 }],
  ['ode', { rtol: 0.1, method: 'RK45' }],
  ['ode', { rtol: 0.001, tSpan: [0, 100] }],
  ['ode', { rtol: 0.01, method: 'BDF' }],
  ['ode', { rtol: 0.05, method: 'DOP853', tSpan: [0, 50] }],
  ['quant', { paths: 1000, seed: 12 }],
  ['quant', { paths: 1000, seed: 181 }],
  ['quant', { paths: 1000, seed: 284 }],
  ['quant', { paths: 1000, seed: 614 }],
  ['opt', { objective: '(1-x)^2+100*(y-x^2)^2', x0: { x: -1.2, y: 1 }, maxIter: 10 }],
  ['opt', { fn: 'rosenbrock', maxIter: 50 }],
  ['opt', { objective: '(1-x)^2+100*(y-x^2)^2', x0: { x: -1.2, y: 1 }, method: 'nelder-mead', maxIter: 50 }],
  ['opt', { fn: 'sphere', dim: 5, maxIter: 100 }],
  ['opt', { objective: 'exp(x)-2*x+(y-1)^4+sin(y)^2', x0: { x: 3, y: -2 }, bounds: { x: [0, 5] }, maxIter: 3 }],
];

test('wave, ode, quant and opt: refusals carry retryWith; calling again with it is sealed within the bound', async () => {
  const counts: Record<string, number> = {};
  for (const [name, body] of REFUSED) {
    const o = await outcome(name, body);
    assert.equal(o.sealed, false, `${name} ${JSON.stringify(body)} was expected to be refused`);
    const e = (o as any).e;
    assertRefusalCode(e, body, `${name} ${JSON.stringify(body)}`);
    const advice = e.details.retryWith;
    assert.ok(advice && Object.keys(advice.inputs).length, `${name} ${JSON.stringify(body)}: no retryWith`);
    assert.ok(advice.predictedErrorPct < e.details.boundPct, `${name}: the prediction must be within the bound`);
    assert.ok(advice.predictedCost.relativeToThisRun >= 1);
    assert.match(e.message, /Calling again with \{/);
    // the question stays the same: the advice never touches what defines the problem
    for (const k of ['tSpan', 'equations', 'y0', 'initial', 'source', 'type', 'S0', 'K', 'T', 'sigma', 'r', 'objective', 'x0', 'bounds', 'fn', 'dim', 'start', 'method', 'gtol', 'boundPct']) {
      assert.ok(!(k in advice.inputs), `${name}: retryWith changes ${k}`);
    }
    const again = await runUnsealed(name, { ...body, ...advice.inputs }) as any;
    assert.equal(again.precision.withinBound, true, `${name} ${JSON.stringify(body)} + ${JSON.stringify(advice.inputs)}: ${again.precision.errorPct}`);
    if (name === 'wave') {
      const t0 = (body.dt as number | undefined) !== undefined ? (body.dt as number) * (body.steps as number) : null;
      if (t0 !== null) assert.ok(Math.abs(again.result.t - t0) <= 1e-12 * t0);
    }
    // opt's advice is exact: the same deterministic path, stopped where its check met the bound
    if (name === 'opt') assert.equal(again.precision.errorPct, advice.predictedErrorPct);
    counts[name] = (counts[name] ?? 0) + 1;
  }
  for (const name of ['wave', 'ode', 'quant', 'opt']) assert.ok((counts[name] ?? 0) >= 3, `${name}: ${counts[name]}`);
  console.log(`# retryWith: ${REFUSED.length} refusals (+6 heat) sealed when called again: ${JSON.stringify(counts)}`);
});

// Every other solver with an error model (issue 29 item 2, docs/defaults.md): a resolution the caller
// set that cannot meet the bound is a 400 naming it, with retryWith; calling again with it is
// sealed within the bound. (react's advice lengthens the horizon: a shorter one cannot be checked.)
const CALLER_SETTINGS: [string, Record<string, unknown>][] = [
  ['lorenz', { dt: 0.05, steps: 2000 }],
  ['tumor', { N: 50 }],
  ['schrodinger', { N: 16 }],
  ['schrodinger', { L: 3.16 }],
  ['kalman', { steps: 10 }],
  ['lotka', { dt: 1 }],
  ['acoustic', { N: 8 }],
  ['buckling', { elements: 2 }],
  ['fea', { nx: 4 }],
  ['fracture', { ny: 8 }],
  ['device', { kx: 5, nx: 41 }],
  ['flow', { dt: 0.1, N: 16 }],
  ['react', { dt: 1e-9, N: 16 }],
  ['quant', { paths: 2 }],
  ['fit', { gtol: 0.05 }],
];

test('other solvers: a setting the caller made too coarse is a 400 naming it; retryWith is then sealed', async () => {
  for (const [name, body] of CALLER_SETTINGS) {
    const o = await outcome(name, body);
    assert.equal(o.sealed, false, `${name} ${JSON.stringify(body)} was expected to be refused`);
    const e = (o as any).e;
    assert.equal(e.code, 'INVALID_INPUT', `${name} ${JSON.stringify(body)}: ${e.message}`);
    const advice = e.details.retryWith;
    assert.ok(advice && Object.keys(advice.inputs).length, `${name}: no retryWith`);
    assert.ok(e.issues.some((i: any) => i.path in body && i.path in advice.inputs), `${name}: the issue names the caller's field`);
    assert.ok(e.details.errorPct > e.details.boundPct);
    const again = await runUnsealed(name, { ...body, ...advice.inputs }) as any;
    assert.equal(again.precision.withinBound, true, `${name} ${JSON.stringify(body)} + ${JSON.stringify(advice.inputs)}: ${again.precision.errorPct}`);
  }
});
