// Power flow on a MATPOWER network (lib/matpower.ts builds it): AC by Newton-Raphson in polar
// coordinates, and DC.
//
// Branch model and admittance matrix as MATPOWER's makeYbus (Zimmerman, Murillo-Sánchez &
// Thomas, "MATPOWER: steady-state operations, planning and analysis tools for power systems
// research and education", IEEE Trans. Power Syst. 26(1), 2011, §III; MATPOWER User's Manual
// §3.2): a π model with series admittance ys = 1/(r + jx), total line charging b split between
// the two ends, and an ideal transformer of complex ratio N = τ·e^{jθshift} at the from end
// (τ = TAP, 0 meaning 1; θshift = SHIFT in degrees):
//   [If; It] = [(ys + jb/2)/τ²,  −ys/conj(N);  −ys/N,  ys + jb/2] · [Vf; Vt],
// bus shunts (GS + jBS)/baseMVA (MW and MVAr consumed at V = 1 pu) on the diagonal.
//
// AC power flow: Newton-Raphson on the complex power mismatch in polar form, as MATPOWER's
// newtonpf (Tinney & Hart, "Power flow solution by Newton's method", IEEE Trans. PAS 86(11),
// 1967): unknowns Va at PV and PQ buses and Vm at PQ buses; equations ΔP at PV and PQ buses and
// ΔQ at PQ buses; the Jacobian from MATPOWER's dSbus_dV (polar): ∂S/∂Va = j·diag(V)·conj(diag(I)
// − Y·diag(V)), ∂S/∂Vm = diag(V)·conj(Y·diag(V/|V|)) + conj(diag(I))·diag(V/|V|). Convergence is
// quadratic near a solution; there is no stability condition, but Newton's method may diverge
// from a poor start or where no solution exists (voltage collapse), which is reported. Newton
// stops at a largest mismatch of 1e-10 pu (MATPOWER's default is 1e-8: the tighter target
// leaves the independent 1e-8 certificate a margin), after 10 iterations (MATPOWER's default),
// or when round-off stalls it below 1e-8.
// Linear solves: the Jacobian is sparse with the pattern of Ybus in 2×2 blocks; unknowns are
// numbered bus by bus in a minimum-degree order of the bus graph (Tinney's scheme 2) and the
// Jacobian is factorised by sparse LU with threshold partial pivoting (lib/sparse-lu.ts).
// Generator reactive limits (optional) as MATPOWER's runpf with ENFORCE_Q_LIMS = 1: after a
// converged solve, every generator beyond a limit (by more than 5e-6 MVAr, MATPOWER's
// opf.violation) is fixed at it, its bus becomes PQ, and the flow is solved again from the
// current voltages, until no limit is violated; when the slack bus's generator is the one fixed,
// the first remaining PV bus becomes the slack and the angles are shifted back at the end so the
// original slack keeps its angle. When every remaining PV and slack generator violates the same
// kind of limit, there is no solution within the limits (reported, as MATPOWER does).
// Results as MATPOWER's pfsoln: reactive output of the generators at PV and slack buses from
// the solved injections (shared among the generators of a bus in proportion to their reactive
// ranges), active output of the slack generator, branch flows Sf = Vf·conj(If), St = Vt·conj(It).
//
// DC power flow as MATPOWER's makeBdc and dcpf (Stott, Jardim & Alsaç, "DC power flow
// revisited", IEEE Trans. Power Syst. 24(3), 2009): branch susceptance 1/(x·τ), a phase shifter
// as an injection pair b·θshift, bus shunts GS as constant loads at V = 1, Vm = 1, angles from
// B·θ = P with the slack angle fixed at its case value; B is factorised by the same sparse LU.
import { refuse } from '../../core/errors.ts';
import type { PfNetwork } from './matpower.ts';
import { cscFromTriplets, luFactor, luSolve, minimumDegreeOrder } from './sparse-lu.ts';

