// The ode solver end to end (expressions → lib/expr → lib/ivp → error estimate): closed forms,
// the existing lorenz solver, events, invariants, refusals, bad input, determinism.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/ode.ts';
import * as lorenz from '../../src/solvers/lorenz.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const R = (out: ReturnType<typeof solve>) => out.result as any;

/** the refusal an input gets: from the schema (zod) or from run */
function refusal(fields: Record<string, unknown>): { code: string; message: string; details?: any } | null {
  const parsed = descriptor.input.safeParse(fields);
  if (!parsed.success) return { code: 'INVALID_INPUT', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  try {
    run(parsed.data, ctx);
    return null;
  } catch (e: any) {
    assert.equal(e?.name, 'SvcError', `not a refusal: ${e?.stack}`);
    return { code: e.code, message: e.message, details: e.details };
  }
}

const oscillator = { equations: { x: 'v', v: '-w^2*x' }, y0: { x: 1, v: 0 }, params: { w: 2 }, tSpan: [0, 10] };

test('harmonic oscillator against its closed form; the error estimate matches the true error', () => {
  for (const method of ['RK45', 'DOP853', 'Radau', 'BDF', 'auto']) {
    const out = solve({ ...oscillator, method, invariants: { energy: 'v^2 + w^2*x^2' } });
    const r = R(out);
    const w = 2, tEnd = 10;
    const exact = { x: Math.cos(w * tEnd), v: -w * Math.sin(w * tEnd) };
    assert.equal(out.value, r.yEnd.x);
    assert.equal(r.t.length, 101);
    assert.equal(r.y.x.length, 101);
    for (let k = 0; k < 101; k++) assert.ok(Math.abs(r.y.x[k] - Math.cos(w * r.t[k])) < 2e-4, `${method} x(${r.t[k]})`);
    assert.ok(out.precision.withinBound, `${method} ${out.precision.errorPct}`);
    assert.equal(out.precision.certificate, 'error-estimate');
    for (const s of ['x', 'v'] as const) {
      const trueErr = Math.abs(r.yEnd[s] - exact[s]);
      const est = r.errorEstimate[s];
      assert.ok(est / trueErr > 0.1 && est / trueErr < 10, `${method} ${s}: estimate ${est}, true error ${trueErr}`);
    }
    assert.ok(r.invariantDrift.energy < 1e-3 && r.invariantDrift.energy > 0, `${method} drift ${r.invariantDrift.energy}`);
    assert.ok(r.stats.nfev > 0 && r.resolve.stats.nfev > r.stats.nfev, 'the re-solve is counted apart and costs more');
    assert.equal(r.jacobian, 'symbolic');
    assert.deepEqual(Object.keys(out.series!), ['t', 'x', 'v']);
  }
});

test('Lorenz system against the existing lorenz solver (RK4, dt = 1e-3) over t = 1.1', () => {
  // lorenz runs min(steps/10, 1000) transient steps then `steps` steps from (1, 1, 1): 1100 steps of 1e-3
  const ref = lorenz.run(lorenz.descriptor.input.parse({ dt: 0.001, steps: 1000 }), ctx).result.final as { x: number; y: number; z: number };
  const out = solve({
    equations: { x: 'sigma*(y - x)', y: 'x*(rho - z) - y', z: 'x*y - beta*z' },
    y0: { x: 1, y: 1, z: 1 }, params: { sigma: 10, rho: 28, beta: 8 / 3 }, tSpan: [0, 1.1], rtol: 1e-10, atol: 1e-12, method: 'DOP853',
  });
  const r = R(out);
  for (const k of ['x', 'y', 'z'] as const) assert.ok(Math.abs(r.yEnd[k] - ref[k]) < 1e-7 * (1 + Math.abs(ref[k])), `${k}: ${r.yEnd[k]} vs ${ref[k]}`);
  assert.ok(out.precision.withinBound);
});

test('events: a bouncing ball first hits the ground at √(2h/g) to 1e-8; non-terminal events are listed', () => {
  const out = solve({
    equations: { h: 'v', v: '-g' }, y0: { h: 10, v: 0 }, params: { g: 9.81 }, tSpan: [0, 5],
    events: [{ name: 'ground', expr: 'h', terminal: true, direction: -1 }],
  });
  const r = R(out);
  const exact = Math.sqrt(20 / 9.81);
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].name, 'ground');
  assert.ok(Math.abs(r.events[0].t - exact) < 1e-8, `${r.events[0].t - exact}`);
  assert.ok(Math.abs(r.events[0].y.v + 9.81 * exact) < 1e-7);
  assert.equal(r.tEnd, r.events[0].t);
  assert.equal(r.terminated, true);
  // output times stop at the terminal event
  assert.ok(r.t[r.t.length - 1] <= r.tEnd && r.t.length < 101);
  assert.ok(out.precision.withinBound);
  // the pendulum-like oscillator crosses x = 0 upwards at 3π/4 + kπ (w = 2)
  const osc = solve({ ...oscillator, tSpan: [0, 6], events: [{ name: 'up', expr: 'x', direction: 1 }, { name: 'vmax', expr: 'v', direction: -1 }] });
  const ups = R(osc).events.filter((e: any) => e.name === 'up').map((e: any) => e.t);
  assert.deepEqual(ups.map((t: number) => Math.round(((t * 2) - Math.PI / 2) / Math.PI)), [1, 3]);
  ups.forEach((t: number, k: number) => assert.ok(Math.abs(t - (3 * Math.PI / 4 + k * Math.PI)) < 1e-6, `${t}`));
  assert.equal(R(osc).eventCount, R(osc).events.length);
});

