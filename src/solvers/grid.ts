// grid: linear DC power flow on an N-bus network.
//
// Model (Wood, Wollenberg & Sheblé, "Power Generation, Operation and Control", 3rd ed., §6.12;
// Stott, Jardim & Alsaç, "DC power flow revisited", IEEE Trans. Power Syst. 24(3), 2009):
// lossless lines, flat voltage magnitudes, small angle differences, so the flow on line (i, j)
// is f_ij = (θ_i − θ_j)/x_ij and the bus balance is B·θ = P with the nodal susceptance matrix
// B_ii = Σ_j 1/x_ij, B_ij = −1/x_ij. B is singular (θ is defined up to a constant); bus 0 is
// the slack, θ_0 = 0, and its row and column are removed. The reduced matrix is symmetric
// positive definite for a connected network (a ring is connected), so it is factorised by dense
// Cholesky (lib/dense.ts; Golub & Van Loan, "Matrix Computations", 4th ed., Alg. 4.2.1), followed by two
// steps of iterative refinement. No stability condition: a direct solve of an SPD system.
// Network: a ring 0-1-…-(N−1)-0 plus `chords` distinct random chords between non-adjacent buses;
// reactance of each line = reactance·(0.5 + u), u uniform in [0, 1) (mean `reactance`).
// Injections: uniform in [−1, 1] pu at every bus, shifted to sum to zero (the slack absorbs it).
// Reference: Kirchhoff's current law at every bus, |P_i − Σ_j f_ij|, computed from the line flows
// (not from B), must be at most 1e-9 pu.
//
// A given network (`case`: MATPOWER case text, or `network`: the same tables as JSON) is solved
// by AC power flow (Newton-Raphson in polar form, MATPOWER's newtonpf and runpf, optional
// generator reactive limits) or DC power flow (MATPOWER's makeBdc/dcpf): lib/matpower.ts reads
// and checks the case, lib/powerflow.ts solves it. The certificate (lib/pf-mismatch.ts, no code
// shared with the solver) recomputes the largest active and reactive power mismatch at every bus
// from the case tables at the returned voltages and generator outputs; above 1e-8 pu the result
// is refused. The value is the largest branch active flow in pu of baseMVA, the meaning the
// synthetic mode's value has. See docs/solvers-grid.md.
import { z } from 'zod';
import type { SolverDescriptor, SolverRun, SolverOutput, SolverContext } from './types.ts';
import { refuse } from '../core/errors.ts';
import { createRng } from './lib/rng.ts';
import { cholesky, choleskySolve } from './lib/dense.ts';
import { precisionOf } from './lib/precision.ts';
import { parseMatpowerCase, tablesFromJson, buildPfNetwork, LIMITS, type CaseTables } from './lib/matpower.ts';
import { solveAc, solveDc } from './lib/powerflow.ts';
import { acMismatch, dcMismatch, type ReportedFlow } from './lib/pf-mismatch.ts';

/** the longest case text accepted (a 10,000-bus case file is about 3 MB) */
export const MAX_CASE_CHARS = 8 * 1024 * 1024;
/** the certificate's bound on the largest power mismatch (pu of baseMVA) */
export const MISMATCH_BOUND_PU = 1e-8;
const SYNTHETIC_DEFAULTS = { N: 30, chords: 10, reactance: 0.1 } as const;

