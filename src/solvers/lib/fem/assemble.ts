// Galerkin assembly, solution and a-posteriori estimate on a P1/P2 space (space.ts):
//  - Poisson −∇·(k∇u) = f, Dirichlet u = g and Neumann k∂u/∂n = h on named boundary groups;
//  - linear elasticity −∇·σ(u) = 0, σ = D·ε(u), plane stress, plane strain (thickness 1) or 3-D,
//    fixed displacement components and tractions on named groups (Zienkiewicz, Taylor & Zhu, "The
//    Finite Element Method: Its Basis and Fundamentals", 7th ed., ch. 6).
// Quadrature: Grundmann-Möller of degree 5 (exact for P2 stiffness on straight elements, and for
// P2·P2 mass terms), Gauss-Legendre on boundary edges; boundary faces in 3-D use the degree-5 rule
// on the triangle. Dirichlet values are imposed by elimination: the free block K_ff u_f = F_f − K_fd g
// is assembled as triplets and solved by lib/sparse (sparse Cholesky after AMD, the same certificate
// as svc_linsolve).
// Estimate: Zienkiewicz-Zhu gradient recovery (Zienkiewicz & Zhu, "A simple error estimator and
// adaptive procedure for practical engineering analysis", IJNME 24, 1987): for P1 the discontinuous
// gradient (or displacement gradient) is averaged at every dof node over the elements sharing it,
// weighted by their measure; for P2 it is recovered by superconvergent patch recovery (ZZ 1992,
// recovery.ts). The recovered field is interpolated in the same space, and the error is estimated in the
// energy norm as η² = Σ_K ∫_K (G − ∇u_h)·k·(G − ∇u_h) (elasticity: the strain energy of the
// difference). η is asymptotically exact for smooth solutions on regular meshes (ZZ 1992).
import { refuse } from '../../../core/errors.ts';
import { solveSparse, type SparseSolveResult } from '../sparse/driver.ts';
import { simplexRule, lineRule } from './quadrature.ts';
import { basisAt, localNodes, type FeSpace } from './space.ts';
import { sprRecover } from './recovery.ts';
import { mapPoint } from './map.ts';

export { mapPoint };

export type Coef = (x: number, y: number, z: number) => number;

export type PoissonBc = { type: 'dirichlet' | 'neumann'; value: Coef };
export type ElasticBc = { type: 'fixed'; value: (number | null)[] } | { type: 'traction'; value: Coef[] };

export interface PoissonProblem { kind: 'poisson'; k: Coef; f: Coef; bc: Map<string, PoissonBc> }
export interface ElasticProblem { kind: 'elasticity'; E: number; nu: number; model: 'plane-stress' | 'plane-strain' | '3d'; bc: Map<string, ElasticBc> }
export type FeProblem = PoissonProblem | ElasticProblem;

export interface FeSolution {
  /** nodal values, ncomp per dof node */
  u: Float64Array;
  ncomp: number;
  dofs: number;
  freeDofs: number;
  energyNorm: number;
  estimate: number;
  elementEta: Float64Array;
  /** recovered gradient per dof node (Poisson: dim; elasticity: dim·dim displacement gradient, row-major) */
  recovered: Float64Array;
  solver: SparseSolveResult;
  /** ms on the clock passed to solveFe: assembly (with the Dirichlet elimination), the sparse solve, the energy norm and estimate */
  timings: { assemblyMs: number; solveMs: number; estimateMs: number };
}

interface QpBasis { w: number[]; phi: Float64Array[]; dphi: Float64Array[]; lam: number[][] }
const basisCache = new Map<string, QpBasis>();
function qpBasis(dim: number, order: 1 | 2, points: number[][], weights: number[], key: string): QpBasis {
  const hit = basisCache.get(key);
  if (hit) return hit;
  const b: QpBasis = { w: weights, phi: [], dphi: [], lam: points };
  for (const p of points) { const r = basisAt(dim, order, p); b.phi.push(r.phi); b.dphi.push(r.dphi); }
  basisCache.set(key, b);
  return b;
}


const REF_MEASURE = { 2: 0.5, 3: 1 / 6 } as const;