test('Van der Pol μ = 1000 through expressions: Radau, BDF and auto at the Bari reference (t = 2000)', () => {
  const ref = [1.706167732170469, -0.8928097010248125e-3];
  for (const method of ['Radau', 'BDF', 'auto']) {
    const out = solve({
      equations: { x: 'y', y: 'mu*(1 - x^2)*y - x' }, y0: { x: 2, y: 0 }, params: { mu: 1000 }, tSpan: [0, 2000],
      method, rtol: 1e-8, atol: 1e-10,
    });
    const r = R(out);
    assert.ok(Math.abs(r.yEnd.x - ref[0]) < 2e-6 * ref[0], `${method} x ${r.yEnd.x}`);
    assert.ok(Math.abs(r.yEnd.y - ref[1]) < 2e-5 * Math.abs(ref[1]), `${method} y ${r.yEnd.y}`);
    assert.ok(out.precision.withinBound, `${method} ${out.precision.errorPct}`);
    if (method === 'auto') {
      assert.ok(r.switches.length >= 1 && r.switches[0].from === 'RK45' && r.switches[0].to === 'Radau', JSON.stringify(r.switches.slice(0, 2)));
      assert.equal(out.method, r.method);
    }
  }
});

test('Robertson to t = 1e5 (stiff): the named invariant y1 + y2 + y3 is conserved', () => {
  const out = solve({
    equations: { y1: '-0.04*y1 + 1e4*y2*y3', y2: '0.04*y1 - 1e4*y2*y3 - 3e7*y2^2', y3: '3e7*y2^2' },
    y0: { y1: 1, y2: 0, y3: 0 }, tSpan: [0, 1e5], method: 'BDF', rtol: 1e-7, atol: { y1: 1e-10, y2: 1e-14, y3: 1e-10 },
    invariants: { mass: 'y1 + y2 + y3' },
  });
  const r = R(out);
  assert.ok(r.invariantDrift.mass < 1e-12, `drift ${r.invariantDrift.mass}`);
  assert.ok(Math.abs(r.yEnd.y1 - 0.0178659) < 1e-6, `${r.yEnd.y1}`);
  assert.ok(out.precision.withinBound, `${out.precision.errorPct}`);
});