/** A three-bus case: the OpenAPI example of `case`, and as `network` of the same tables. */
export const EXAMPLE_CASE = `function mpc = case3
mpc.version = '2';
mpc.baseMVA = 100;
%  bus_i type Pd Qd Gs Bs area Vm Va baseKV zone Vmax Vmin
mpc.bus = [
  1 3 0   0  0 0 1 1.02 0 230 1 1.1 0.9;
  2 2 50  20 0 0 1 1.01 0 230 1 1.1 0.9;
  3 1 120 50 0 5 1 1    0 230 1 1.1 0.9;
];
%  bus Pg Qg Qmax Qmin Vg mBase status Pmax Pmin
mpc.gen = [
  1 0  0 200 -200 1.02 100 1 300 0;
  2 80 0 100 -100 1.01 100 1 150 0;
];
%  fbus tbus r x b rateA rateB rateC ratio angle status angmin angmax
mpc.branch = [
  1 2 0.01  0.08 0.02 0 0 0 0    0 1 -360 360;
  1 3 0.02  0.10 0.02 0 0 0 0.98 0 1 -360 360;
  2 3 0.015 0.09 0.02 0 0 0 0    0 1 -360 360;
];
`;
export const EXAMPLE_NETWORK = {
  baseMVA: 100,
  bus: [
    [1, 3, 0, 0, 0, 0, 1, 1.02, 0, 230, 1, 1.1, 0.9],
    [2, 2, 50, 20, 0, 0, 1, 1.01, 0, 230, 1, 1.1, 0.9],
    [3, 1, 120, 50, 0, 5, 1, 1, 0, 230, 1, 1.1, 0.9],
  ],
  gen: [
    [1, 0, 0, 200, -200, 1.02, 100, 1, 300, 0],
    [2, 80, 0, 100, -100, 1.01, 100, 1, 150, 0],
  ],
  branch: [
    [1, 2, 0.01, 0.08, 0.02, 0, 0, 0, 0, 0, 1, -360, 360],
    [1, 3, 0.02, 0.1, 0.02, 0, 0, 0, 0.98, 0, 1, -360, 360],
    [2, 3, 0.015, 0.09, 0.02, 0, 0, 0, 0, 0, 1, -360, 360],
  ],
};

export const descriptor: SolverDescriptor = {
  name: 'grid',
  domain: 'Power Systems',
  method: 'power-flow',
  methodDescription: 'DC power flow B*theta=P (synthetic network: dense Cholesky; a given case: sparse LU), and AC power flow of a MATPOWER case by Newton-Raphson in polar form with sparse LU, certified by the recomputed power mismatch',
  operators: ['KO42', 'POWER_ELECTRICAL'],
  unit: 'pu',
  summary: 'Power flow. Without a case: DC power flow B·θ = P on a seeded N-bus ring-plus-chords network, checked by the power balance at every bus. With a MATPOWER case (`case` text or `network` tables): AC power flow by Newton-Raphson (slack, PV and PQ buses, optional generator reactive limits) or DC power flow, returning bus voltages, branch flows and losses, and generator outputs, certified by the largest active and reactive power mismatch recomputed independently (refused above 1e-8 pu).',
  input: z.strictObject({
    N: z.number().int().min(3).max(300).optional().describe('synthetic network: buses (3 to 300; default 30); not with case/network'),
    chords: z.number().int().min(0).max(5000).optional().describe('synthetic network: random extra lines between non-adjacent buses (at most N(N−3)/2; default 10, or N(N−3)/2 when that is smaller); not with case/network'),
    reactance: z.number().finite().min(1e-4).max(10).optional().describe('synthetic network: mean line reactance in pu (default 0.1); not with case/network'),
    seed: z.number().int().min(0).max(0xffffffff).optional().describe('synthetic network: network and injection seed (default: derived from the input); not with case/network'),
    case: z.string().min(1).max(MAX_CASE_CHARS).optional().describe(
      'MATPOWER case file text (case format version 2, literal subset): `function mpc = NAME`, `mpc.baseMVA = …;`, `mpc.bus = [ … ];`, `mpc.gen`, `mpc.branch` (MATPOWER column order), `%` comments; gencost, areas, bus_name, gentype, genfuel accepted and ignored; MATLAB code (calls, indexing, expressions, loops) is refused with its line. Exactly one slack bus (type 3); up to 10,000 buses. Not with network.').meta({ examples: [EXAMPLE_CASE] }),
    network: z.strictObject({
      baseMVA: z.number().finite().positive().describe('system MVA base'),
      bus: z.array(z.array(z.number())).min(1).max(LIMITS.buses).describe('bus table rows (13 to 17 numbers each, MATPOWER column order: BUS_I, BUS_TYPE, PD, QD, GS, BS, BUS_AREA, VM, VA, BASE_KV, ZONE, VMAX, VMIN)'),
      gen: z.array(z.array(z.number())).max(LIMITS.generators).describe('generator table rows (10 to 25 numbers: GEN_BUS, PG, QG, QMAX, QMIN, VG, MBASE, GEN_STATUS, PMAX, PMIN, …)'),
      branch: z.array(z.array(z.number())).max(LIMITS.branches).describe('branch table rows (11 to 21 numbers: F_BUS, T_BUS, BR_R, BR_X, BR_B, RATE_A, RATE_B, RATE_C, TAP, SHIFT, BR_STATUS, ANGMIN, ANGMAX)'),
    }).optional().describe('the MATPOWER tables as JSON, {baseMVA, bus, gen, branch}, rows in MATPOWER column order; not with case').meta({ examples: [EXAMPLE_NETWORK] }),
    method: z.enum(['ac', 'dc']).optional().describe("with case/network: 'ac' (default; Newton-Raphson) or 'dc'; the synthetic network is always DC"),
    enforceQLimits: z.boolean().optional().describe('AC with case/network: enforce generator reactive limits (PV buses switch to PQ, as MATPOWER runpf with ENFORCE_Q_LIMS); default false'),
    start: z.enum(['case', 'flat']).optional().describe("AC with case/network: Newton start, 'case' (the case's Vm/Va, setpoints at PV and slack buses, as MATPOWER; default) or 'flat' (Vm = 1, Va = the slack's angle)"),
  }),
  examples: [
    'DC power flow on a 30 bus network',
    'compute line flows in an electrical transmission grid with a slack bus',
    'which power line carries the most load in a ring network with 5 extra lines',
    'solve B theta = P for bus voltage angles',
    'electricity network load flow with random injections',
    'power system analysis: 118 buses, reactance 0.05 per unit',
    'check Kirchhoff balance of power flows at every substation',
    'linearised AC load flow for a meshed grid',
    'how is power shared between transmission lines when generators and loads are given',
    'AC power flow of my MATPOWER case file by Newton-Raphson',
    'bus voltage magnitudes and line losses of the IEEE 118 bus test case',
  ],
  vocabulary: [
    'power', 'power flow', 'load flow', 'dc power flow', 'grid', 'electrical grid', 'power grid', 'bus', 'buses',
    'line', 'lines', 'transmission', 'slack', 'slack bus', 'reactance', 'susceptance', 'per unit', 'pu', 'injection',
    'generator', 'load', 'substation', 'electricity', 'kirchhoff', 'network', 'voltage angle', 'angle', 'utility',
    'power systems', 'ring', 'chords', 'meshed',
    'ac power flow', 'matpower', 'newton-raphson', 'voltage magnitude', 'reactive power', 'pv bus', 'pq bus',
    'admittance', 'losses', 'ieee 14 bus', 'ieee 118 bus', 'case file',
  ],
  // a 10,000-bus case file is about 3 MB
  bodyLimit: 9 * 1024 * 1024,
};