const DEG = Math.PI / 180;
/** MATPOWER's opf.violation, the slack allowed on a reactive limit before it counts (MVAr) */
const Q_VIOLATION = 5e-6;
export const NEWTON = { tol: 1e-10, stallBelow: 1e-8, maxIt: 10 } as const;
/** the largest fill (off-diagonal factor entries of the bus graph) accepted before refusing */
const MAX_BUS_FILL = 2_000_000;

/** Ybus by rows, complex entries as separate real and imaginary arrays. */
export interface Ybus {
  n: number;
  rowPtr: Int32Array;
  col: Int32Array;
  re: Float64Array;
  im: Float64Array;
}

/** The four admittances of each in-service branch: [If; It] = [yff yft; ytf ytt]·[Vf; Vt]. */
export interface BranchAdmittances {
  ffRe: Float64Array; ffIm: Float64Array; ftRe: Float64Array; ftIm: Float64Array;
  tfRe: Float64Array; tfIm: Float64Array; ttRe: Float64Array; ttIm: Float64Array;
}

export function branchAdmittances(net: PfNetwork): BranchAdmittances {
  const m = net.branch.count;
  const a: BranchAdmittances = {
    ffRe: new Float64Array(m), ffIm: new Float64Array(m), ftRe: new Float64Array(m), ftIm: new Float64Array(m),
    tfRe: new Float64Array(m), tfIm: new Float64Array(m), ttRe: new Float64Array(m), ttIm: new Float64Array(m),
  };
  const { r, x, b, tap, shiftDeg } = net.branch;
  for (let k = 0; k < m; k++) {
    const z2 = r[k] * r[k] + x[k] * x[k];
    const ysRe = r[k] / z2, ysIm = -x[k] / z2;
    const t = tap[k], c = Math.cos(shiftDeg[k] * DEG), s = Math.sin(shiftDeg[k] * DEG);
    // N = t·(c + js); ytt = ys + jb/2; yff = ytt/t²; yft = −ys/conj(N); ytf = −ys/N
    a.ttRe[k] = ysRe; a.ttIm[k] = ysIm + b[k] / 2;
    a.ffRe[k] = a.ttRe[k] / (t * t); a.ffIm[k] = a.ttIm[k] / (t * t);
    // 1/conj(N) = (c + js)/t, 1/N = (c − js)/t
    a.ftRe[k] = -(ysRe * c - ysIm * s) / t; a.ftIm[k] = -(ysRe * s + ysIm * c) / t;
    a.tfRe[k] = -(ysRe * c + ysIm * s) / t; a.tfIm[k] = -(ysIm * c - ysRe * s) / t;
  }
  return a;
}

export function makeYbus(net: PfNetwork, br: BranchAdmittances = branchAdmittances(net)): Ybus {
  const n = net.nb, m = net.branch.count;
  const cnt = n + 4 * m;
  const rows = new Int32Array(cnt), cols = new Int32Array(cnt), re = new Float64Array(cnt), im = new Float64Array(cnt);
  let k = 0;
  for (let i = 0; i < n; i++) { rows[k] = i; cols[k] = i; re[k] = net.Gs[i] / net.baseMVA; im[k] = net.Bs[i] / net.baseMVA; k++; }
  const { from, to } = net.branch;
  for (let l = 0; l < m; l++) {
    const f = from[l], t = to[l];
    rows[k] = f; cols[k] = f; re[k] = br.ffRe[l]; im[k] = br.ffIm[l]; k++;
    rows[k] = f; cols[k] = t; re[k] = br.ftRe[l]; im[k] = br.ftIm[l]; k++;
    rows[k] = t; cols[k] = f; re[k] = br.tfRe[l]; im[k] = br.tfIm[l]; k++;
    rows[k] = t; cols[k] = t; re[k] = br.ttRe[l]; im[k] = br.ttIm[l]; k++;
  }
  // rows and columns swapped: the compressed "columns" are Ybus's rows
  const R = cscFromTriplets(n, cols, rows, re);
  const I = cscFromTriplets(n, cols, rows, im);
  return { n, rowPtr: R.colPtr, col: R.rowIdx, re: R.values, im: I.values };
}

/** Minimum-degree order of the buses (graph of the in-service branches); refuses a graph whose
 * factor would be far denser than any power network's. */
