// svc_fea on the user's own Gmsh mesh (issue 31 item 2): convergence on manufactured solutions at
// the theoretical rates, the L-shaped corner singularity's rate, the honesty of the Zienkiewicz-Zhu
// estimate, Kirsch's stress concentration around a hole, malformed meshes refused by name.
// Meshes are made by Debian's gmsh from the .geo texts below (skipped loudly where gmsh is absent,
// required under CI=true).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsSystemTool } from '../system-tools.ts';
import { run, descriptor } from '../../src/solvers/fea.ts';
import { readGmsh } from '../../src/solvers/lib/fem/gmsh.ts';
import { buildSpace } from '../../src/solvers/lib/fem/space.ts';
import { solveFe, errorNorms } from '../../src/solvers/lib/fem/assemble.ts';
import { EXAMPLE_MESH } from '../../src/solvers/lib/fem/problem.ts';
import { SvcError } from '../../src/core/errors.ts';

const SKIP = needsSystemTool('/usr/bin/gmsh', 'the finite element mesh tests', 'apt-get install -y gmsh');
const dir = mkdtempSync(join(tmpdir(), 'fea-mesh-'));
const ctx = { seed: 1, progress() {} };
const fea = (body: Record<string, unknown>) => run(descriptor.input.parse(body) as any, ctx);

function gmsh(geo: string, name: string, dim: 2 | 3, args: string[] = []): string {
  const g = join(dir, `${name}.geo`), m = join(dir, `${name}.msh`);
  writeFileSync(g, geo);
  execFileSync('gmsh', [`-${dim}`, g, '-o', m, '-format', 'msh41', ...args], { stdio: 'ignore' });
  return readFileSync(m, 'utf8');
}

const SQUARE = (lc: number) => `lc = ${lc};
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Physical Curve("boundary") = {1, 2, 3, 4}; Physical Surface("domain") = {1};
`;
const BOX = (lc: number) => `SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.MeshSizeMax = ${lc}; Mesh.MeshSizeMin = ${lc};
Physical Surface("boundary") = {1, 2, 3, 4, 5, 6}; Physical Volume("domain") = {1};
`;
const LSHAPE = (lc: number) => `lc = ${lc};
Point(1) = {0, 0, 0, lc}; Point(2) = {0, -1, 0, lc}; Point(3) = {-1, -1, 0, lc}; Point(4) = {-1, 1, 0, lc}; Point(5) = {1, 1, 0, lc}; Point(6) = {1, 0, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Line(5) = {5, 6}; Line(6) = {6, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6}; Plane Surface(1) = {1};
Physical Curve("boundary") = {1, 2, 3, 4, 5, 6}; Physical Surface("domain") = {1};
`;

const PI = Math.PI;
interface Case { label: string; h1: number; l2: number; est: number; vertices: number }
const effectivities: { label: string; ratio: number }[] = [];

function convergence(label: string, dim: 2 | 3, geo: (lc: number) => string, lcs: number[], order: 1 | 2,
  u: (x: number, y: number, z: number) => number, grad: (x: number, y: number, z: number) => number[], f: (x: number, y: number, z: number) => number): Case[] {
  return lcs.map((lc, i) => {
    const mesh = readGmsh(gmsh(geo(lc), `${label}-${i}`, dim));
    const s = buildSpace(mesh, order, ['boundary']);
    const sol = solveFe(s, { kind: 'poisson', k: () => 1, f, bc: new Map([['boundary', { type: 'dirichlet', value: u }]]) });
    const e = errorNorms(s, sol, u, grad);
    effectivities.push({ label: `${label} lc ${lc}`, ratio: e.h1 / sol.estimate });
    assert.ok(sol.solver.backwardError <= 1e-12);
    return { label, h1: e.h1, l2: e.l2, est: sol.estimate, vertices: s.nElems };
  });
}

/** least-squares slope of log(error) against log(h), h ∝ elements^(−1/dim) (the mean element size) */
function rate(cases: Case[], dim: number, key: 'h1' | 'l2'): number {
  const xs = cases.map((c) => -Math.log(c.vertices) / dim), ys = cases.map((c) => Math.log(c[key]));
  const mx = xs.reduce((a, b) => a + b) / xs.length, my = ys.reduce((a, b) => a + b) / ys.length;
  let sxy = 0, sxx = 0;
  xs.forEach((x, i) => { sxy += (x - mx) * (ys[i] - my); sxx += (x - mx) ** 2; });
  return sxy / sxx;
}

