// The ode solver on the Hairer-Wanner / Bari test-set problems, written as a caller would write
// them (expressions), at their published reference values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/ode.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const R = (out: ReturnType<typeof solve>) => out.result as any;

test('Arenstorf orbit: DOP853 at rtol 1e-12 returns to its start after one period to 1e-6', () => {
  const T = 17.0652165601579625588917206249;
  const y0 = { x: 0.994, y: 0, u: 0, v: -2.00158510637908252240537862224 };
  const out = solve({
    equations: {
      x: 'u', y: 'v',
      u: 'x + 2*v - mp*(x + m)/((x + m)^2 + y^2)^1.5 - m*(x - mp)/((x - mp)^2 + y^2)^1.5',
      v: 'y - 2*u - mp*y/((x + m)^2 + y^2)^1.5 - m*y/((x - mp)^2 + y^2)^1.5',
    },
    y0, params: { m: 0.012277471, mp: 1 - 0.012277471 }, tSpan: [0, T], method: 'DOP853', rtol: 1e-12, atol: 1e-12,
  });
  const r = R(out);
  for (const k of ['x', 'y', 'u', 'v'] as const) assert.ok(Math.abs(r.yEnd[k] - y0[k]) < 1e-6, `${k}: ${r.yEnd[k]} vs ${y0[k]}`);
  // the estimate is consistent with the distance from the start (the true error at T)
  const trueErr = Math.max(...(['x', 'y', 'u', 'v'] as const).map((k) => Math.abs(r.yEnd[k] - y0[k])));
  const est = Math.max(...Object.values(r.errorEstimate as Record<string, number>));
  assert.ok(est < 10 * trueErr + 1e-12 && est > trueErr / 10, `estimate ${est}, true ${trueErr}`);
  assert.ok(out.precision.withinBound);
});

test('HIRES at its published end point (Bari test set), Radau and BDF', () => {
  const ref = [0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4, 0.1175651343283149e-2,
    0.2386356198831331e-2, 0.6238968252742796e-2, 0.2849998395185769e-2, 0.2850001604814231e-2];
  for (const method of ['Radau', 'BDF']) {
    const out = solve({
      equations: {
        y1: '-1.71*y1 + 0.43*y2 + 8.32*y3 + 0.0007',
        y2: '1.71*y1 - 8.75*y2',
        y3: '-10.03*y3 + 0.43*y4 + 0.035*y5',
        y4: '8.32*y2 + 1.71*y3 - 1.12*y4',
        y5: '-1.745*y5 + 0.43*y6 + 0.43*y7',
        y6: '-280*y6*y8 + 0.69*y4 + 1.71*y5 - 0.43*y6 + 0.69*y7',
        y7: '280*y6*y8 - 1.81*y7',
        y8: '-280*y6*y8 + 1.81*y7',
      },
      y0: { y1: 1, y2: 0, y3: 0, y4: 0, y5: 0, y6: 0, y7: 0, y8: 0.0057 },
      tSpan: [0, 321.8122], method, rtol: 1e-9, atol: 1e-13, invariants: { y7y8: 'y7 + y8' },
    });
    const r = R(out);
    ref.forEach((v, i) => {
      const rel = Math.abs(r.yEnd[`y${i + 1}`] - v) / v;
      assert.ok(rel < 1e-5, `${method} y${i + 1}: relative error ${rel}`);
    });
    assert.ok(r.invariantDrift.y7y8 < 1e-15, `${r.invariantDrift.y7y8}`);
    assert.ok(out.precision.withinBound, `${method} ${out.precision.errorPct}`);
  }
});

test('Pleiades at its published end point (Bari test set), DOP853 and auto', () => {
  const ref = [0.3706139143970502, 0.3237284092057233e1, -0.3222559032418324e1, 0.6597091455775310, 0.3425581707156584,
    0.1562172101400631e1, -0.7003092922212495, -0.3943437585517392e1, -0.3271380973972550e1, 0.5225081843456543e1,
    -0.2590612434977470e1, 0.1198213693392275e1, -0.2429682344935824, 0.1091449240428980e1, 0.3417003806314313e1,
    0.1354584501625501e1, -0.2590065597810775e1, 0.2025053734714242e1, -0.1155815100160448e1, -0.8072988170223021,
    0.5952396354208710, -0.3741244961234010e1, 0.3773459685750630, 0.9386858869551073, 0.3667922227200571,
    -0.3474046353808490, 0.2344915448180937e1, -0.1947020434263292e1];
  const x0 = [3, 3, -1, -3, 2, -2, 2], y0 = [3, -3, 2, 0, 0, -4, 4], u0 = [0, 0, 0, 0, 0, 1.75, -1.5], v0 = [0, 0, 0, -1.25, 1, 0, 0];
  const equations: Record<string, string> = {}, init: Record<string, number> = {};
  for (let i = 1; i <= 7; i++) { equations[`x${i}`] = `u${i}`; init[`x${i}`] = x0[i - 1]; }
  for (let i = 1; i <= 7; i++) { equations[`y${i}`] = `v${i}`; init[`y${i}`] = y0[i - 1]; }
  for (const [c, name, v] of [['x', 'u', u0], ['y', 'v', v0]] as const) {
    for (let i = 1; i <= 7; i++) {
      const terms: string[] = [];
      for (let j = 1; j <= 7; j++) if (j !== i) terms.push(`${j}*(${c}${j} - ${c}${i})/((x${j} - x${i})^2 + (y${j} - y${i})^2)^1.5`);
      equations[`${name}${i}`] = terms.join(' + ');
      init[`${name}${i}`] = v[i - 1];
    }
  }
  const names = Object.keys(equations);
  for (const [method, rtol, tol] of [['DOP853', 1e-11, 1e-7], ['auto', 1e-10, 1e-6]] as const) {
    const out = solve({ equations, y0: init, tSpan: [0, 3], method, rtol, atol: rtol });
    const r = R(out);
    const err = Math.max(...names.map((k, i) => Math.abs(r.yEnd[k] - ref[i])));
    assert.ok(err < tol, `${method}: max error ${err}`);
    assert.ok(out.precision.withinBound);
    if (method === 'auto') assert.equal(r.switches.length, 0, 'Pleiades is not stiff');
  }
});