function elasticD(p: ElasticProblem, dim: number): number[][] {
  const { E, nu } = p;
  if (dim === 2 && p.model === 'plane-stress') { const c = E / (1 - nu * nu); return [[c, c * nu, 0], [c * nu, c, 0], [0, 0, c * (1 - nu) / 2]]; }
  const l = (E * nu) / ((1 + nu) * (1 - 2 * nu)), m = E / (2 * (1 + nu));
  if (dim === 2) return [[l + 2 * m, l, 0], [l, l + 2 * m, 0], [0, 0, m]];
  return [[l + 2 * m, l, l, 0, 0, 0], [l, l + 2 * m, l, 0, 0, 0], [l, l, l + 2 * m, 0, 0, 0], [0, 0, 0, m, 0, 0], [0, 0, 0, 0, m, 0], [0, 0, 0, 0, 0, m]];
}

/** Strain (Voigt) from a displacement gradient G (dim×dim row-major: G[i][j] = ∂u_i/∂x_j). */
function strainOf(G: ArrayLike<number>, dim: number): number[] {
  if (dim === 2) return [G[0], G[3], G[1] + G[2]];
  return [G[0], G[4], G[8], G[5] + G[7], G[2] + G[6], G[1] + G[3]];
}

export function solveFe(s: FeSpace, p: FeProblem, progress?: (f: number) => void, clock: () => number = () => performance.now()): FeSolution {
  const { dim, order, nodesPerElem: nb, nElems, elems, nodes } = s;
  const tAssembly = clock();
  const ncomp = p.kind === 'poisson' ? 1 : dim;
  const ndof = nodes * ncomp;
  // fixed dofs
  const fixed = new Uint8Array(ndof);
  const g = new Float64Array(ndof);
  for (const [name, bc] of p.bc) {
    const fc = s.facets.get(name)!;
    if (p.kind === 'poisson' && bc.type === 'dirichlet') {
      for (const n of fc.nodes) { fixed[n] = 1; g[n] = (bc.value as Coef)(s.coords[3 * n], s.coords[3 * n + 1], s.coords[3 * n + 2]); }
    } else if (bc.type === 'fixed') {
      const v = bc.value as (number | null)[];
      for (const n of fc.nodes) for (let c = 0; c < dim; c++) if (v[c] !== null && v[c] !== undefined) { fixed[n * ncomp + c] = 1; g[n * ncomp + c] = v[c]!; }
    }
  }
  const freeIndex = new Int32Array(ndof).fill(-1);
  let nFree = 0;
  for (let d = 0; d < ndof; d++) if (!fixed[d]) freeIndex[d] = nFree++;
  if (nFree === 0) throw refuse('INVALID_INPUT', 'boundary: every degree of freedom is fixed; nothing to solve');
  const rule = simplexRule(dim, 2);
  const qb = qpBasis(dim, order, rule.points, rule.weights, `${dim}:${order}:gm5`);
  const F = new Float64Array(nFree);
  const nloc = nb * ncomp;
  const cap = nElems * nloc * nloc;
  const ri = new Int32Array(cap), ci = new Int32Array(cap), vv = new Float64Array(cap);
  let nz = 0;
  const grads = new Float64Array(nb * dim), x = new Float64Array(3);
  const Ke = new Float64Array(nloc * nloc), Fe = new Float64Array(nloc);
  const D = p.kind === 'elasticity' ? elasticD(p, dim) : null;
  const nv = dim === 2 ? 3 : 6;
  const B = new Float64Array(nv * nloc), DB = new Float64Array(nv * nloc);
  const measure = REF_MEASURE[dim];
  const tick = Math.max(1, nElems >> 4);
  for (let k = 0; k < nElems; k++) {
    Ke.fill(0); Fe.fill(0);
    for (let q = 0; q < qb.w.length; q++) {
      const det = mapPoint(s, k, qb.phi[q], qb.dphi[q], grads, x);
      const w = qb.w[q] * measure * det;
      if (p.kind === 'poisson') {
        const kk = p.k(x[0], x[1], x[2]) * w, ff = p.f(x[0], x[1], x[2]) * w;
        for (let a = 0; a < nb; a++) {
          Fe[a] += ff * qb.phi[q][a];
          for (let b = 0; b < nb; b++) {
            let dot = 0;
            for (let r = 0; r < dim; r++) dot += grads[a * dim + r] * grads[b * dim + r];
            Ke[a * nloc + b] += kk * dot;
          }
        }
      } else {
        B.fill(0);
        for (let a = 0; a < nb; a++) {
          const gx = grads[a * dim], gy = grads[a * dim + 1], gz = dim === 3 ? grads[a * dim + 2] : 0;
          if (dim === 2) {
            B[0 * nloc + 2 * a] = gx; B[1 * nloc + 2 * a + 1] = gy; B[2 * nloc + 2 * a] = gy; B[2 * nloc + 2 * a + 1] = gx;
          } else {
            const c = 3 * a;
            B[0 * nloc + c] = gx; B[1 * nloc + c + 1] = gy; B[2 * nloc + c + 2] = gz;
            B[3 * nloc + c + 1] = gz; B[3 * nloc + c + 2] = gy;
            B[4 * nloc + c] = gz; B[4 * nloc + c + 2] = gx;
            B[5 * nloc + c] = gy; B[5 * nloc + c + 1] = gx;
          }
        }
        for (let r = 0; r < nv; r++) for (let j = 0; j < nloc; j++) { let v = 0; for (let t = 0; t < nv; t++) v += D![r][t] * B[t * nloc + j]; DB[r * nloc + j] = v; }
        for (let i = 0; i < nloc; i++) for (let j = 0; j < nloc; j++) { let v = 0; for (let r = 0; r < nv; r++) v += B[r * nloc + i] * DB[r * nloc + j]; Ke[i * nloc + j] += w * v; }
      }
    }
    // scatter with elimination of the fixed dofs
    for (let i = 0; i < nloc; i++) {
      const gi = elems[k * nb + ((i / ncomp) | 0)] * ncomp + (i % ncomp);
      const fi = freeIndex[gi];
      if (fi < 0) continue;
      F[fi] += Fe[i];
      for (let j = 0; j < nloc; j++) {
        const gj = elems[k * nb + ((j / ncomp) | 0)] * ncomp + (j % ncomp);
        const fj = freeIndex[gj];
        const v = Ke[i * nloc + j];
        if (fj < 0) F[fi] -= v * g[gj];
        else if (v !== 0) { ri[nz] = fi; ci[nz] = fj; vv[nz] = v; nz++; }
      }
    }
    if (progress && k % tick === 0) progress(0.3 * k / nElems);
  }
  // natural boundary terms: Neumann flux or traction on facets
  for (const [name, bc] of p.bc) {
    if (!(bc.type === 'neumann' || bc.type === 'traction')) continue;
    const fc = s.facets.get(name)!;
    const fdim = dim - 1;
    let pts: number[][], wts: number[];
    if (fdim === 1) { const lr = lineRule(4); pts = lr.t.map((t) => [1 - t, t]); wts = lr.w; }
    else { const r = simplexRule(2, 2); pts = r.points; wts = r.weights.map((w) => w * 0.5); }
    const fb = qpBasis(fdim, order, pts, wts, `f${fdim}:${order}`);
    const pf = fc.perFacet;
    for (let f = 0; f * pf < fc.nodes.length; f++) {
      for (let q = 0; q < fb.w.length; q++) {
        const X = [0, 0, 0];
        const T = [[0, 0, 0], [0, 0, 0]];
        for (let a = 0; a < pf; a++) {
          const n = fc.nodes[f * pf + a];
          for (let r = 0; r < 3; r++) {
            X[r] += s.coords[3 * n + r] * fb.phi[q][a];
            for (let c = 0; c < fdim; c++) T[c][r] += s.coords[3 * n + r] * fb.dphi[q][a * fdim + c];
          }
        }
        const ds = fdim === 1 ? Math.hypot(T[0][0], T[0][1], T[0][2])
          : Math.hypot(T[0][1] * T[1][2] - T[0][2] * T[1][1], T[0][2] * T[1][0] - T[0][0] * T[1][2], T[0][0] * T[1][1] - T[0][1] * T[1][0]);
        const w = fb.w[q] * ds;
        for (let a = 0; a < pf; a++) {
          const n = fc.nodes[f * pf + a];
          if (bc.type === 'neumann') {
            const fi = freeIndex[n];
            if (fi >= 0) F[fi] += w * (bc.value as Coef)(X[0], X[1], X[2]) * fb.phi[q][a];
          } else {
            const t = bc.value as Coef[];
            for (let c = 0; c < dim; c++) { const fi = freeIndex[n * ncomp + c]; if (fi >= 0) F[fi] += w * t[c](X[0], X[1], X[2]) * fb.phi[q][a]; }
          }
        }
      }
    }
  }
  progress?.(0.35);
  const tSolve = clock();
  const solver = solveSparse({ n: nFree, ri: ri.subarray(0, nz), ci: ci.subarray(0, nz), vals: vv.subarray(0, nz) }, F, { method: 'auto', progress: (f) => progress?.(0.35 + 0.5 * f), clock });
  const tEstimate = clock();
  const u = Float64Array.from(g);
  for (let d = 0; d < ndof; d++) if (freeIndex[d] >= 0) u[d] = solver.x[freeIndex[d]];
  // energy norm and ZZ recovery
  const ngc = ncomp * dim;
  const ug = new Float64Array(ngc);
  const gradAt = (k: number, gr: Float64Array, out: Float64Array) => {
    out.fill(0);
    for (let a = 0; a < nb; a++) {
      const n = elems[k * nb + a];
      for (let c = 0; c < ncomp; c++) for (let r = 0; r < dim; r++) out[c * dim + r] += u[n * ncomp + c] * gr[a * dim + r];
    }
  };
  // P1: measure-weighted nodal averaging; P2: superconvergent patch recovery (recovery.ts)
  const rec = order === 2 ? sprRecover(s, u, ncomp) : new Float64Array(nodes * ngc);
  if (order === 1) {
    const wsum = new Float64Array(nodes);
    const ln = localNodes(dim, order);
    const nb2 = qpBasis(dim, order, ln, ln.map(() => 1), `${dim}:${order}:nodes`);
    for (let k = 0; k < nElems; k++) {
      let m = 0;
      for (let q = 0; q < qb.w.length; q++) m += qb.w[q] * measure * mapPoint(s, k, qb.phi[q], qb.dphi[q], grads, x);
      for (let a = 0; a < nb; a++) {
        mapPoint(s, k, nb2.phi[a], nb2.dphi[a], grads, x);
        gradAt(k, grads, ug);
        const n = elems[k * nb + a];
        for (let c = 0; c < ngc; c++) rec[n * ngc + c] += m * ug[c];
        wsum[n] += m;
      }
    }
    for (let n = 0; n < nodes; n++) if (wsum[n] > 0) for (let c = 0; c < ngc; c++) rec[n * ngc + c] /= wsum[n];
  }
  const elementEta = new Float64Array(nElems);
  let energy2 = 0, eta2 = 0;
  const diff = new Float64Array(ngc);
  const energyOf = (G: Float64Array, xx: Float64Array): number => {
    if (p.kind === 'poisson') { let v = 0; for (let r = 0; r < dim; r++) v += G[r] * G[r]; return p.k(xx[0], xx[1], xx[2]) * v; }
    const e = strainOf(G, dim);
    let v = 0;
    for (let i = 0; i < e.length; i++) for (let j = 0; j < e.length; j++) v += e[i] * D![i][j] * e[j];
    return v;
  };
  for (let k = 0; k < nElems; k++) {
    let ek = 0;
    for (let q = 0; q < qb.w.length; q++) {
      const det = mapPoint(s, k, qb.phi[q], qb.dphi[q], grads, x);
      const w = qb.w[q] * measure * det;
      gradAt(k, grads, ug);
      energy2 += w * energyOf(ug, x);
      diff.fill(0);
      for (let a = 0; a < nb; a++) { const n = elems[k * nb + a]; for (let c = 0; c < ngc; c++) diff[c] += rec[n * ngc + c] * qb.phi[q][a]; }
      for (let c = 0; c < ngc; c++) diff[c] -= ug[c];
      ek += w * energyOf(diff, x);
    }
    elementEta[k] = Math.sqrt(Math.max(0, ek));
    eta2 += ek;
  }
  progress?.(0.95);
  const timings = { assemblyMs: tSolve - tAssembly, solveMs: tEstimate - tSolve, estimateMs: clock() - tEstimate };
  return { u, ncomp, dofs: ndof, freeDofs: nFree, energyNorm: Math.sqrt(energy2), estimate: Math.sqrt(eta2), elementEta, recovered: rec, solver, timings };
}