export function busOrder(net: PfNetwork): Int32Array {
  const n = net.nb, m = net.branch.count;
  const ptr = new Int32Array(n + 1);
  for (let l = 0; l < m; l++) { ptr[net.branch.from[l] + 1]++; ptr[net.branch.to[l] + 1]++; }
  for (let i = 0; i < n; i++) ptr[i + 1] += ptr[i];
  const at = ptr.slice(0, n), idx = new Int32Array(2 * m);
  for (let l = 0; l < m; l++) { idx[at[net.branch.from[l]]++] = net.branch.to[l]; idx[at[net.branch.to[l]]++] = net.branch.from[l]; }
  const { order, fill } = minimumDegreeOrder(n, ptr, idx, MAX_BUS_FILL);
  if (!order) {
    throw refuse('SHAPE_REFUSED', `the network's graph is too densely meshed for a sparse factorisation (more than ${MAX_BUS_FILL.toLocaleString('en')} fill entries; transmission networks have a few per bus)`);
  }
  void fill;
  return order;
}

export interface AcOptions {
  enforceQLimits?: boolean;
  /** 'case': Vm/Va of the case (Vg at PV and slack buses), as MATPOWER; 'flat': Vm = 1, Va = slack angle */
  start?: 'case' | 'flat';
  progress?: (f: number) => void;
}

export interface AcSolution {
  converged: boolean;
  iterations: number;
  /** largest mismatch of the last Newton iterate (pu), in the solver's own arithmetic */
  newtonMismatch: number;
  Vm: Float64Array;
  /** degrees */
  Va: Float64Array;
  /** bus types as given, except PV buses whose generators hit a reactive limit (1) and a moved slack (3), as MATPOWER returns them */
  busType: Int8Array;
  /** per in-service generator (net.gen order), MW and MVAr */
  Pg: Float64Array;
  Qg: Float64Array;
  /** per in-service branch (net.branch order), MW and MVAr */
  Pf: Float64Array; Qf: Float64Array; Pt: Float64Array; Qt: Float64Array;
  /** generators fixed at a reactive limit: index into net.gen, and which limit */
  qLimited: { gen: number; limit: 'max' | 'min' }[];
  /** bus index of the slack at the end (differs from net.ref when its generator hit a limit) */
  ref: number;
  /** no solution within the reactive limits (every remaining generator violates the same kind) */
  qLimitsInfeasible: boolean;
}

/** S = V·conj(Y·V) into (pRe, pIm); also returns I = Y·V in (iRe, iIm). */
function injections(Y: Ybus, vr: Float64Array, vi: Float64Array, iRe: Float64Array, iIm: Float64Array, sRe: Float64Array, sIm: Float64Array): void {
  const { n, rowPtr, col, re, im } = Y;
  for (let i = 0; i < n; i++) {
    let ar = 0, ai = 0;
    for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
      const k = col[p];
      ar += re[p] * vr[k] - im[p] * vi[k];
      ai += re[p] * vi[k] + im[p] * vr[k];
    }
    iRe[i] = ar; iIm[i] = ai;
    // V·conj(I)
    sRe[i] = vr[i] * ar + vi[i] * ai;
    sIm[i] = vi[i] * ar - vr[i] * ai;
  }
}

/**
 * One Newton-Raphson power flow (MATPOWER's newtonpf) for given bus roles and specified
 * injections; Vm and Va (radians) are the start and are overwritten with the result.
 */