test('manufactured sin·sin on the unit square: P1 energy rate 1 and L² rate 2, P2 rates 2 and 3 (each within 0.2)', { skip: SKIP, timeout: 120_000 }, () => {
  const u = (x: number, y: number) => Math.sin(PI * x) * Math.sin(PI * y);
  const g = (x: number, y: number) => [PI * Math.cos(PI * x) * Math.sin(PI * y), PI * Math.sin(PI * x) * Math.cos(PI * y)];
  const f = (x: number, y: number) => 2 * PI * PI * u(x, y);
  for (const [order, lcs] of [[1, [0.1, 0.05, 0.025]], [2, [0.1, 0.05, 0.025]]] as const) {
    const cases = convergence(`square-p${order}`, 2, SQUARE, [...lcs], order, u, g, f);
    const r1 = rate(cases, 2, 'h1'), r0 = rate(cases, 2, 'l2');
    process.stdout.write(`# square P${order}: energy rate ${r1.toFixed(3)}, L² rate ${r0.toFixed(3)}\n`);
    assert.ok(Math.abs(r1 - order) <= 0.2, `P${order} energy rate ${r1}`);
    assert.ok(Math.abs(r0 - (order + 1)) <= 0.2, `P${order} L² rate ${r0}`);
  }
});

test('manufactured solution on the unit box (tetrahedra): P1 rates 1 and 2, P2 rates 2 and 3 (each within 0.2)', { skip: SKIP, timeout: 180_000 }, () => {
  const u = (x: number, y: number, z: number) => Math.sin(PI * x) * Math.sin(PI * y) * Math.sin(PI * z);
  const g = (x: number, y: number, z: number) => [PI * Math.cos(PI * x) * Math.sin(PI * y) * Math.sin(PI * z), PI * Math.sin(PI * x) * Math.cos(PI * y) * Math.sin(PI * z), PI * Math.sin(PI * x) * Math.sin(PI * y) * Math.cos(PI * z)];
  const f = (x: number, y: number, z: number) => 3 * PI * PI * u(x, y, z);
  for (const [order, lcs] of [[1, [0.14, 0.1, 0.07]], [2, [0.2, 0.15, 0.11]]] as const) {
    const cases = convergence(`box-p${order}`, 3, BOX, [...lcs], order, u, g, f);
    const r1 = rate(cases, 3, 'h1'), r0 = rate(cases, 3, 'l2');
    process.stdout.write(`# box P${order}: energy rate ${r1.toFixed(3)}, L² rate ${r0.toFixed(3)} (elements ${cases.map((c) => c.vertices).join(', ')})\n`);
    assert.ok(Math.abs(r1 - order) <= 0.2, `P${order} energy rate ${r1}`);
    assert.ok(Math.abs(r0 - (order + 1)) <= 0.2, `P${order} L² rate ${r0}`);
  }
});

test('L-shaped domain: the corner singularity r^(2/3) sin(2θ/3) limits P1 to energy rate 2/3 (within 0.2)', { skip: SKIP, timeout: 120_000 }, () => {
  const theta = (x: number, y: number) => { const t = Math.atan2(y, x); return t < 0 ? t + 2 * PI : t; };
  const u = (x: number, y: number) => Math.hypot(x, y) ** (2 / 3) * Math.sin((2 / 3) * theta(x, y));
  const g = (x: number, y: number) => {
    const r = Math.hypot(x, y), t = theta(x, y);
    if (r === 0) return [0, 0];
    const ur = (2 / 3) * r ** (-1 / 3) * Math.sin((2 / 3) * t), ut = (2 / 3) * r ** (-1 / 3) * Math.cos((2 / 3) * t);
    return [ur * Math.cos(t) - ut * Math.sin(t), ur * Math.sin(t) + ut * Math.cos(t)];
  };
  const cases = convergence('lshape', 2, LSHAPE, [0.2, 0.1, 0.05, 0.025], 1, u, g, () => 0);
  const r1 = rate(cases, 2, 'h1');
  process.stdout.write(`# L-shape P1: energy rate ${r1.toFixed(3)}\n`);
  assert.ok(Math.abs(r1 - 2 / 3) <= 0.2, `energy rate ${r1}`);
});

test('the Zienkiewicz-Zhu estimate is honest: the true energy error is within 3× of it in at least 90 % of the cases above', { skip: SKIP }, () => {
  assert.ok(effectivities.length >= 10, 'the convergence tests ran first');
  const within = effectivities.filter((e) => e.ratio <= 3 && e.ratio >= 1 / 3);
  process.stdout.write(`# effectivity (true/estimate): ${effectivities.map((e) => `${e.label}: ${e.ratio.toFixed(2)}`).join('; ')}\n`);
  assert.ok(within.length >= 0.9 * effectivities.length, `${within.length} of ${effectivities.length} within 3×`);
  // with margin: P2's patch recovery is asymptotically exact on these smooth problems
  for (const e of effectivities.filter((x) => x.label.includes('-p2'))) assert.ok(e.ratio >= 0.8 && e.ratio <= 1.25, `${e.label}: effectivity ${e.ratio}`);
});