export interface Network {
  N: number;
  from: Int32Array;
  to: Int32Array;
  x: Float64Array;
  P: Float64Array;
}

export function buildNetwork(N: number, chords: number, reactance: number, seed: number): Network {
  const maxChords = (N * (N - 3)) / 2;
  if (chords > maxChords) {
    throw refuse('INVALID_INPUT', `chords must be at most N(N−3)/2 = ${maxChords} for N = ${N}`, { issues: [{ path: 'chords', message: `at most ${maxChords}` }] });
  }
  const rng = createRng(seed);
  const lines = N + chords;
  const from = new Int32Array(lines), to = new Int32Array(lines), x = new Float64Array(lines);
  let k = 0;
  for (let i = 0; i < N; i++) { from[k] = i; to[k] = (i + 1) % N; k++; }
  if (chords > 0) {
    // all non-adjacent pairs, then a partial Fisher-Yates shuffle picks `chords` of them
    const cand: number[] = [];
    for (let i = 0; i < N; i++) for (let j = i + 2; j < N; j++) if (!(i === 0 && j === N - 1)) cand.push(i * N + j);
    for (let c = 0; c < chords; c++) {
      const r = c + rng.int(cand.length - c);
      const t = cand[c]; cand[c] = cand[r]; cand[r] = t;
      from[k] = Math.floor(cand[c] / N); to[k] = cand[c] % N; k++;
    }
  }
  for (let l = 0; l < lines; l++) x[l] = reactance * (0.5 + rng.next());
  const P = new Float64Array(N);
  let mean = 0;
  for (let i = 0; i < N; i++) { P[i] = 2 * rng.next() - 1; mean += P[i]; }
  mean /= N;
  for (let i = 0; i < N; i++) P[i] -= mean;
  return { N, from, to, x, P };
}

