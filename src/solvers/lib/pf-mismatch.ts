// The power-flow certificate: the largest active and reactive power mismatch at every bus,
// recomputed from the case tables at the voltages a solver returned, by a route that shares no
// code with lib/powerflow.ts (no admittance matrix, no complex arithmetic): each in-service
// branch's end flows from the real polar branch equations of the π model with an ideal
// transformer of ratio τ·e^{jφ} at the from end (series admittance g + jbs = 1/(r + jx), charging
// bc; MATPOWER User's Manual §3.2; e.g. Glover, Sarma & Overbye, "Power System Analysis and
// Design", 5th ed., §6.4 and §5.5 for the transformer model):
//   Pf = g·Vf²/τ² − (Vf·Vt/τ)·(g·cos δf + bs·sin δf),  Qf = −(bs + bc/2)·Vf²/τ² − (Vf·Vt/τ)·(g·sin δf − bs·cos δf)
//   Pt = g·Vt²    − (Vf·Vt/τ)·(g·cos δt + bs·sin δt),  Qt = −(bs + bc/2)·Vt²    − (Vf·Vt/τ)·(g·sin δt − bs·cos δt)
// with δf = θf − θt − φ and δt = θt − θf + φ; then at each bus
//   ΔP = Σ Pg − Pd − Gs·Vm² − Σ (branch flows leaving the bus),  ΔQ = Σ Qg − Qd + Bs·Vm² − Σ (…)
// in pu of baseMVA, with the generator outputs the solver reported. The DC variant recomputes
// each branch flow as (θf − θt − φ)/(x·τ) and checks ΔP = Σ Pg − Pd − Gs − Σ flows.
// Alongside the mismatch it checks that the reported branch flows are these flows, that every
// generator not at a slack bus kept the case's Pg, and that PV and slack buses hold a
// generator's voltage setpoint (AC), and how far any Qg lies outside its limits (AC). The tables are read here from their MATPOWER columns
// (status, isolated buses, tap 0 meaning 1), independently of lib/matpower.ts's validation.
import type { CaseTables } from './matpower.ts';

const RAD = Math.PI / 180;

/** What a solver returned, one entry per row of each table (out-of-service rows included). */
export interface ReportedFlow {
  buses: { id: number; type: number; Vm: number; Va: number }[];
  generators: { Pg: number; Qg: number }[];
  branches: { Pf: number; Qf: number; Pt: number; Qt: number }[];
  /** ids of the buses whose generators may have changed Pg (default: the buses reported as type 3;
   * a slack moved by reactive limits leaves two) */
  slackBuses?: number[];
}

export interface MismatchReport {
  /** largest |ΔP| and |ΔQ| over the buses (pu) */
  P: number;
  Q: number;
  /** bus id of the largest mismatch */
  worstBus: number;
  /** largest difference between a reported branch flow and the recomputed one (pu) */
  flowError: number;
  /** largest change of Pg at a generator not at a slack bus (MW) */
  dispatchError: number;
  /** largest |Vm − Vg| at a PV or slack bus (pu; AC only) */
  setpointError: number;
  /** largest excess of a reported Qg over its generator's [QMIN, QMAX] (MVAr; AC only) */
  qLimitViolation: number;
}

interface Active {
  base: number;
  row: Map<number, number>;
  live: boolean[];
  slack: Set<number>;
}

function active(t: CaseTables, sol: ReportedFlow): Active {
  const row = new Map<number, number>();
  t.bus.forEach((r, i) => row.set(r[0], i));
  // a bus takes part unless it is isolated (type 4); reported types tell where the slack ended up
  const live = t.bus.map((r) => r[1] !== 4);
  const slack = new Set<number>();
  if (sol.slackBuses) for (const id of sol.slackBuses) slack.add(row.get(id)!);
  else sol.buses.forEach((b, i) => { if (b.type === 3) slack.add(i); });
  return { base: t.baseMVA, row, live, slack };
}

const branchOn = (t: CaseTables, a: Active, r: number[]) => r[10] === 1 && a.live[a.row.get(r[0])!] && a.live[a.row.get(r[1])!];
const genOn = (a: Active, r: number[]) => r[7] === 1 && a.live[a.row.get(r[0])!];

function dispatchError(t: CaseTables, a: Active, sol: ReportedFlow): number {
  let worst = 0;
  t.gen.forEach((r, g) => {
    if (!genOn(a, r) || a.slack.has(a.row.get(r[0])!)) return;
    worst = Math.max(worst, Math.abs(sol.generators[g].Pg - r[1]));
  });
  return worst;
}

