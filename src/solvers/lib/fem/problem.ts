// svc_fea on the user's mesh: reads the Gmsh file (gmsh.ts), builds the P1/P2 space (space.ts),
// compiles the coefficients through the expression sandbox (lib/expr.ts), assembles and solves
// (assemble.ts, with lib/sparse), and reports probes, energy norm, max |u|, the nodal solution and
// the Zienkiewicz-Zhu estimate. The certificate is the estimate (DESIGN §10: an a-posteriori error
// estimate for the user's own problems) together with the linear solve's backward error recomputed
// by lib/sparse/check.ts: the result is within bound when the estimated relative energy error is
// below 100 % (the discretisation resolves something) and the backward error is ≤ 1e-12.
import { refuse } from '../../../core/errors.ts';
import { compileSystem } from '../expr.ts';
import { precisionOf } from '../precision.ts';
import type { SolverContext, SolverOutput } from '../../types.ts';
import { readGmsh, ELEMENT_TYPES } from './gmsh.ts';
import { buildSpace } from './space.ts';
import { solveFe, evaluateAt, elasticD, strainOf, type Coef, type FeProblem, type PoissonBc, type ElasticBc } from './assemble.ts';

export const MAX_MESH_TEXT = 64 * 1024 * 1024;
export const MAX_MESH_DOFS = 400_000;

/** A unit square in MSH 2.2: two triangles, boundary lines in groups 'left', 'right', 'walls'. */
export const EXAMPLE_MESH = `$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
4
1 1 "left"
1 2 "right"
1 3 "walls"
2 4 "domain"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
6
1 1 2 1 1 4 1
2 1 2 2 2 2 3
3 1 2 3 3 1 2
4 1 2 3 3 3 4
5 2 2 4 1 1 2 3
6 2 2 4 1 1 3 4
$EndElements
`;

export interface MeshInput {
  mesh: string; pde?: 'poisson' | 'elasticity'; k?: number | string; f?: number | string; E?: number; nu?: number;
  model?: 'plane-stress' | 'plane-strain' | '3d';
  boundary?: Record<string, { type: 'dirichlet' | 'neumann' | 'fixed' | 'traction'; value?: number | string | (number | string | null)[] }>;
  order?: 1 | 2; probes?: number[][];
}

function coefOf(v: number | string | undefined, dflt: number, field: string): Coef {
  if (v === undefined) return () => dflt;
  if (typeof v === 'number') return () => v;
  const sys = compileSystem([v], ['x', 'y', 'z'], {}, { field });
  const xv = new Float64Array(3), out = new Float64Array(1);
  return (x, y, z) => {
    xv[0] = x; xv[1] = y; xv[2] = z;
    sys.evaluate(xv, out);
    const r = out[0];
    if (!Number.isFinite(r)) throw refuse('INVALID_INPUT', `${field}: the expression is not finite at (${x}, ${y}, ${z})`);
    return r;
  };
}