/** Solves the DC power flow with bus 0 as slack. Returns θ (θ_0 = 0) and the line flows. */
export function solveDcFlow(net: Network): { theta: Float64Array; flow: Float64Array } {
  const { N, from, to, x, P } = net;
  const n = N - 1; // unknowns θ_1..θ_{N−1}
  const B = new Float64Array(n * n);
  for (let l = 0; l < from.length; l++) {
    const y = 1 / x[l];
    const i = from[l] - 1, j = to[l] - 1;
    if (i >= 0) B[i * n + i] += y;
    if (j >= 0) B[j * n + j] += y;
    if (i >= 0 && j >= 0) { B[i * n + j] -= y; B[j * n + i] -= y; }
  }
  const L = cholesky(B, n);
  if (!L) throw refuse('SHAPE_REFUSED', 'the reduced susceptance matrix is not positive definite (disconnected network)');
  const th = choleskySolve(L, n, P.subarray(1));
  // iterative refinement: r = P − B·θ, θ += B⁻¹·r
  const r = new Float64Array(n);
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < n; i++) {
      let s = P[i + 1];
      const ri = i * n;
      for (let j = 0; j < n; j++) s -= B[ri + j] * th[j];
      r[i] = s;
    }
    const d = choleskySolve(L, n, r);
    for (let i = 0; i < n; i++) th[i] += d[i];
  }
  const theta = new Float64Array(N);
  for (let i = 0; i < n; i++) theta[i + 1] = th[i];
  const flow = new Float64Array(from.length);
  for (let l = 0; l < from.length; l++) flow[l] = (theta[from[l]] - theta[to[l]]) / x[l];
  return { theta, flow };
}

/** Kirchhoff residual at every bus: P_i − Σ (flows leaving i). */
export function balanceResidual(net: Network, flow: Float64Array): Float64Array {
  const res = Float64Array.from(net.P);
  for (let l = 0; l < flow.length; l++) { res[net.from[l]] -= flow[l]; res[net.to[l]] += flow[l]; }
  return res;
}

export const run: SolverRun = (input, ctx) => {
  const given = input.case !== undefined ? 'case' : input.network !== undefined ? 'network' : null;
  if (input.case !== undefined && input.network !== undefined) {
    throw refuse('INVALID_INPUT', 'give the network either as case (MATPOWER text) or as network (JSON tables), not both', { issues: [{ path: 'network', message: 'case is given too' }] });
  }
  if (given) {
    for (const k of ['N', 'chords', 'reactance', 'seed'] as const) {
      if (input[k] !== undefined) throw refuse('INVALID_INPUT', `${k} describes the synthetic network and has no effect with a given ${given}`, { issues: [{ path: k, message: `not with ${given}` }] });
    }
    return runGiven(input, given, ctx);
  }
  for (const k of ['method', 'enforceQLimits', 'start'] as const) {
    if (input[k] === undefined || (k === 'method' && input[k] === 'dc')) continue;
    throw refuse('INVALID_INPUT', `${k} applies to a given network (case or network); the synthetic network is solved by DC power flow`, { issues: [{ path: k, message: 'needs case or network' }] });
  }
  const N: number = input.N ?? SYNTHETIC_DEFAULTS.N;
  // the default number of chords adapts to a small ring (N = 3 has no non-adjacent pair); a chords
  // value the caller gives is checked as given
  const chords = input.chords ?? Math.min(SYNTHETIC_DEFAULTS.chords, (N * (N - 3)) / 2);
  const net = buildNetwork(N, chords, input.reactance ?? SYNTHETIC_DEFAULTS.reactance, input.seed ?? ctx.seed);
  ctx.progress(0.2);
  const { theta, flow } = solveDcFlow(net);
  ctx.progress(0.9);
  const residual = balanceResidual(net, flow);
  let maxRes = 0, maxP = 0, maxFlow = 0, maxLine = 0;
  for (let i = 0; i < N; i++) { maxRes = Math.max(maxRes, Math.abs(residual[i])); maxP = Math.max(maxP, Math.abs(net.P[i])); }
  for (let l = 0; l < flow.length; l++) if (Math.abs(flow[l]) > maxFlow) { maxFlow = Math.abs(flow[l]); maxLine = l; }
  let maxAngle = 0;
  for (let i = 0; i < N; i++) maxAngle = Math.max(maxAngle, Math.abs(theta[i]));
  ctx.progress(1);
  return {
    value: maxFlow,
    result: {
      maxFlow,
      maxFlowLine: { from: net.from[maxLine], to: net.to[maxLine], flow: flow[maxLine] },
      slackBus: 0,
      slackInjection: net.P[0],
      buses: N,
      lineCount: flow.length,
      chords: flow.length - N,
      maxAngleRad: maxAngle,
      maxBalanceResidual: maxRes,
      theta: Array.from(theta),
      injections: Array.from(net.P),
      // one entry per line, as parallel arrays (compact for large networks)
      lines: { from: Array.from(net.from), to: Array.from(net.to), x: Array.from(net.x), flow: Array.from(flow) },
    },
    precision: precisionOf({
      errorPct: maxP > 0 ? (100 * maxRes) / maxP : 0,
      reference: 'power balance (Kirchhoff) at every bus from the line flows; residual at most 1e-9 pu',
      referenceValue: maxRes,
      alsoHolds: maxRes <= 1e-9,
    }),
    series: { bus: Array.from({ length: N }, (_, i) => i), theta: Array.from(theta), injection: Array.from(net.P) },
  };
};