test('a blowing-up or singular system is refused as UNSTABLE with tFail', () => {
  const blow = refusal({ equations: { y: 'y^2' }, y0: { y: 1 }, tSpan: [0, 2] });
  assert.equal(blow?.code, 'UNSTABLE');
  assert.ok(blow!.details.tFail > 0.99 && blow!.details.tFail <= 1.0001, `tFail ${blow!.details.tFail}`);
  // y' = −1/y: y = √(1 − 2t) reaches the singularity at t = 1/2
  const sing = refusal({ equations: { y: '-1/y' }, y0: { y: 1 }, tSpan: [0, 1], method: 'Radau' });
  assert.equal(sing?.code, 'UNSTABLE');
  assert.ok(Math.abs(sing!.details.tFail - 0.5) < 1e-3, `tFail ${sing!.details.tFail}`);
  // the step cap: a stiff problem on an explicit method
  const cap = refusal({ equations: { x: 'y', y: 'mu*(1 - x^2)*y - x' }, y0: { x: 2, y: 0 }, params: { mu: 1000 }, tSpan: [0, 3000], method: 'RK45', maxSteps: 2000 });
  assert.equal(cap?.code, 'UNSTABLE');
  assert.match(cap!.message, /maxSteps.*stiff/s);
  assert.ok(cap!.details.tFail > 0 && cap!.details.tFail < 3000);
});

test('an estimate above boundPct is reported as out of bound (the engine refuses it with 422)', () => {
  const loose = solve({ ...oscillator, tSpan: [0, 50], rtol: 1e-2, atol: 1e-4, method: 'RK45' });
  assert.equal(loose.precision.withinBound, false);
  assert.ok(loose.precision.errorPct > 0.1);
  const relaxed = solve({ ...oscillator, tSpan: [0, 50], rtol: 1e-2, atol: 1e-4, method: 'RK45', boundPct: 100 });
  assert.equal(relaxed.precision.boundPct, 100);
  assert.equal(relaxed.precision.errorPct, loose.precision.errorPct);
});

test('tEval, sample and per-state atol', () => {
  const a = R(solve({ ...oscillator, tEval: [0, 0.5, 2, 10] }));
  assert.deepEqual(a.t, [0, 0.5, 2, 10]);
  assert.ok(Math.abs(a.y.x[2] - Math.cos(4)) < 1e-5);
  assert.equal(a.y.x[0], 1);
  const b = R(solve({ ...oscillator, sample: 5 }));
  assert.deepEqual(b.t, [0, 2.5, 5, 7.5, 10]);
  const c = R(solve({ ...oscillator, atol: { x: 1e-12 } }));
  assert.equal(c.t.length, 101);
});

test('a system with a function that has no derivative rule falls back to finite differences', () => {
  const out = solve({ equations: { y: '-k*y + 1e-300*mod(t, 1)' }, y0: { y: 1 }, params: { k: 50 }, tSpan: [0, 1], method: 'Radau' });
  assert.equal(R(out).jacobian, 'finite differences');
  assert.ok(Math.abs(out.value - Math.exp(-50)) < 1e-8);
});