/** Errors of a Poisson solution against an exact u and ∇u: L² norm and energy (k = 1: H¹ seminorm). */
export function errorNorms(s: FeSpace, sol: FeSolution, exact: (x: number, y: number, z: number) => number, grad: (x: number, y: number, z: number) => number[]): { l2: number; h1: number } {
  const { dim, order, nodesPerElem: nb, nElems, elems } = s;
  const rule = simplexRule(dim, 3);
  const qb = qpBasis(dim, order, rule.points, rule.weights, `${dim}:${order}:gm7`);
  const grads = new Float64Array(nb * dim), x = new Float64Array(3);
  let l2 = 0, h1 = 0;
  for (let k = 0; k < nElems; k++) for (let q = 0; q < qb.w.length; q++) {
    const det = mapPoint(s, k, qb.phi[q], qb.dphi[q], grads, x);
    const w = qb.w[q] * REF_MEASURE[dim] * det;
    let uh = 0;
    const gh = [0, 0, 0];
    for (let a = 0; a < nb; a++) { const n = elems[k * nb + a]; uh += sol.u[n] * qb.phi[q][a]; for (let r = 0; r < dim; r++) gh[r] += sol.u[n] * grads[a * dim + r]; }
    const ge = grad(x[0], x[1], x[2]);
    l2 += w * (uh - exact(x[0], x[1], x[2])) ** 2;
    for (let r = 0; r < dim; r++) h1 += w * (gh[r] - ge[r]) ** 2;
  }
  return { l2: Math.sqrt(l2), h1: Math.sqrt(h1) };
}