/** AC certificate (see the file comment). */
export function acMismatch(t: CaseTables, sol: ReportedFlow): MismatchReport {
  const a = active(t, sol);
  const nb = t.bus.length;
  const Vm = sol.buses.map((b) => b.Vm), th = sol.buses.map((b) => b.Va * RAD);
  // balance in MW / MVAr: generation − load − shunt − flows out
  const dP = new Float64Array(nb), dQ = new Float64Array(nb);
  t.bus.forEach((r, i) => {
    dP[i] = -r[2] - r[4] * Vm[i] * Vm[i];
    dQ[i] = -r[3] + r[5] * Vm[i] * Vm[i];
  });
  t.gen.forEach((r, g) => {
    if (!genOn(a, r)) return;
    const i = a.row.get(r[0])!;
    dP[i] += sol.generators[g].Pg; dQ[i] += sol.generators[g].Qg;
  });
  let flowError = 0;
  t.branch.forEach((r, l) => {
    if (!branchOn(t, a, r)) return;
    const f = a.row.get(r[0])!, to = a.row.get(r[1])!;
    const z2 = r[2] * r[2] + r[3] * r[3];
    const g = r[2] / z2, bs = -r[3] / z2, bc = r[4];
    const tau = r[8] === 0 ? 1 : r[8], phi = r[9] * RAD;
    const vf = Vm[f], vt = Vm[to];
    const df = th[f] - th[to] - phi, dt = th[to] - th[f] + phi;
    const k = (vf * vt) / tau;
    const pf = (g * vf * vf) / (tau * tau) - k * (g * Math.cos(df) + bs * Math.sin(df));
    const qf = (-(bs + bc / 2) * vf * vf) / (tau * tau) - k * (g * Math.sin(df) - bs * Math.cos(df));
    const pt = g * vt * vt - k * (g * Math.cos(dt) + bs * Math.sin(dt));
    const qt = -(bs + bc / 2) * vt * vt - k * (g * Math.sin(dt) - bs * Math.cos(dt));
    dP[f] -= pf * a.base; dQ[f] -= qf * a.base;
    dP[to] -= pt * a.base; dQ[to] -= qt * a.base;
    const rep = sol.branches[l];
    flowError = Math.max(flowError, Math.abs(rep.Pf / a.base - pf), Math.abs(rep.Qf / a.base - qf), Math.abs(rep.Pt / a.base - pt), Math.abs(rep.Qt / a.base - qt));
  });
  let P = 0, Q = 0, worst = 0, worstBus = t.bus[0]?.[0] ?? 0;
  for (let i = 0; i < nb; i++) {
    if (!a.live[i]) continue;
    const p = Math.abs(dP[i]) / a.base, q = Math.abs(dQ[i]) / a.base;
    // the slack bus's balance holds by construction of its Pg and Qg; PV buses' Q by Qg: all are checked
    if (!(p <= P)) P = p;
    if (!(q <= Q)) Q = q;
    if (!(Math.max(p, q) <= worst)) { worst = Math.max(p, q); worstBus = t.bus[i][0]; }
  }
  // voltage setpoints: a PV or slack bus holds the setpoint of one of its in-service generators
  let setpointError = 0;
  const best = new Map<number, number>();
  t.gen.forEach((r) => {
    if (!genOn(a, r)) return;
    const i = a.row.get(r[0])!;
    const type = sol.buses[i].type;
    if (type !== 2 && type !== 3) return;
    const e = Math.abs(Vm[i] - r[5]);
    best.set(i, Math.min(best.get(i) ?? Infinity, e));
  });
  for (const e of best.values()) setpointError = Math.max(setpointError, e);
  let qLimitViolation = 0;
  t.gen.forEach((r, g) => {
    if (!genOn(a, r)) return;
    const q = sol.generators[g].Qg;
    qLimitViolation = Math.max(qLimitViolation, q - r[3], r[4] - q);
  });
  return { P, Q, worstBus, flowError, dispatchError: dispatchError(t, a, sol), setpointError, qLimitViolation };
}

/** DC certificate (see the file comment); Q is 0 (a DC power flow has no reactive equations). */
export function dcMismatch(t: CaseTables, sol: ReportedFlow): MismatchReport {
  const a = active(t, sol);
  const nb = t.bus.length;
  const th = sol.buses.map((b) => b.Va * RAD);
  const dP = new Float64Array(nb);
  t.bus.forEach((r, i) => { dP[i] = -r[2] - r[4]; });
  t.gen.forEach((r, g) => { if (genOn(a, r)) dP[a.row.get(r[0])!] += sol.generators[g].Pg; });
  let flowError = 0;
  t.branch.forEach((r, l) => {
    if (!branchOn(t, a, r)) return;
    const f = a.row.get(r[0])!, to = a.row.get(r[1])!;
    const tau = r[8] === 0 ? 1 : r[8];
    const p = (th[f] - th[to] - r[9] * RAD) / (r[3] * tau);
    dP[f] -= p * a.base; dP[to] += p * a.base;
    const rep = sol.branches[l];
    flowError = Math.max(flowError, Math.abs(rep.Pf / a.base - p), Math.abs(rep.Pt / a.base + p), Math.abs(rep.Qf), Math.abs(rep.Qt));
  });
  let P = 0, worstBus = t.bus[0]?.[0] ?? 0;
  for (let i = 0; i < nb; i++) {
    if (!a.live[i]) continue;
    const p = Math.abs(dP[i]) / a.base;
    if (!(p <= P)) { P = p; worstBus = t.bus[i][0]; }
  }
  return { P, Q: 0, worstBus, flowError, dispatchError: dispatchError(t, a, sol), setpointError: 0, qLimitViolation: 0 };
}
