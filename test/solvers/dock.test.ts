// dock: 6-DOF docking against the built-in complex whose exact minimum is known by construction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, testComplex, fieldMinimum, poseEnergy, atomField, localDock, RECEPTOR, LIGAND_TYPES } from '../../src/solvers/dock.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });
const identity = () => Float64Array.from([1, 0, 0, 0]);

test('the per-atom field minima are confirmed by an independent, finer and shifted grid search', () => {
  const cx = testComplex();
  for (let a = 0; a < LIGAND_TYPES.length; a++) {
    const fine = fieldMinimum(a, 0.09, 0.037);
    assert.ok(Math.abs(fine.energy - cx.minima[a].energy) < 1e-9, `type ${a}: ${fine.energy} vs ${cx.minima[a].energy}`);
    assert.ok(Math.hypot(fine.x - cx.minima[a].x, fine.y - cx.minima[a].y, fine.z - cx.minima[a].z) < 1e-5);
  }
});

test('the exact pose attains E* = Σ min V_a, and the ligand is a sensible three-atom body', () => {
  const cx = testComplex();
  const e = poseEnergy(cx.body, Float64Array.from(cx.exactTranslation), identity());
  assert.ok(Math.abs(e - cx.exactEnergy) < 1e-12);
  assert.ok(cx.exactEnergy < -5);
  const b = cx.body;
  const d = (i: number, j: number) => Math.hypot(b[3 * i] - b[3 * j], b[3 * i + 1] - b[3 * j + 1], b[3 * i + 2] - b[3 * j + 2]);
  for (const [i, j] of [[0, 1], [0, 2], [1, 2]]) assert.ok(d(i, j) > 1, `atoms ${i},${j} overlap`);
  // not collinear, so the rotation is fully determined
  const u = [b[3] - b[0], b[4] - b[1], b[5] - b[2]], v = [b[6] - b[0], b[7] - b[1], b[8] - b[2]];
  assert.ok(Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]) > 0.5);
  assert.equal(RECEPTOR.reduce((s, r) => s + r.q, 0), 0, 'receptor is neutral');
});

test('no random pose and no local minimum found from random starts goes below E*', () => {
  const cx = testComplex();
  const rng = createRng(99);
  const t = new Float64Array(3), q = new Float64Array(4);
  for (let k = 0; k < 20000; k++) {
    for (let i = 0; i < 3; i++) t[i] = cx.box.min[i] + (cx.box.max[i] - cx.box.min[i]) * rng.next();
    for (let i = 0; i < 4; i++) q[i] = rng.normal();
    const n = Math.hypot(q[0], q[1], q[2], q[3]);
    for (let i = 0; i < 4; i++) q[i] /= n;
    assert.ok(poseEnergy(cx.body, t, q) >= cx.exactEnergy - 1e-12);
    if (k < 300) assert.ok(localDock(cx.body, t, q, 300).energy >= cx.exactEnergy - 1e-9);
  }
});

test('analytic force and torque match finite differences of the energy', () => {
  const cx = testComplex();
  const t = Float64Array.from([0.3, 0.9, -0.4]);
  const q = Float64Array.from([0.8, 0.2, -0.4, 0.4]);
  const n = Math.hypot(...q);
  for (let i = 0; i < 4; i++) q[i] /= n;
  const g = new Float64Array(6);
  poseEnergy(cx.body, t, q, g);
  const h = 1e-6;
  for (let k = 0; k < 3; k++) {
    const tp = Float64Array.from(t), tm = Float64Array.from(t);
    tp[k] += h; tm[k] -= h;
    const fd = (poseEnergy(cx.body, tp, q) - poseEnergy(cx.body, tm, q)) / (2 * h);
    assert.ok(Math.abs(fd - g[k]) < 1e-5 * Math.max(1, Math.abs(g[k])), `force ${k}`);
  }
  // torque: rotate by ±h about axis k (q ← exp(±h e_k / 2)·q)
  for (let k = 0; k < 3; k++) {
    const rot = (sgn: number) => {
      const d = [Math.cos(h / 2), 0, 0, 0];
      d[k + 1] = sgn * Math.sin(h / 2);
      return Float64Array.from([
        d[0] * q[0] - d[1] * q[1] - d[2] * q[2] - d[3] * q[3],
        d[0] * q[1] + d[1] * q[0] + d[2] * q[3] - d[3] * q[2],
        d[0] * q[2] - d[1] * q[3] + d[2] * q[0] + d[3] * q[1],
        d[0] * q[3] + d[1] * q[2] - d[2] * q[1] + d[3] * q[0],
      ]);
    };
    const fd = (poseEnergy(cx.body, t, rot(1)) - poseEnergy(cx.body, t, rot(-1))) / (2 * h);
    assert.ok(Math.abs(fd - g[3 + k]) < 1e-5 * Math.max(1, Math.abs(g[3 + k])), `torque ${k}`);
  }
  // and the field gradient itself
  const ga = new Float64Array(3);
  atomField(0, 0.5, 0.5, -1, ga);
  const fdx = (atomField(0, 0.5 + h, 0.5, -1) - atomField(0, 0.5 - h, 0.5, -1)) / (2 * h);
  assert.ok(Math.abs(fdx - ga[0]) < 1e-6 * Math.max(1, Math.abs(ga[0])));
});

test('docking with the default settings finds the exact global minimum and pose', () => {
  for (const seed of [1, 2, 3]) {
    const o = solve({}, seed);
    const cx = testComplex();
    assert.ok(Math.abs(o.value - cx.exactEnergy) <= 1e-8 * Math.abs(cx.exactEnergy), `seed ${seed}: ${o.value} vs ${cx.exactEnergy}`);
    assert.ok((o.result.rmsd as number) < 1e-4);
    assert.ok((o.result.restartsAtGlobalMinimum as number) >= 1);
    assert.equal(o.precision.withinBound, true);
  }
});

test('a single short chain may miss the minimum, and says so', () => {
  let missed = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const o = solve({ restarts: 1, iters: 1 }, seed);
    assert.ok(o.value >= (o.result.exactMinimum as number) - 1e-9);
    if (!o.precision.withinBound) missed++;
  }
  assert.ok(missed > 0, 'one local minimisation from one random start does not always dock');
});

test('the same input and seed give identical bits; bounds enforced', () => {
  assert.deepEqual(solve({ restarts: 3, iters: 5 }, 7), solve({ restarts: 3, iters: 5 }, 7));
  for (const bad of [{ restarts: 0 }, { restarts: 201 }, { iters: 0 }, { iters: 101 }, { seed: -1 }]) {
    assert.equal(descriptor.input.safeParse(bad).success, false, JSON.stringify(bad));
  }
});