test('patch recovery reproduces the gradient of a quadratic exactly (P2, square and box), so the estimate vanishes', { skip: SKIP }, () => {
  for (const [dim, geo] of [[2, SQUARE(0.25)], [3, BOX(0.4)]] as const) {
    const s = buildSpace(readGmsh(gmsh(geo, `spr-${dim}`, dim)), 2, ['boundary']);
    // u = quadratic (with mixed terms): −Δu = f is constant, u is in P2, so u_h = u up to rounding
    const u = (x: number, y: number, z: number) => 1 + x - 2 * y + x * x + 3 * x * y - y * y + (dim === 3 ? z * z - x * z + 0.5 * y * z : 0);
    const grad = (x: number, y: number, z: number) => [1 + 2 * x + 3 * y - (dim === 3 ? z : 0), -2 + 3 * x - 2 * y + (dim === 3 ? 0.5 * z : 0), dim === 3 ? 2 * z - x + 0.5 * y : 0];
    const f = -(2 - 2 + (dim === 3 ? 2 : 0));
    const sol = solveFe(s, { kind: 'poisson', k: () => 1, f: () => f, bc: new Map([['boundary', { type: 'dirichlet', value: u }]]) });
    let worst = 0;
    for (let n = 0; n < s.nodes; n++) {
      const g = grad(s.coords[3 * n], s.coords[3 * n + 1], s.coords[3 * n + 2]);
      for (let r = 0; r < dim; r++) worst = Math.max(worst, Math.abs(sol.recovered[n * dim + r] - g[r]));
    }
    assert.ok(worst < 1e-9, `${dim}-D: recovered gradient off by ${worst}`);
    assert.ok(sol.estimate < 1e-9 * sol.energyNorm, `${dim}-D: estimate ${sol.estimate} of ${sol.energyNorm}`);
  }
});

const KIRSCH = (lcHole: number, lcFar: number) => `a = 1; L = 40;
Point(1) = {a, 0, 0, ${lcHole}}; Point(2) = {L, 0, 0, ${lcFar}}; Point(3) = {L, L, 0, ${lcFar}}; Point(4) = {0, L, 0, ${lcFar}}; Point(5) = {0, a, 0, ${lcHole}}; Point(6) = {0, 0, 0, ${lcHole}};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Circle(5) = {5, 6, 1};
Curve Loop(1) = {1, 2, 3, 4, 5}; Plane Surface(1) = {1};
Physical Curve("bottom") = {1}; Physical Curve("right") = {2}; Physical Curve("top") = {3}; Physical Curve("left") = {4}; Physical Curve("hole") = {5};
Physical Surface("plate") = {1};
`;

test('plate with a hole under tension: σxx at the top of the hole is 3σ (Kirsch) within 2 % on a fine P2 mesh', { skip: SKIP, timeout: 120_000 }, () => {
  const mesh = gmsh(KIRSCH(0.02, 4), 'kirsch', 2, ['-order', '2']);
  const out = fea({
    mesh, pde: 'elasticity', E: 1000, nu: 0.3, model: 'plane-stress',
    boundary: { left: { type: 'fixed', value: [0, null] }, bottom: { type: 'fixed', value: [null, 0] }, right: { type: 'traction', value: [1, 0] } },
    probes: [[0, 1], [1, 0]],
  });
  const [top, side] = out.result.probes as any[];
  // finite width W = 2L = 80a: Heywood's Kt = (2 + (1 − 2a/W)³)/(1 − 2a/W) = 3.002 on the gross stress
  process.stdout.write(`# Kirsch: σxx(0, a) = ${top.stress.xx.toFixed(4)}, σyy(a, 0) = ${side.stress.yy.toFixed(4)} (Kirsch −1), dofs ${out.result.dofs}\n`);
  assert.ok(Math.abs(top.stress.xx - 3) <= 0.06, `σxx ${top.stress.xx}`);
  assert.equal(out.precision.withinBound, true);
});