/** A given network (case text or JSON tables): AC or DC power flow, certified by the mismatch. */
function runGiven(input: any, field: 'case' | 'network', ctx: SolverContext): SolverOutput {
  const method: 'ac' | 'dc' = input.method ?? 'ac';
  if (method === 'dc') {
    for (const k of ['enforceQLimits', 'start'] as const) {
      if (input[k] !== undefined) throw refuse('INVALID_INPUT', `${k} applies to AC power flow only (method is 'dc')`, { issues: [{ path: k, message: "not with method 'dc'" }] });
    }
  }
  const tables: CaseTables = field === 'case' ? parseMatpowerCase(input.case) : tablesFromJson(input.network);
  const net = buildPfNetwork(tables);
  ctx.progress(0.05);
  const base = net.baseMVA;
  const nb = net.nb;
  // per-row outputs: out-of-service rows stay at zero, as MATPOWER reports them
  const busType = Int8Array.from(net.busType);
  const Vm = new Float64Array(nb), Va = new Float64Array(nb);
  const genP = new Float64Array(net.rows.gen), genQ = new Float64Array(net.rows.gen);
  const brP = new Float64Array(net.rows.branch), brQ = new Float64Array(net.rows.branch);
  const brPt = new Float64Array(net.rows.branch), brQt = new Float64Array(net.rows.branch);
  let iterations = 1, converged = true, qLimitsInfeasible = false, slack = net.ref;
  let qLimited: { bus: number; generator: number; limit: 'max' | 'min' }[] = [];
  let solverMethod: string;
  if (method === 'ac') {
    const s = solveAc(net, { enforceQLimits: input.enforceQLimits === true, start: input.start ?? 'case', progress: (f) => ctx.progress(0.05 + 0.85 * Math.min(1, f)) });
    Vm.set(s.Vm); Va.set(s.Va); busType.set(s.busType);
    for (let g = 0; g < net.gen.count; g++) { genP[net.gen.row[g]] = s.Pg[g]; genQ[net.gen.row[g]] = s.Qg[g]; }
    for (let l = 0; l < net.branch.count; l++) {
      const row = net.branch.row[l];
      brP[row] = s.Pf[l]; brQ[row] = s.Qf[l]; brPt[row] = s.Pt[l]; brQt[row] = s.Qt[l];
    }
    iterations = s.iterations; converged = s.converged; qLimitsInfeasible = s.qLimitsInfeasible; slack = s.ref;
    qLimited = s.qLimited.map(({ gen, limit }) => ({ bus: net.busId[net.gen.bus[gen]], generator: net.gen.row[gen], limit }));
    solverMethod = 'newton-raphson-polar';
  } else {
    const s = solveDc(net);
    for (let i = 0; i < nb; i++) { Vm[i] = net.busType[i] === 4 ? net.Vm0[i] : 1; Va[i] = s.Va[i]; }
    for (let g = 0; g < net.gen.count; g++) genP[net.gen.row[g]] = s.Pg[g];
    for (let l = 0; l < net.branch.count; l++) { brP[net.branch.row[l]] = s.Pf[l]; brPt[net.branch.row[l]] = -s.Pf[l]; }
    solverMethod = 'dc-power-flow';
  }
  ctx.progress(0.9);
  const genOn = new Uint8Array(net.rows.gen), brOn = new Uint8Array(net.rows.branch);
  for (let g = 0; g < net.gen.count; g++) genOn[net.gen.row[g]] = 1;
  for (let l = 0; l < net.branch.count; l++) brOn[net.branch.row[l]] = 1;
  const buses = tables.bus.map((r, i) => ({ id: r[0], type: busType[i], Vm: Vm[i], Va: Va[i] }));
  const generators = tables.gen.map((r, g) => ({ bus: r[0], status: genOn[g], Pg: genP[g], Qg: genQ[g] }));
  const branches = tables.branch.map((r, l) => ({ from: r[0], to: r[1], status: brOn[l], Pf: brP[l], Qf: brQ[l], Pt: brPt[l], Qt: brQt[l], loss: brP[l] + brPt[l] }));

  // the certificate, from the tables and what is reported
  const reported: ReportedFlow = { buses, generators, branches, slackBuses: [...new Set([net.busId[net.ref], net.busId[slack]])] };
  const cert = method === 'ac' ? acMismatch(tables, reported) : dcMismatch(tables, reported);
  const worst = Math.max(cert.P, cert.Q);
  const checks = {
    flows: cert.flowError <= MISMATCH_BOUND_PU,
    dispatch: cert.dispatchError <= 1e-9,
    setpoints: cert.setpointError <= 1e-9,
    qLimits: !(input.enforceQLimits === true) || (!qLimitsInfeasible && cert.qLimitViolation <= 5e-6),
    converged,
  };

  let totalLoss = 0, maxFlow = 0, maxRow = -1;
  const gen = { P: 0, Q: 0 }, load = { P: 0, Q: 0 };
  branches.forEach((b, l) => {
    totalLoss += b.loss;
    const f = Math.max(Math.abs(b.Pf), Math.abs(b.Pt));
    if (f > maxFlow) { maxFlow = f; maxRow = l; }
  });
  generators.forEach((g) => { gen.P += g.Pg; gen.Q += g.Qg; });
  tables.bus.forEach((r) => { if (r[1] !== 4) { load.P += r[2]; load.Q += r[3]; } });
  ctx.progress(1);
  return {
    value: maxFlow / base,
    result: {
      ...(tables.name ? { case: tables.name } : {}),
      method,
      baseMVA: base,
      buses,
      branches,
      generators,
      iterations,
      converged,
      mismatch: { P: cert.P, Q: cert.Q },
      certificate: { ...cert, checks },
      slackBus: net.busId[slack],
      ...(slack !== net.ref ? { originalSlackBus: net.busId[net.ref] } : {}),
      totalLoss,
      totalGeneration: gen,
      totalLoad: load,
      maxFlow: maxRow >= 0 ? { branch: maxRow, from: branches[maxRow].from, to: branches[maxRow].to, MW: maxFlow } : null,
      ...(method === 'ac' && input.enforceQLimits === true ? { qLimited, qLimitsInfeasible } : {}),
      pvWithoutGenerator: net.pvWithoutGenerator,
      outOfService: { generators: net.rows.gen - net.gen.count, branches: net.rows.branch - net.branch.count },
    },
    precision: precisionOf({
      errorPct: 100 * worst,
      boundPct: 100 * MISMATCH_BOUND_PU,
      reference: `largest ${method === 'ac' ? 'active and reactive' : 'active'} power mismatch over the buses, recomputed branch by branch from the case tables at the returned voltages and generator outputs (pu of baseMVA; errorPct = 100 × mismatch, bound 1e-8 pu); reported branch flows, generator dispatch${method === 'ac' ? ', voltage setpoints' : ''}${input.enforceQLimits === true ? ' and reactive limits' : ''} checked against them`,
      referenceValue: worst,
      certificate: 'mismatch',
      alsoHolds: Object.values(checks).every(Boolean),
    }),
    series: { bus: buses.map((b) => b.id), Vm: buses.map((b) => b.Vm), Va: buses.map((b) => b.Va) },
    method: solverMethod,
  };
}