/** Value (and recovered gradient) of the solution at point p, or null when p is outside the mesh. */
export function evaluateAt(s: FeSpace, sol: FeSolution, p: number[]): { element: number; value: number[]; gradient: number[]; h: number; eta: number } | null {
  const { dim, order, nodesPerElem: nb, nElems, elems, coords } = s;
  for (let k = 0; k < nElems; k++) {
    // barycentric coordinates in the straight element through the vertices
    const v = Array.from({ length: dim + 1 }, (_, a) => elems[k * nb + a]);
    const P = (a: number, r: number) => coords[3 * v[a] + r];
    const M: number[][] = [];
    for (let r = 0; r < dim; r++) M.push(Array.from({ length: dim }, (_, c) => P(c + 1, r) - P(0, r)));
    const rhs = Array.from({ length: dim }, (_, r) => (p[r] ?? 0) - P(0, r));
    const xi = solveSmall(M, rhs);
    if (!xi) continue;
    const lam = [1 - xi.reduce((a, b) => a + b, 0), ...xi];
    if (lam.some((l) => l < -1e-9)) continue;
    const b = basisAt(dim, order, lam);
    const grads = new Float64Array(nb * dim), x = new Float64Array(3);
    mapPoint(s, k, b.phi, b.dphi, grads, x);
    const nc = sol.ncomp, ngc = nc * dim;
    const value = new Array(nc).fill(0), gradient = new Array(ngc).fill(0);
    for (let a = 0; a < nb; a++) {
      const n = elems[k * nb + a];
      for (let c = 0; c < nc; c++) value[c] += sol.u[n * nc + c] * b.phi[a];
      for (let c = 0; c < ngc; c++) gradient[c] += sol.recovered[n * ngc + c] * b.phi[a];
    }
    let h = 0;
    for (let a = 0; a <= dim; a++) for (let c = a + 1; c <= dim; c++) h = Math.max(h, Math.hypot(P(a, 0) - P(c, 0), P(a, 1) - P(c, 1), dim === 3 ? P(a, 2) - P(c, 2) : 0));
    return { element: k, value, gradient, h, eta: sol.elementEta[k] };
  }
  return null;
}

function solveSmall(M: number[][], b: number[]): number[] | null {
  const n = b.length;
  if (n === 2) {
    const det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
    if (det === 0) return null;
    return [(b[0] * M[1][1] - M[0][1] * b[1]) / det, (M[0][0] * b[1] - b[0] * M[1][0]) / det];
  }
  const [a, bb, c] = M[0], [d, e, f] = M[1], [g, h, i] = M[2];
  const det = a * (e * i - f * h) - bb * (d * i - f * g) + c * (d * h - e * g);
  if (det === 0) return null;
  const col = (k: number) => { const m = M.map((r) => [...r]); for (let r = 0; r < 3; r++) m[r][k] = b[r]; return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]); };
  return [col(0) / det, col(1) / det, col(2) / det];
}

export { elasticD, strainOf };