test('malformed meshes are 400s naming the line or element', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [EXAMPLE_MESH.replace('5 2 2 4 1 1 2 3', '5 3 2 4 1 1 2 3 4'), {}, /line 24: element 5 has type 3 \(quadrangle\)/],
    [EXAMPLE_MESH.replace('6 2 2 4 1 1 3 4', '6 2 2 4 1 1 3 9'), {}, /element 6 refers to node 9/],
    [EXAMPLE_MESH, { boundary: { inlet: { type: 'dirichlet', value: 0 } } }, /no physical group named 'inlet'/],
    [EXAMPLE_MESH.replace('6 2 2 4 1 1 3 4', '6 2 2 4 1 1 4 3'), { boundary: { left: { type: 'dirichlet', value: 0 } } }, /element 6 is inverted/],
    ['$MeshFormat\n4.1 1 8\n$EndMeshFormat\n', {}, /binary MSH files are not supported/],
    ['hello', {}, /line 1: expected a section/],
  ];
  for (const [mesh, extra, re] of cases) {
    let err: unknown;
    try { fea({ mesh, boundary: { left: { type: 'dirichlet', value: 0 } }, ...extra }); } catch (e) { err = e; }
    assert.ok(err instanceof SvcError, `${re}: no refusal`);
    assert.equal(err.code, 'INVALID_INPUT');
    assert.match(err.message, re);
  }
  assert.throws(() => descriptor.input.parse({ mesh: EXAMPLE_MESH, nx: 10 }), /nx sets up the built-in cantilever/);
  assert.throws(() => descriptor.input.parse({ order: 2 }), /order applies to a given mesh/);
  assert.throws(() => descriptor.input.parse({ mesh: EXAMPLE_MESH, E: 1 }), /E applies to pde 'elasticity'/);
});

test('the documented mesh example: u = x between u = 0 on left and u = 1 on right is reproduced exactly, and MSH 2.2 reads like 4.1', { skip: SKIP }, () => {
  const out = fea({ mesh: EXAMPLE_MESH, order: 2, boundary: { left: { type: 'dirichlet', value: 0 }, right: { type: 'dirichlet', value: 1 } }, probes: [[0.25, 0.5]] });
  assert.ok(Math.abs((out.result.probes as any[])[0].value - 0.25) < 1e-14);
  assert.ok(Math.abs(out.value - 1) < 1e-14);
  const geo = SQUARE(0.3);
  const m41 = gmsh(geo, 'v41', 2), m22 = gmsh(geo, 'v22', 2, ['-format', 'msh22']);
  const body = { boundary: { boundary: { type: 'dirichlet', value: 0 } }, f: '2*pi^2*sin(pi*x)*sin(pi*y)', order: 2, probes: [[0.5, 0.5]] };
  const a = fea({ mesh: m41, ...body }), b = fea({ mesh: m22, ...body });
  assert.equal(a.value, b.value);
  assert.ok(Math.abs((a.result.probes as any[])[0].value - 1) < 0.01);
});

test('the cantilever through the new path: a Gmsh mesh of the same beam, P2 triangles, gives today\'s Q4 tip deflection within 0.3 %', { skip: SKIP, timeout: 60_000 }, () => {
  // today's default: 4 m × 1 m, E = 200 GPa, ν = 0.3, plane stress, clamped at x = 0, P = 1000 N as a
  // parabolic shear traction τ(y) = (3P/2Ly)(1 − (2y/Ly − 1)²) on x = 4 (downward). Both discretisations
  // converge to the same 2-D elasticity solution; Q4-with-incompatible-modes at 120×30 is 0.05 % from it.
  const geo = `Point(1) = {0, 0, 0}; Point(2) = {4, 0, 0}; Point(3) = {4, 1, 0}; Point(4) = {0, 1, 0};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 41; Transfinite Curve{2, 4} = 11; Transfinite Surface{1};
Physical Curve("clamp") = {4}; Physical Curve("tip") = {2}; Physical Surface("beam") = {1};
`;
  const mesh = gmsh(geo, 'cantilever', 2, ['-order', '2']);
  const out = fea({
    mesh, pde: 'elasticity', E: 200e9, nu: 0.3, model: 'plane-stress',
    boundary: { clamp: { type: 'fixed', value: 0 }, tip: { type: 'traction', value: [0, '-(3*1000/2)*(1 - (2*y - 1)^2)'] } },
    probes: [[4, 0.5]],
  });
  const today = fea({});
  const tip = -((out.result.probes as any[])[0].value[1]);
  const rel = Math.abs(tip - today.value) / today.value;
  process.stdout.write(`# cantilever: new path ${tip} m, today's Q4 ${today.value} m, difference ${(100 * rel).toFixed(3)} %\n`);
  assert.ok(rel <= 0.003, `${tip} vs ${today.value}`);
});