function newtonPf(Y: Ybus, order: Int32Array, type: Int8Array, ref: number, sbRe: Float64Array, sbIm: Float64Array,
  Vm: Float64Array, Va: Float64Array, progress?: (f: number) => void): { converged: boolean; iterations: number; normF: number } {
  const n = Y.n;
  // unknowns bus by bus in the minimum-degree order: Va at PV and PQ buses, then Vm at PQ buses
  const vTh = new Int32Array(n).fill(-1), vVm = new Int32Array(n).fill(-1);
  let nv = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k];
    if (i === ref || type[i] === 4) continue;
    vTh[i] = nv++;
    if (type[i] === 1) vVm[i] = nv++;
  }
  const vr = new Float64Array(n), vi = new Float64Array(n);
  const iRe = new Float64Array(n), iIm = new Float64Array(n), sRe = new Float64Array(n), sIm = new Float64Array(n);
  const F = new Float64Array(nv), dx = new Float64Array(nv);
  const setV = () => { for (let i = 0; i < n; i++) { vr[i] = Vm[i] * Math.cos(Va[i]); vi[i] = Vm[i] * Math.sin(Va[i]); } };
  const mismatch = (): number => {
    injections(Y, vr, vi, iRe, iIm, sRe, sIm);
    let norm = 0;
    for (let i = 0; i < n; i++) {
      if (vTh[i] >= 0) { const v = sRe[i] - sbRe[i]; F[vTh[i]] = v; if (!(Math.abs(v) <= norm)) norm = Math.abs(v); }
      if (vVm[i] >= 0) { const v = sIm[i] - sbIm[i]; F[vVm[i]] = v; if (!(Math.abs(v) <= norm)) norm = Math.abs(v); }
    }
    return norm;
  };
  setV();
  let normF = mismatch();
  if (nv === 0 || normF < NEWTON.tol) return { converged: true, iterations: 0, normF };
  // Jacobian triplets: at most 4 entries per Ybus entry
  const nnzY = Y.rowPtr[n];
  const jr = new Int32Array(4 * nnzY), jc = new Int32Array(4 * nnzY), jv = new Float64Array(4 * nnzY);
  let it = 0, prev = Infinity;
  while (it < NEWTON.maxIt) {
    it++;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const rp = vTh[i], rq = vVm[i];
      if (rp < 0) continue;
      const ur = vr[i], ui = vi[i];
      const vmi = Vm[i];
      for (let p = Y.rowPtr[i]; p < Y.rowPtr[i + 1]; p++) {
        const k = Y.col[p];
        const cp = vTh[k], cq = vVm[k];
        if (cp < 0 && cq < 0) continue;
        // W = Y_ik·V_k; V_i·conj(W) = x + j·y
        const a = Y.re[p] * vr[k] - Y.im[p] * vi[k], b = Y.re[p] * vi[k] + Y.im[p] * vr[k];
        const x = ur * a + ui * b, y = ui * a - ur * b;
        let dPdTh: number, dQdTh: number;
        if (k === i) {
          // j·V_i·conj(I_i − Y_ii·V_i)
          const cr = iRe[i] - a, ci = iIm[i] - b;
          const xx = ur * cr + ui * ci, yy = ui * cr - ur * ci;
          dPdTh = -yy; dQdTh = xx;
        } else { dPdTh = y; dQdTh = -x; }
        if (cp >= 0) {
          jr[c] = rp; jc[c] = cp; jv[c] = dPdTh; c++;
          if (rq >= 0) { jr[c] = rq; jc[c] = cp; jv[c] = dQdTh; c++; }
        }
        if (cq >= 0) {
          const vmk = Vm[k];
          let dPdVm = x / vmk, dQdVm = y / vmk;
          if (k === i) {
            // + conj(I_i)·V_i/|V_i|
            dPdVm += (iRe[i] * ur + iIm[i] * ui) / vmi;
            dQdVm += (iRe[i] * ui - iIm[i] * ur) / vmi;
          }
          jr[c] = rp; jc[c] = cq; jv[c] = dPdVm; c++;
          if (rq >= 0) { jr[c] = rq; jc[c] = cq; jv[c] = dQdVm; c++; }
        }
      }
    }
    const J = cscFromTriplets(nv, jr, jc, jv, c);
    const lu = luFactor(J, null, 0.1);
    if (!lu) throw refuse('UNSTABLE', `the power-flow Jacobian is singular at Newton iteration ${it} (voltage collapse, or no solution for this loading)`);
    luSolve(lu, F, dx);
    for (let i = 0; i < n; i++) {
      if (vTh[i] >= 0) Va[i] -= dx[vTh[i]];
      if (vVm[i] >= 0) Vm[i] -= dx[vVm[i]];
    }
    // back through the complex voltage, as newtonpf: a negative Vm becomes an angle of π
    for (let i = 0; i < n; i++) {
      const r = Vm[i] * Math.cos(Va[i]), s = Vm[i] * Math.sin(Va[i]);
      vr[i] = r; vi[i] = s;
      Vm[i] = Math.hypot(r, s); Va[i] = Math.atan2(s, r);
    }
    normF = mismatch();
    progress?.(it / NEWTON.maxIt);
    if (!Number.isFinite(normF)) throw refuse('UNSTABLE', `Newton-Raphson diverged at iteration ${it} (the mismatch is no longer finite): no power-flow solution was found from this start`);
    if (normF < NEWTON.tol) return { converged: true, iterations: it, normF };
    if (normF < NEWTON.stallBelow && normF > 0.1 * prev) return { converged: true, iterations: it, normF };
    prev = normF;
  }
  return { converged: normF < NEWTON.stallBelow, iterations: it, normF };
}