test('bad input is refused with a message naming the field', () => {
  const big: Record<string, string> = {}, big0: Record<string, number> = {};
  for (let i = 0; i < 101; i++) { big[`s${i}`] = '0'; big0[`s${i}`] = 0; }
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ equations: { x: 'x' }, y0: { y: 1 }, tSpan: [0, 1] }, /y0/],
    [{ equations: { x: 'x', y: 'x' }, y0: { x: 1 }, tSpan: [0, 1] }, /y0.*'y'/],
    [{ equations: { x: 'x' }, y0: { x: 1, z: 2 }, tSpan: [0, 1] }, /y0.*'z'/],
    [{ equations: {}, y0: {}, tSpan: [0, 1] }, /equations/],
    [{ equations: big, y0: big0, tSpan: [0, 1] }, /equations.*100/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [1, 1] }, /tSpan/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [1, 0] }, /tSpan/],
    [{ equations: { x: 'x' }, y0: { x: Number.NaN }, tSpan: [0, 1] }, /y0/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, Infinity] }, /tSpan/],
    [{ equations: { x: 'x + foo' }, y0: { x: 1 }, tSpan: [0, 1] }, /equations\[x\].*foo/],
    [{ equations: { x: 'x +' }, y0: { x: 1 }, tSpan: [0, 1] }, /equations\[x\]/],
    [{ equations: { x: 'x'.padEnd(4097, ' ') }, y0: { x: 1 }, tSpan: [0, 1] }, /equations/],
    [{ equations: { x: 'import("fs")' }, y0: { x: 1 }, tSpan: [0, 1] }, /equations\[x\]/],
    [{ equations: { t: '1' }, y0: { t: 1 }, tSpan: [0, 1] }, /reserved/],
    [{ equations: { x: 'a' }, y0: { x: 1 }, params: { x: 2, a: 1 }, tSpan: [0, 1] }, /params.*'x'/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], tEval: [0, 2] }, /tEval/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], tEval: [0.5, 0.2] }, /tEval/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], tEval: [0.5], sample: 10 }, /sample/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], events: [{ name: 'a', expr: 'x' }, { name: 'a', expr: 'x - 2' }] }, /events.*twice/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], events: [{ name: 'a', expr: 'q' }] }, /events\[0\].*q/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], events: [{ name: 'a', expr: 'x', direction: 2 }] }, /direction/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], invariants: { E: 'x + nope' } }, /invariants\[E\].*nope/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], method: 'Euler' }, /method/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], rtol: 0 }, /rtol/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], atol: -1 }, /atol/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], atol: { y: 1e-6 } }, /atol.*'y'/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], maxSteps: 5 }, /maxSteps/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], boundPct: 0 }, /boundPct/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], unknownField: 1 }, /unknownField|nrecognized/],
    [{ equations: { '1x': 'x' }, y0: { '1x': 1 }, tSpan: [0, 1] }, /names|equations/],
    [{ equations: { x: 'x' }, y0: { x: 1 }, tSpan: [0, 1], tEval: Array.from({ length: 5001 }, (_, k) => k / 5001) }, /tEval/],
  ];
  for (const [fields, re] of cases) {
    const r = refusal(fields);
    assert.ok(r, `accepted: ${JSON.stringify(fields).slice(0, 120)}`);
    assert.equal(r!.code, 'INVALID_INPUT', `${JSON.stringify(fields).slice(0, 120)}: ${r!.code} ${r!.message}`);
    assert.match(r!.message, re, `${JSON.stringify(fields).slice(0, 120)}`);
  }
});

test('deterministic: the same input gives the same bits', () => {
  const input = { equations: { x: 'y', y: 'mu*(1 - x^2)*y - x' }, y0: { x: 2, y: 0 }, params: { mu: 100 }, tSpan: [0, 200], method: 'auto' };
  const a = solve(input), b = solve(input);
  assert.deepEqual(a, b);
});

test('the defaults are the harmonic oscillator x\' = v, v\' = −x on [0, 10] (an empty body is a valid request)', () => {
  const out = solve({});
  assert.ok(Math.abs(out.value - Math.cos(10)) < 1e-5);
  assert.ok(out.precision.withinBound);
  assert.equal(R(out).method, 'RK45');
});

test('auto switches to Radau while the problem is stiff and back once the stiffness has decayed', () => {
  // y' = −λ(t)·(y − sin t), λ(t) = 1e4·e^(−3t): stiff at first, not stiff after t ≈ 3
  const input = { equations: { y: '-1e4*exp(-3*t)*(y - sin(t))' }, y0: { y: 1 }, tSpan: [0, 20] };
  const auto = solve({ ...input, method: 'auto' });
  const r = R(auto);
  assert.deepEqual(r.switches.map((s: any) => `${s.from}>${s.to}`), ['RK45>Radau', 'Radau>RK45']);
  assert.ok(r.switches[0].t < 0.1 && r.switches[1].t > 2 && r.switches[1].t < 5, JSON.stringify(r.switches));
  assert.equal(r.method, 'RK45');
  const rk = solve({ ...input, method: 'RK45' });
  assert.ok(R(rk).stats.nfev > 3 * r.stats.nfev, `RK45 ${R(rk).stats.nfev} vs auto ${r.stats.nfev}`);
  assert.ok(Math.abs(rk.value - auto.value) < 1e-6);
});