export function runOnMesh(inp: MeshInput, ctx: SolverContext): SolverOutput {
  const mesh = readGmsh(inp.mesh);
  const meshOrder = Math.max(...mesh.elements.map((e) => ELEMENT_TYPES[e.type].order));
  const order = inp.order ?? (meshOrder as 1 | 2);
  const boundary = inp.boundary ?? {};
  const space = buildSpace(mesh, order, Object.keys(boundary));
  const pde = inp.pde ?? 'poisson';
  const dim = space.dim;
  const ncomp = pde === 'poisson' ? 1 : dim;
  if (space.nodes * ncomp > MAX_MESH_DOFS) throw refuse('INVALID_INPUT', `mesh: ${space.nodes * ncomp} degrees of freedom exceed the limit of ${MAX_MESH_DOFS}`);
  let problem: FeProblem;
  if (pde === 'poisson') {
    const bc = new Map<string, PoissonBc>();
    for (const [name, b] of Object.entries(boundary)) bc.set(name, { type: b.type as 'dirichlet' | 'neumann', value: coefOf(b.value as number | string | undefined, 0, `boundary.${name}.value`) });
    problem = { kind: 'poisson', k: coefOf(inp.k, 1, 'k'), f: coefOf(inp.f, 0, 'f'), bc };
  } else {
    const model = inp.model ?? (dim === 3 ? '3d' : 'plane-stress');
    if ((model === '3d') !== (dim === 3)) throw refuse('INVALID_INPUT', `model: '${model}' does not fit a ${dim}-D mesh`);
    const bc = new Map<string, ElasticBc>();
    for (const [name, b] of Object.entries(boundary)) {
      if (b.type === 'fixed') {
        const v = b.value === undefined ? 0 : b.value;
        const arr = Array.isArray(v) ? v : new Array(dim).fill(v as number);
        if (arr.length !== dim) throw refuse('INVALID_INPUT', `boundary.${name}.value: give ${dim} components`);
        bc.set(name, { type: 'fixed', value: arr });
      } else {
        const v = b.value as (number | string | null)[];
        if (v.length !== dim || v.some((c) => c === null)) throw refuse('INVALID_INPUT', `boundary.${name}.value: a traction has ${dim} components (numbers or expressions in x, y, z)`);
        bc.set(name, { type: 'traction', value: v.map((c, i) => coefOf(c as number | string, 0, `boundary.${name}.value[${i}]`)) });
      }
    }
    problem = { kind: 'elasticity', E: inp.E ?? 200e9, nu: inp.nu ?? 0.3, model, bc };
  }
  const hasDirichlet = [...problem.bc.values()].some((b) => b.type === 'dirichlet' || b.type === 'fixed');
  if (!hasDirichlet) throw refuse('INVALID_INPUT', `boundary: name at least one ${pde === 'poisson' ? "'dirichlet'" : "'fixed'"} group; without one the solution is not unique`);
  let sol;
  try {
    sol = solveFe(space, problem, (f) => ctx.progress(f));
  } catch (e: any) {
    if (e?.code === 'SINGULAR') throw refuse('SINGULAR', `the assembled system is singular (${e.message}); the boundary conditions do not hold the ${pde === 'poisson' ? 'solution' : 'body'} in place (an elastic body needs its rigid motions fixed)`, e.details);
    throw e;
  }
  let maxU = 0;
  for (let n = 0; n < space.nodes; n++) {
    let m = 0;
    for (let c = 0; c < ncomp; c++) m += sol.u[n * ncomp + c] ** 2;
    maxU = Math.max(maxU, Math.sqrt(m));
  }
  const D = problem.kind === 'elasticity' ? elasticD(problem, dim) : null;
  const probes = (inp.probes ?? []).map((pt) => {
    const r = evaluateAt(space, sol, pt);
    if (!r) throw refuse('INVALID_INPUT', `probes: point [${pt.join(', ')}] is outside the mesh`);
    // estimated pointwise error: local size × the recovered-minus-computed gradient (ZZ indicator
    // per unit measure), a heuristic scale, not a bound
    const localMeasure = dim === 2 ? (Math.sqrt(3) / 4) * r.h * r.h : r.h ** 3 / (6 * Math.SQRT2);
    const estimatedError = r.h * r.eta / Math.sqrt(Math.max(localMeasure, 1e-300));
    const out: Record<string, unknown> = { point: pt, value: ncomp === 1 ? r.value[0] : r.value, estimatedError };
    if (D) {
      const e = strainOf(r.gradient, dim);
      const sig = D.map((row) => row.reduce((s2, d, j) => s2 + d * e[j], 0));
      out.stress = dim === 2 ? { xx: sig[0], yy: sig[1], xy: sig[2] } : { xx: sig[0], yy: sig[1], zz: sig[2], yz: sig[3], xz: sig[4], xy: sig[5] };
    } else out.gradient = r.gradient;
    return out;
  });
  const relEstimate = sol.energyNorm > 0 ? sol.estimate / sol.energyNorm : 0;
  ctx.progress(1);
  const s = sol.solver;
  const coordinates: number[] = [];
  for (let n = 0; n < space.nodes; n++) for (let r = 0; r < dim; r++) coordinates.push(space.coords[3 * n + r]);
  return {
    value: maxU,
    method: `p${order}-${pde}-sparse-${s.method}`,
    result: {
      pde, order, dim, model: problem.kind === 'elasticity' ? problem.model : null,
      meshFormat: mesh.version, elements: space.nElems, nodes: space.nodes, dofs: sol.dofs, freeDofs: sol.freeDofs,
      maxU, energyNorm: sol.energyNorm,
      estimate: { energyError: sol.estimate, relative: relEstimate, method: order === 2 ? 'Zienkiewicz-Zhu superconvergent patch recovery (quadratic fits at interior sampling points)' : 'Zienkiewicz-Zhu gradient recovery (nodal averaging)' },
      probes,
      solver: { method: s.method, ordering: s.ordering, fillIn: s.fillIn, backwardError: s.backwardError, residualNorm: s.residualNorm, condEst: s.condEst, forwardErrorBound: Number.isFinite(s.forwardErrorBound) ? s.forwardErrorBound : null },
      solution: { coordinates, u: Array.from(sol.u) },
      physicalGroups: [...mesh.physicalNames.keys()],
    },
    precision: precisionOf({
      errorPct: 100 * relEstimate,
      boundPct: 100,
      reference: 'Zienkiewicz-Zhu a-posteriori estimate of the energy-norm error relative to the energy norm (below 100 %), with the linear solve\'s backward error ≤ 1e-12 recomputed from the assembled matrix',
      certificate: 'error-estimate',
      alsoHolds: s.backwardError <= 1e-12,
    }),
  };
}