/** AC power flow, with optional reactive limits (see the file comment). */
export function solveAc(net: PfNetwork, opts: AcOptions = {}): AcSolution {
  const n = net.nb, ng = net.gen.count, base = net.baseMVA;
  const br = branchAdmittances(net);
  const Y = makeYbus(net, br);
  const order = busOrder(net);
  const type = Int8Array.from(net.busType);
  const reportType = Int8Array.from(net.busType);
  const Pd = Float64Array.from(net.Pd), Qd = Float64Array.from(net.Qd);
  const Pg = Float64Array.from(net.gen.Pg), Qg = Float64Array.from(net.gen.Qg);
  const on = new Uint8Array(ng).fill(1);
  const Vm = Float64Array.from(net.Vm0), Va = new Float64Array(n);
  for (let i = 0; i < n; i++) Va[i] = net.Va0[i] * DEG;
  if (opts.start === 'flat') for (let i = 0; i < n; i++) { Vm[i] = 1; Va[i] = net.Va0[net.ref] * DEG; }
  const ref0 = net.ref, Varef0 = Va[ref0];
  let ref = net.ref;
  const qLimited: { gen: number; limit: 'max' | 'min' }[] = [];
  const fixedQg = new Float64Array(ng);
  let iterations = 0, converged = false, normF = Infinity, infeasible = false;
  const sbRe = new Float64Array(n), sbIm = new Float64Array(n);
  const hasGen = new Uint8Array(n);
  for (let round = 0; ; round++) {
    // bus roles as MATPOWER's bustypes: a PV bus with no generator on is solved as PQ
    hasGen.fill(0);
    for (let g = 0; g < ng; g++) if (on[g]) hasGen[net.gen.bus[g]] = 1;
    for (let i = 0; i < n; i++) if (type[i] === 2 && !hasGen[i]) type[i] = 1;
    // start: voltage setpoints at voltage-controlled buses (the last generator listed wins, as in MATPOWER)
    for (let g = 0; g < ng; g++) {
      const i = net.gen.bus[g];
      if (on[g] && (type[i] === 2 || type[i] === 3)) Vm[i] = net.gen.Vg[g];
    }
    // specified injections Sbus = Cg·Sg − Sd (pu)
    for (let i = 0; i < n; i++) { sbRe[i] = -Pd[i] / base; sbIm[i] = -Qd[i] / base; }
    for (let g = 0; g < ng; g++) if (on[g]) { sbRe[net.gen.bus[g]] += Pg[g] / base; sbIm[net.gen.bus[g]] += Qg[g] / base; }
    const r = newtonPf(Y, order, type, ref, sbRe, sbIm, Vm, Va, opts.progress);
    iterations += r.iterations; converged = r.converged; normF = r.normF;
    generatorOutputs(net, Y, type, ref, on, Pd, Qd, Pg, Qg, Vm, Va);
    if (!opts.enforceQLimits || !converged) break;
    const mx: number[] = [], mn: number[] = [];
    for (let g = 0; g < ng; g++) {
      if (!on[g]) continue;
      if (Qg[g] > net.gen.Qmax[g] + Q_VIOLATION) mx.push(g);
      else if (Qg[g] < net.gen.Qmin[g] - Q_VIOLATION) mn.push(g);
    }
    if (mx.length === 0 && mn.length === 0) break;
    // no solution within the limits when every remaining PV/slack generator violates the same kind of limit
    const remaining: number[] = [];
    for (let g = 0; g < ng; g++) if (on[g] && (type[net.gen.bus[g]] === 2 || type[net.gen.bus[g]] === 3)) remaining.push(g);
    const infeas = [...mx, ...mn].sort((a, b) => a - b);
    if (infeas.length === remaining.length && infeas.every((g, k) => g === remaining[k]) && (mx.length === 0 || mn.length === 0)) {
      infeasible = true;
      break;
    }
    for (const g of mx) { fixedQg[g] = net.gen.Qmax[g]; qLimited.push({ gen: g, limit: 'max' }); }
    for (const g of mn) { fixedQg[g] = net.gen.Qmin[g]; qLimited.push({ gen: g, limit: 'min' }); }
    for (const g of [...mx, ...mn]) {
      Qg[g] = fixedQg[g];
      on[g] = 0;
      const i = net.gen.bus[g];
      Pd[i] -= Pg[g]; Qd[i] -= Qg[g];
      type[i] = 1; reportType[i] = 1;
    }
    if (type[ref] !== 3) {
      // the slack's generator is at a limit: the first PV bus with a generator on becomes the slack
      hasGen.fill(0);
      for (let g = 0; g < ng; g++) if (on[g]) hasGen[net.gen.bus[g]] = 1;
      let next = -1;
      for (let i = 0; i < n && next < 0; i++) if (type[i] === 2 && hasGen[i]) next = i;
      if (next < 0) { infeasible = true; break; }
      ref = next; type[ref] = 3; reportType[ref] = 3;
    }
  }
  // generators at a limit come back on at their limit, their bus loads restored
  for (const { gen: g } of qLimited) {
    const i = net.gen.bus[g];
    on[g] = 1; Qg[g] = fixedQg[g];
    Pd[i] += Pg[g]; Qd[i] += Qg[g];
  }
  if (ref !== ref0) { const shift = Va[ref0] - Varef0; for (let i = 0; i < n; i++) if (type[i] !== 4) Va[i] -= shift; }
  const flows = branchFlows(net, br, Vm, Va);
  const VaDeg = new Float64Array(n);
  for (let i = 0; i < n; i++) VaDeg[i] = type[i] === 4 ? net.Va0[i] : Va[i] / DEG;
  VaDeg[ref0] = net.Va0[ref0]; // the original slack's angle, exactly as given (radians and back would round it)
  for (let i = 0; i < n; i++) if (type[i] === 4) Vm[i] = net.Vm0[i];
  return { converged, iterations, newtonMismatch: normF, Vm, Va: VaDeg, busType: reportType, Pg, Qg, ...flows, qLimited, ref, qLimitsInfeasible: infeasible };
}

