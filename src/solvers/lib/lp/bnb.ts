// Branch and bound for mixed-integer linear programs (Land & Doig, "An automatic method of
// solving discrete programming problems", Econometrica 28(3), 1960; Dakin, "A tree-search
// algorithm for mixed integer programming problems", Computer J. 8, 1965, for branching on one
// variable's bounds). Each node is the LP relaxation with tightened column bounds, solved by the
// dual simplex warm-started from its parent's optimal basis (a bound change keeps the basis dual
// feasible, so the dual simplex is the natural re-solver: Achterberg, "Constraint Integer
// Programming", PhD thesis, TU Berlin 2007, §7). Node selection: depth-first plunging into the
// child on the side of rounding, otherwise the open node of best bound ("best-first with
// plunging", Achterberg §6). Branching variable: the most fractional one. Search stops when
// (incumbent − bound)/max(|incumbent|, 1) ≤ mipGap, at the deadline, or at the node limit.
import { solvePrepared, type PreparedLp, type LpSolution } from './solve.ts';
import type { SimplexBasis } from './simplex.ts';

export interface MilpResult {
  status: 'optimal' | 'infeasible' | 'unbounded' | 'time_limit';
  x: Float64Array | null;
  objective: number;
  bound: number;
  nodes: number;
  iterations: number;
  /** the root relaxation (its certificate when the relaxation is infeasible or unbounded) */
  root: LpSolution;
}

interface Node { lo: Float64Array; up: Float64Array; basis: SimplexBasis | null; bound: number; depth: number }

const INT_TOL = 1e-6;

export function branchAndBound(prep: PreparedLp, opts: { deadline?: number; mipGap: number; maxNodes?: number; seed?: number; progress?: (f: number) => void }): MilpResult {
  const model = prep.model;
  const n = model.nCols;
  const isInt = model.integer;
  const maxNodes = opts.maxNodes ?? 200_000;
  // integer columns: bounds rounded inward
  const lo0 = Float64Array.from(model.colLo), up0 = Float64Array.from(model.colUp);
  for (let j = 0; j < n; j++) if (isInt[j]) { lo0[j] = Math.ceil(lo0[j] - INT_TOL); up0[j] = Math.floor(up0[j] + INT_TOL); }
  const root = solvePrepared(prep, { colLo: lo0, colUp: up0, deadline: opts.deadline, seed: opts.seed, cleanup: false });
  let iterations = root.iterations;
  if (root.status !== 'optimal') {
    return { status: root.status === 'time_limit' ? 'time_limit' : root.status, x: null, objective: NaN, bound: root.status === 'infeasible' ? Infinity : -Infinity, nodes: 1, iterations, root };
  }
  let incumbent: Float64Array | null = null, incObj = Infinity;
  let nodes = 0;
  const open: Node[] = [];
  let plunge: Node | null = { lo: lo0, up: up0, basis: root.basis, bound: root.objective, depth: 0 };
  let rootDone = false;
  let timedOut = false;
  let prunedMin = Infinity;
  const gapOf = (bound: number) => (incObj - bound) / Math.max(Math.abs(incObj), 1);
  const bestOpen = () => { let b = Infinity; for (const nd of open) if (nd.bound < b) b = nd.bound; return b; };
  for (;;) {
    let node: Node | null = plunge;
    plunge = null;
    if (!node) {
      if (!open.length) break;
      let k = 0;
      for (let i = 1; i < open.length; i++) if (open[i].bound < open[k].bound) k = i;
      node = open[k]; open[k] = open[open.length - 1]; open.pop();
    }
    if (node.bound >= incObj - Math.max(Math.abs(incObj), 1) * opts.mipGap) { prunedMin = Math.min(prunedMin, node.bound); continue; }
    if (nodes >= maxNodes || (opts.deadline !== undefined && performance.now() > opts.deadline)) { open.push(node); timedOut = true; break; }
    nodes++;
    if (opts.progress && (nodes & 63) === 0) opts.progress(Math.min(0.9, nodes / maxNodes));
    const sol = rootDone ? solvePrepared(prep, { colLo: node.lo, colUp: node.up, basis: node.basis, deadline: opts.deadline, seed: opts.seed, cleanup: false }) : root;
    rootDone = true;
    iterations += rootDone && sol !== root ? sol.iterations : 0;
    if (sol.status === 'time_limit') { open.push(node); timedOut = true; break; }
    if (sol.status !== 'optimal') continue; // infeasible (or unbounded below an integer fixing: treated as pruned)
    if (sol.objective >= incObj - Math.max(Math.abs(incObj), 1) * opts.mipGap) { prunedMin = Math.min(prunedMin, sol.objective); continue; }
    let branch = -1, bestFrac = 0;
    for (let j = 0; j < n; j++) {
      if (!isInt[j]) continue;
      const v = sol.x[j], f = v - Math.floor(v);
      const dist = Math.min(f, 1 - f);
      if (dist > INT_TOL && dist > bestFrac) { bestFrac = dist; branch = j; }
    }
    if (branch < 0) {
      incumbent = Float64Array.from(sol.x);
      for (let j = 0; j < n; j++) if (isInt[j]) incumbent[j] = Math.round(incumbent[j]);
      incObj = sol.objective;
      continue;
    }
    const v = sol.x[branch];
    // reduced-cost fixing (Nemhauser & Wolsey, "Integer and Combinatorial Optimization", 1988,
    // §II.5.1 / Achterberg 2007 §7.7): a nonbasic integer column at a bound whose reduced cost
    // would push the bound past the incumbent cannot move further than ⌊(z* − z_LP)/|d_j|⌋
    const lo = Float64Array.from(node.lo), up = Float64Array.from(node.up);
    if (incObj < Infinity) {
      const room = incObj - sol.objective;
      for (let j = 0; j < n; j++) {
        if (!isInt[j] || lo[j] === up[j]) continue;
        const dj = sol.d[j];
        if (dj > 1e-9 && Math.abs(sol.x[j] - lo[j]) <= INT_TOL) up[j] = Math.min(up[j], lo[j] + Math.floor(room / dj + 1e-9));
        else if (dj < -1e-9 && Math.abs(sol.x[j] - up[j]) <= INT_TOL) lo[j] = Math.max(lo[j], up[j] - Math.floor(room / -dj + 1e-9));
      }
    }
    const downUp = Float64Array.from(up); downUp[branch] = Math.floor(v);
    const upLo = Float64Array.from(lo); upLo[branch] = Math.ceil(v);
    const down: Node = { lo, up: downUp, basis: sol.basis, bound: sol.objective, depth: node.depth + 1 };
    const upN: Node = { lo: upLo, up, basis: sol.basis, bound: sol.objective, depth: node.depth + 1 };
    if (v - Math.floor(v) > 0.5) { plunge = upN; open.push(down); } else { plunge = down; open.push(upN); }
  }
  const bound = Math.min(bestOpen(), plunge ? (plunge as Node).bound : Infinity, prunedMin, incObj);
  if (!incumbent) return { status: timedOut ? 'time_limit' : 'infeasible', x: null, objective: NaN, bound: timedOut ? bound : Infinity, nodes, iterations, root };
  const status = timedOut && gapOf(bound) > opts.mipGap ? 'time_limit' : 'optimal';
  return { status, x: incumbent, objective: incObj, bound, nodes, iterations, root };
}