/**
 * MATPOWER's pfsoln for the generators: Qg of the generators on at PV and slack buses from the
 * solved injection (plus the bus's own reactive load), shared in proportion to their reactive
 * ranges (infinite limits replaced by a finite proxy, equal shares where a bus's range is zero);
 * Pg of the first generator at the slack bus.
 */
function generatorOutputs(net: PfNetwork, Y: Ybus, type: Int8Array, ref: number, on: Uint8Array,
  Pd: Float64Array, Qd: Float64Array, Pg: Float64Array, Qg: Float64Array, Vm: Float64Array, Va: Float64Array): void {
  const n = net.nb, ng = net.gen.count, base = net.baseMVA;
  const vr = new Float64Array(n), vi = new Float64Array(n);
  for (let i = 0; i < n; i++) { vr[i] = Vm[i] * Math.cos(Va[i]); vi[i] = Vm[i] * Math.sin(Va[i]); }
  const iRe = new Float64Array(n), iIm = new Float64Array(n), sRe = new Float64Array(n), sIm = new Float64Array(n);
  injections(Y, vr, vi, iRe, iIm, sRe, sIm);
  const gens: number[] = [];
  const count = new Int32Array(n);
  for (let g = 0; g < ng; g++) {
    const i = net.gen.bus[g];
    if (on[g] && type[i] !== 1) { gens.push(g); count[i]++; }
  }
  // equal shares first
  for (const g of gens) { const i = net.gen.bus[g]; Qg[g] = (sIm[i] * base + Qd[i]) / count[i]; }
  const multi = gens.filter((g) => count[net.gen.bus[g]] > 1);
  if (multi.length) {
    const M = new Float64Array(n), qTot = new Float64Array(n), qMinTot = new Float64Array(n), qMaxTot = new Float64Array(n);
    for (const g of multi) {
      const i = net.gen.bus[g];
      let m = Math.abs(Qg[g]);
      if (Number.isFinite(net.gen.Qmax[g])) m += Math.abs(net.gen.Qmax[g]);
      if (Number.isFinite(net.gen.Qmin[g])) m += Math.abs(net.gen.Qmin[g]);
      M[i] += m;
    }
    const lim = (v: number, i: number) => (v === Infinity ? M[i] : v === -Infinity ? -M[i] : v);
    for (const g of multi) {
      const i = net.gen.bus[g];
      qTot[i] += Qg[g]; qMinTot[i] += lim(net.gen.Qmin[g], i); qMaxTot[i] += lim(net.gen.Qmax[g], i);
    }
    for (const g of multi) {
      const i = net.gen.bus[g];
      const qmin = lim(net.gen.Qmin[g], i), qmax = lim(net.gen.Qmax[g], i);
      if (qMinTot[i] === qMaxTot[i]) Qg[g] = qmin + (qTot[i] - qMinTot[i]) / count[i];
      else Qg[g] = qmin + ((qTot[i] - qMinTot[i]) / (qMaxTot[i] - qMinTot[i] + Number.EPSILON)) * (qmax - qmin);
    }
  }
  const atRef = gens.filter((g) => net.gen.bus[g] === ref);
  if (atRef.length) {
    let p = sRe[ref] * base + Pd[ref];
    for (let k = 1; k < atRef.length; k++) p -= Pg[atRef[k]];
    Pg[atRef[0]] = p;
  }
}

/** Branch flows Sf = Vf·conj(If), St = Vt·conj(It) in MW and MVAr (Va in radians). */
function branchFlows(net: PfNetwork, br: BranchAdmittances, Vm: Float64Array, Va: Float64Array) {
  const m = net.branch.count, base = net.baseMVA;
  const Pf = new Float64Array(m), Qf = new Float64Array(m), Pt = new Float64Array(m), Qt = new Float64Array(m);
  for (let l = 0; l < m; l++) {
    const f = net.branch.from[l], t = net.branch.to[l];
    const fr = Vm[f] * Math.cos(Va[f]), fi = Vm[f] * Math.sin(Va[f]);
    const tr = Vm[t] * Math.cos(Va[t]), ti = Vm[t] * Math.sin(Va[t]);
    const ifr = br.ffRe[l] * fr - br.ffIm[l] * fi + br.ftRe[l] * tr - br.ftIm[l] * ti;
    const ifi = br.ffRe[l] * fi + br.ffIm[l] * fr + br.ftRe[l] * ti + br.ftIm[l] * tr;
    const itr = br.tfRe[l] * fr - br.tfIm[l] * fi + br.ttRe[l] * tr - br.ttIm[l] * ti;
    const iti = br.tfRe[l] * fi + br.tfIm[l] * fr + br.ttRe[l] * ti + br.ttIm[l] * tr;
    Pf[l] = (fr * ifr + fi * ifi) * base; Qf[l] = (fi * ifr - fr * ifi) * base;
    Pt[l] = (tr * itr + ti * iti) * base; Qt[l] = (ti * itr - tr * iti) * base;
  }
  return { Pf, Qf, Pt, Qt };
}

export interface DcSolution {
  /** degrees */
  Va: Float64Array;
  /** per in-service generator, MW (only the slack's first generator changes) */
  Pg: Float64Array;
  /** per in-service branch, MW (Pt = −Pf) */
  Pf: Float64Array;
}

/** DC power flow (see the file comment). */
export function solveDc(net: PfNetwork): DcSolution {
  const n = net.nb, m = net.branch.count, base = net.baseMVA, ref = net.ref;
  const bl = new Float64Array(m), pfinj = new Float64Array(m);
  for (let l = 0; l < m; l++) {
    if (net.branch.x[l] === 0) {
      throw refuse('INVALID_INPUT', `branch ${net.busId[net.branch.from[l]]}-${net.busId[net.branch.to[l]]} (row ${net.branch.row[l] + 1} of the branch table) has x = 0, which a DC power flow cannot model`, { issues: [{ path: 'method', message: 'a branch with zero reactance' }] });
    }
    bl[l] = 1 / (net.branch.x[l] * net.branch.tap[l]);
    pfinj[l] = -bl[l] * net.branch.shiftDeg[l] * DEG;
  }
  // Pbus = Cg·Pg − Pd − Gs − Cftᵀ·Pfinj (pu)
  const P = new Float64Array(n);
  for (let i = 0; i < n; i++) P[i] = -(net.Pd[i] + net.Gs[i]) / base;
  for (let g = 0; g < net.gen.count; g++) P[net.gen.bus[g]] += net.gen.Pg[g] / base;
  for (let l = 0; l < m; l++) { P[net.branch.from[l]] -= pfinj[l]; P[net.branch.to[l]] += pfinj[l]; }
  const Va = new Float64Array(n);
  for (let i = 0; i < n; i++) Va[i] = net.Va0[i] * DEG;
  const order = busOrder(net);
  const idx = new Int32Array(n).fill(-1);
  let nv = 0;
  for (let k = 0; k < n; k++) { const i = order[k]; if (i !== ref && net.busType[i] !== 4) idx[i] = nv++; }
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const rhs = new Float64Array(nv);
  for (let i = 0; i < n; i++) if (idx[i] >= 0) rhs[idx[i]] = P[i];
  for (let l = 0; l < m; l++) {
    const f = net.branch.from[l], t = net.branch.to[l], b = bl[l];
    const a = idx[f], c = idx[t];
    if (a >= 0) { rows.push(a); cols.push(a); vals.push(b); }
    if (c >= 0) { rows.push(c); cols.push(c); vals.push(b); }
    if (a >= 0 && c >= 0) { rows.push(a, c); cols.push(c, a); vals.push(-b, -b); }
    // the slack's fixed angle moves to the right-hand side
    if (a >= 0 && t === ref) rhs[a] += b * Va[ref];
    if (c >= 0 && f === ref) rhs[c] += b * Va[ref];
  }
  if (nv > 0) {
    const lu = luFactor(cscFromTriplets(nv, rows, cols, vals), null, 0.1);
    if (!lu) throw refuse('UNSTABLE', 'the DC susceptance matrix is singular (reactances that cancel around a loop)');
    const th = luSolve(lu, rhs);
    for (let i = 0; i < n; i++) if (idx[i] >= 0) Va[i] = th[idx[i]];
  }
  const Pf = new Float64Array(m);
  for (let l = 0; l < m; l++) Pf[l] = (bl[l] * (Va[net.branch.from[l]] - Va[net.branch.to[l]]) + pfinj[l]) * base;
  // the slack generator takes the balance: Pg += (B(ref,:)·Va − Pbus(ref))·baseMVA
  let bva = 0;
  for (let l = 0; l < m; l++) {
    const f = net.branch.from[l], t = net.branch.to[l];
    if (f === ref) bva += bl[l] * (Va[f] - Va[t]);
    if (t === ref) bva += bl[l] * (Va[t] - Va[f]);
  }
  const Pg = Float64Array.from(net.gen.Pg);
  for (let g = 0; g < net.gen.count; g++) {
    if (net.gen.bus[g] === ref) { Pg[g] += (bva - P[ref]) * base; break; }
  }
  const VaDeg = new Float64Array(n);
  for (let i = 0; i < n; i++) VaDeg[i] = Va[i] / DEG;
  VaDeg[ref] = net.Va0[ref];
  return { Va: VaDeg, Pg, Pf };
}
