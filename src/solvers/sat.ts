// sat: random 3-SAT decided by DPLL with unit propagation; or a given CNF (DIMACS text or clause
// arrays) decided by CDCL (or DPLL), with a certificate checked before the result is sealed.
//
// Built-in mode (n, alpha, m): the fixed-clause-length model of Mitchell, Selman & Levesque
// (AAAI 1992): m clauses, each over 3 distinct variables drawn uniformly from n, each literal
// negated with probability 1/2. m = round(alpha·n) unless m is given; alpha ≈ 4.26 is the
// satisfiability threshold.
// Method: Davis-Putnam-Logemann-Loveland (Davis, Logemann & Loveland, CACM 5, 394 (1962)) as an
// iterative search with chronological backtracking and no clause learning:
//   - unit propagation to a fixpoint with two watched literals per clause (Moskewicz et al.,
//     "Chaff", DAC 2001), so a clause is only visited when one of its watches becomes false;
//   - branching on the variable with the most occurrences in the shortest unsatisfied clauses
//     (MOMS, Freeman 1995: score = 64·(binary occurrences) + ternary occurrences, the sign with
//     more occurrences first).
// `decisions` counts branching choices (the value), `backtracks` second branches, and
// `propagations` literals forced by unit propagation.
// Reference: a satisfiable answer is checked clause by clause against the assignment; for
// n <= 20 every answer is also checked by brute force over all 2^n assignments (which also counts
// the models). There is no stability condition: DPLL is exact and always terminates.
//
// Given problem (cnf or clauses; issue 22): parsed by lib/dimacs.ts, decided by lib/sat/solve.ts
// (bounded variable elimination, lib/sat/elim.ts, then conflict-driven clause learning,
// lib/cdcl.ts, with learnt-clause tiers, focused/stable modes, target phases, rephasing and
// vivification; the default) or lib/dpll.ts. The certificate is checked
// before returning: a model against every clause of the input, an UNSAT answer's DRAT proof by
// lib/drat-check.ts, a backward RUP/RAT checker that shares no code with the solvers. The proof
// text leaves as the output's `drat` attachment; the result carries its SHA-256 and size.
// `value` stays `decisions` (the descriptor's one unit); the verdict is `result.status`.
import { isMainThread } from 'node:worker_threads';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SolverDescriptor, SolverRun, SolverContext, SolverOutput } from './types.ts';
import { createRng } from './lib/rng.ts';
import { refuse } from '../core/errors.ts';
import { precisionOf } from './lib/precision.ts';
import { parseDimacs, cnfFromClauses, CNF_LIMITS, CLAUSES_LIMITS, type Cnf } from './lib/dimacs.ts';
import { solveSat } from './lib/sat/solve.ts';
import { solveDpll } from './lib/dpll.ts';
import { dratText } from './lib/drat-text.ts';
import { checkDrat } from './lib/drat-check.ts';

const BUILTIN_DEFAULTS = { n: 50, alpha: 4.26 };
/** the largest DRAT proof a run writes (text bytes); past it an UNSAT answer has no certificate */
export const MAX_PROOF_BYTES = 64 * 1024 * 1024;

// (0 is refused in the object's refinement, one loop over all literals: a per-literal zod refine
// costs ~0.5 µs each on the event loop)
const literal = z.number().int().min(-CLAUSES_LIMITS.maxVars).max(CLAUSES_LIMITS.maxVars);

export const descriptor: SolverDescriptor = {
  name: 'sat',
  domain: 'Computational Complexity',
  method: 'dpll',
  methodDescription: 'DPLL with unit propagation on random 3-SAT; CDCL (watched literals, first-UIP learning, EVSIDS, restarts) with a checked model or DRAT proof on a given CNF',
  operators: ['KO42', 'CS81'],
  unit: 'decisions',
  // an 8 MiB CNF text grows when JSON-escaped (each newline becomes two bytes; a line is at least
  // 4 bytes, so at most +25 %), plus the other fields
  bodyLimit: 11 * 1024 * 1024,
  summary: 'Decides a boolean formula in CNF. Give `cnf` (DIMACS text) or `clauses` (signed-integer arrays) and a CDCL solver answers SAT with a model checked against every clause, or UNSAT with a DRAT proof checked by an independent backward checker (proof served as an attachment, its SHA-256 in the result). Without them, generates a random 3-SAT instance (n variables, m = alpha·n clauses) and decides it by DPLL.',
  input: z.strictObject({
    cnf: z.string().max(CNF_LIMITS.maxTextBytes).optional().meta({ examples: ['c unsatisfiable: every assignment of x1, x2 falsifies one clause\np cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n', 'p cnf 3 2\n1 -3 0\n2 3 -1 0\n'] }).describe('the problem as DIMACS CNF text: comment lines `c …`, a header `p cnf <variables> <clauses>`, then the clauses as signed variable numbers each ended by 0 (a SATLIB `%` line ends the formula); up to 8 MiB inline (a CNF handed over as bytes from a blob may be larger), 10,000,000 variables, 50,000,000 clauses. Malformed text is a 400 naming the line (counted from 1, comments included). Not with clauses, n, alpha or m.'),
    clauses: z.array(z.array(literal)).max(CLAUSES_LIMITS.maxClauses).optional().meta({ examples: [[[1, -2], [2, 3], [-1, -3]]] }).describe('the problem as clauses, each an array of nonzero signed variable numbers ([[1, -2], [2, 3]] is (x1 ∨ ¬x2) ∧ (x2 ∨ x3)); up to 1,000,000 clauses over variables 1 to 100,000. Not with cnf, n, alpha or m.'),
    vars: z.number().int().min(1).max(CLAUSES_LIMITS.maxVars).optional().describe('number of variables for `clauses` (default: the largest variable used; more adds free variables to the model). Only with clauses.'),
    method: z.enum(['cdcl', 'dpll']).optional().describe("'cdcl' (conflict-driven clause learning; default for a given problem) or 'dpll' (default for the built-in random instance)"),
    n: z.number().int().min(3).max(120).optional().describe('built-in random 3-SAT: variables (3 to 120, default 50); not with cnf or clauses'),
    alpha: z.number().finite().gt(0).max(15).optional().describe('built-in random 3-SAT: clause-to-variable ratio (default 4.26; ignored when m is given); not with cnf or clauses'),
    m: z.number().int().min(1).max(2000).optional().describe('built-in random 3-SAT: number of clauses (1 to 2000); overrides alpha; not with cnf or clauses'),
    seed: z.number().int().min(0).max(0xffffffff).optional().describe('built-in mode: the instance seed; given problem: orders ties in the initial variable order (default: derived from the input)'),
  }).superRefine((v, ctx) => {
    const given = v.cnf !== undefined ? 'cnf' : v.clauses !== undefined ? 'clauses' : null;
    if (v.cnf !== undefined && v.clauses !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['clauses'], message: 'give the problem as cnf or as clauses, not both' });
    }
    if (given) {
      for (const k of ['n', 'alpha', 'm'] as const) {
        if (v[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} sets up the built-in random instance; it has no effect with ${given}` });
      }
    }
    // (clauses given as a blob reference are checked the same way once read: src/ops/files.ts)
    if (Array.isArray(v.clauses)) {
      let zero: number[] | null = null;
      for (let i = 0; i < v.clauses.length && !zero; i++) {
        const c = v.clauses[i];
        for (let j = 0; j < c.length; j++) if (c[j] === 0) { zero = [i, j]; break; }
      }
      if (zero) ctx.addIssue({ code: 'custom', path: ['clauses', ...zero], message: 'a literal is a nonzero integer (0 only ends a clause in DIMACS text)' });
    }
    if (v.vars !== undefined) {
      if (v.clauses === undefined) {
        ctx.addIssue({ code: 'custom', path: ['vars'], message: v.cnf !== undefined ? "vars applies to clauses only: a cnf's header states its variable count" : 'vars applies to clauses only' });
      } else if (Array.isArray(v.clauses)) {
        let maxVar = 0;
        for (const c of v.clauses) for (const l of c) { const a = l < 0 ? -l : l; if (a > maxVar) maxVar = a; }
        if (v.vars < maxVar) ctx.addIssue({ code: 'custom', path: ['vars'], message: `vars = ${v.vars} is less than the largest variable used in clauses (${maxVar})` });
      }
    }
  }),
  examples: [
    'is this random 3-SAT formula satisfiable with 50 variables',
    'solve a boolean satisfiability instance at the phase transition ratio 4.26',
    'DPLL search on random 3-CNF, count decisions and unit propagations',
    'find a satisfying assignment for a random CNF formula with 100 variables',
    'how hard is random k-SAT near the threshold',
    'NP-complete problem benchmark: random 3-SAT with 200 clauses',
    'check whether a set of logical clauses can all be true at once',
    'SAT solver run with seed 7 and clause ratio 3',
    'backtracking search for a boolean formula in conjunctive normal form',
    'solve this DIMACS CNF file and give me a model or an unsatisfiability proof',
    'prove my CNF is unsatisfiable with a DRAT proof',
    'CDCL SAT solver on my own clauses, like MiniSat or CaDiCaL',
  ],
  vocabulary: [
    'sat', '3-sat', '3sat', 'ksat', 'k-sat', 'satisfiable', 'satisfiability', 'unsatisfiable', 'boolean', 'cnf',
    'clause', 'clauses', 'literal', 'literals', 'variable', 'assignment', 'dpll', 'davis putnam', 'unit propagation',
    'backtracking', 'np-complete', 'np', 'complexity', 'computational complexity', 'phase transition', 'threshold',
    'logic', 'formula', 'solver', 'decisions', 'minisat', 'conjunctive normal form',
    'dimacs', 'cdcl', 'clause learning', 'drat', 'proof', 'unsat', 'certificate', 'model', 'cadical', 'sat solver',
  ],
};

export interface Instance {
  n: number;
  /** clause c has literals lits[3c..3c+2]; literal 2v is x_v, 2v+1 is ¬x_v (v 0-based) */
  lits: Int32Array;
  m: number;
}

/** Random 3-SAT, fixed clause length model. */
export function randomInstance(n: number, m: number, seed: number): Instance {
  const rng = createRng(seed);
  const lits = new Int32Array(3 * m);
  for (let c = 0; c < m; c++) {
    const a = rng.int(n);
    let b = rng.int(n - 1); if (b >= a) b++;
    let d = rng.int(n - 2);
    const lo = Math.min(a, b), hi = Math.max(a, b);
    if (d >= lo) d++;
    if (d >= hi) d++;
    lits[3 * c] = 2 * a + (rng.nextU32() & 1);
    lits[3 * c + 1] = 2 * b + (rng.nextU32() & 1);
    lits[3 * c + 2] = 2 * d + (rng.nextU32() & 1);
  }
  return { n, lits, m };
}

/** DIMACS signed-integer clauses (variables 1-based). */
export function toSigned(inst: Instance): number[][] {
  const out: number[][] = [];
  for (let c = 0; c < inst.m; c++) {
    const cl: number[] = [];
    for (let k = 0; k < 3; k++) { const l = inst.lits[3 * c + k]; cl.push(l & 1 ? -((l >> 1) + 1) : (l >> 1) + 1); }
    out.push(cl);
  }
  return out;
}

export interface DpllResult {
  satisfiable: boolean;
  /** value per variable, 0 or 1 (unassigned variables of a model are set to 0) */
  assignment: Int8Array | null;
  decisions: number;
  backtracks: number;
  propagations: number;
}

const UNASSIGNED = -1;

export function dpll(inst: Instance, progress?: () => void): DpllResult {
  const { n, m, lits } = inst;
  const nl = 2 * n;
  const val = new Int8Array(n).fill(UNASSIGNED);
  // watch lists: for each literal, the clauses currently watching it (two watches per clause:
  // positions 0 and 1 of the clause's literal order, kept in `order`)
  const order = Int32Array.from(lits); // per-clause literal order; watched = first two
  const watchHead = new Int32Array(nl).fill(-1);
  const watchNext = new Int32Array(2 * m); // node 2c + k: clause c watching order[3c+k], k ∈ {0,1}
  const addWatch = (lit: number, node: number) => { watchNext[node] = watchHead[lit]; watchHead[lit] = node; };
  for (let c = 0; c < m; c++) { addWatch(order[3 * c], 2 * c); addWatch(order[3 * c + 1], 2 * c + 1); }

  const trail = new Int32Array(n);
  let trailLen = 0, qHead = 0;
  // decision stack: trail position where each level starts, the decision literal, flipped?
  const levelStart = new Int32Array(n + 1);
  const levelLit = new Int32Array(n + 1);
  const levelFlipped = new Uint8Array(n + 1);
  let level = 0;
  let decisions = 0, backtracks = 0, propagations = 0;

  // literal value: 1 true, 0 false, −1 unassigned
  const litVal = (l: number): number => { const v = val[l >> 1]; return v === UNASSIGNED ? -1 : v ^ (l & 1); };
  const assign = (l: number) => { val[l >> 1] = (l & 1) ^ 1; trail[trailLen++] = l; };

  /** Propagates the trail from qHead; returns false on a conflict. */
  const propagate = (): boolean => {
    while (qHead < trailLen) {
      const falseLit = trail[qHead++] ^ 1;
      let node = watchHead[falseLit];
      let prev = -1;
      while (node !== -1) {
        const next = watchNext[node];
        const c = node >> 1, k = node & 1;
        const base = 3 * c;
        const other = order[base + (k ^ 1)];
        if (litVal(other) === 1) { prev = node; node = next; continue; }
        // look for a replacement watch in the third position
        const third = order[base + 2];
        if (litVal(third) !== 0) {
          // swap the third literal into this watch slot and move the node to its watch list
          order[base + 2] = order[base + k];
          order[base + k] = third;
          if (prev === -1) watchHead[falseLit] = next; else watchNext[prev] = next;
          addWatch(third, node);
          node = next;
          continue;
        }
        // no replacement: the clause is unit on `other`, or conflicting
        const ov = litVal(other);
        if (ov === 0) { qHead = trailLen; return false; }
        if (ov === -1) { assign(other); propagations++; }
        prev = node; node = next;
      }
    }
    return true;
  };

  /** MOMS branching literal, or −1 when every clause is satisfied. */
  const score = new Int32Array(nl);
  const pickBranch = (): number => {
    score.fill(0);
    let any = false;
    for (let c = 0; c < m; c++) {
      const b = 3 * c;
      const l0 = lits[b], l1 = lits[b + 1], l2 = lits[b + 2];
      const v0 = litVal(l0), v1 = litVal(l1), v2 = litVal(l2);
      if (v0 === 1 || v1 === 1 || v2 === 1) continue;
      const free = (v0 === -1 ? 1 : 0) + (v1 === -1 ? 1 : 0) + (v2 === -1 ? 1 : 0);
      const w = free === 2 ? 64 : 1;
      if (v0 === -1) score[l0] += w;
      if (v1 === -1) score[l1] += w;
      if (v2 === -1) score[l2] += w;
      any = true;
    }
    if (!any) return -1;
    let best = -1, bestScore = -1;
    for (let v = 0; v < n; v++) {
      if (val[v] !== UNASSIGNED) continue;
      const p = score[2 * v], q = score[2 * v + 1];
      // product rewards variables that shorten clauses on both branches (Freeman 1995)
      const s = (p + 1) * (q + 1);
      if (s > bestScore) { bestScore = s; best = p >= q ? 2 * v : 2 * v + 1; }
    }
    return best;
  };

  let ok = propagate();
  let satisfiable = false;
  for (;;) {
    if (!ok) {
      // backtrack to the deepest level whose decision has not been flipped
      while (level > 0 && levelFlipped[level]) level--;
      if (level === 0) break; // the whole tree is exhausted: unsatisfiable
      const start = levelStart[level];
      for (let i = trailLen - 1; i >= start; i--) val[trail[i] >> 1] = UNASSIGNED;
      trailLen = start; qHead = start;
      const flipped = levelLit[level] ^ 1;
      levelLit[level] = flipped;
      levelFlipped[level] = 1;
      backtracks++;
      assign(flipped);
      ok = propagate();
      continue;
    }
    const lit = pickBranch();
    if (lit === -1) { satisfiable = true; break; }
    decisions++;
    if ((decisions & 1023) === 0) progress?.();
    level++;
    levelStart[level] = trailLen;
    levelLit[level] = lit;
    levelFlipped[level] = 0;
    assign(lit);
    ok = propagate();
  }
  let assignment: Int8Array | null = null;
  if (satisfiable) {
    assignment = new Int8Array(n);
    for (let v = 0; v < n; v++) assignment[v] = val[v] === 1 ? 1 : 0;
  }
  return { satisfiable, assignment, decisions, backtracks, propagations };
}

/** Number of clauses the assignment leaves false (0 means it is a model). */
export function falsifiedClauses(inst: Instance, assignment: ArrayLike<number>): number {
  let bad = 0;
  for (let c = 0; c < inst.m; c++) {
    let sat = false;
    for (let k = 0; k < 3; k++) {
      const l = inst.lits[3 * c + k];
      if ((assignment[l >> 1] ^ (l & 1)) === 1) { sat = true; break; }
    }
    if (!sat) bad++;
  }
  return bad;
}

/** Counts models by brute force over all 2^n assignments (n <= 20). */
export function bruteForceModels(inst: Instance): number {
  const { n, m, lits } = inst;
  const cm = new Int32Array(m), fm = new Int32Array(m);
  for (let c = 0; c < m; c++) {
    for (let k = 0; k < 3; k++) {
      const l = lits[3 * c + k];
      cm[c] |= 1 << (l >> 1);
      if (l & 1) fm[c] |= 1 << (l >> 1); // a negated literal is false when its bit is 1
    }
  }
  let models = 0;
  const total = 1 << n;
  outer: for (let mask = 0; mask < total; mask++) {
    for (let c = 0; c < m; c++) if ((mask & cm[c]) === fm[c]) continue outer;
    models++;
  }
  return models;
}

const BRUTE_FORCE_MAX_N = 20;

export const run: SolverRun = (input, ctx) => {
  if (input.cnf !== undefined || input.clauses !== undefined) {
    // `cnf` is DIMACS text from a request, or its bytes (a Uint8Array) when it came from a blob
    const p0 = threadCpuMs();
    const cnf: Cnf = input.cnf !== undefined
      ? parseDimacs(input.cnf as string | Uint8Array)
      : cnfFromClauses(input.clauses, Math.max(input.vars ?? 0, maxVariable(input.clauses)));
    // the text (up to hundreds of MB from a blob) is not needed once read: in a pool worker, whose
    // input is its own copy, it is let go before the search (elsewhere the caller keeps its input)
    if (input.cnf !== undefined && !isMainThread) input.cnf = undefined;
    return solveGiven(cnf, input.method ?? 'cdcl', input.seed ?? ctx.seed, ctx, {}, threadCpuMs() - p0);
  }
  const n: number = input.n ?? BUILTIN_DEFAULTS.n;
  const m: number = input.m ?? Math.max(1, Math.round((input.alpha ?? BUILTIN_DEFAULTS.alpha) * n));
  const seed: number = input.seed ?? ctx.seed;
  const inst = randomInstance(n, m, seed);
  if (input.method === 'cdcl') {
    // the built-in instance decided by the given-problem path (CDCL with a certificate)
    const clauses = toSigned(inst);
    return solveGiven(cnfFromClauses(clauses, n), 'cdcl', seed, ctx, { n, m, alpha: m / n, seed, clauses }, 0);
  }
  let ticks = 0;
  const res = dpll(inst, () => ctx.progress(Math.min(0.9, 1 - 1 / (1 + ++ticks / 64))));
  const falsified = res.assignment ? falsifiedClauses(inst, res.assignment) : 0;
  let models: number | null = null;
  let bruteForceAgrees: boolean | null = null;
  if (n <= BRUTE_FORCE_MAX_N) {
    models = bruteForceModels(inst);
    bruteForceAgrees = (models > 0) === res.satisfiable;
  }
  ctx.progress(1);
  const withinBound = falsified === 0 && bruteForceAgrees !== false;
  return {
    value: res.decisions,
    result: {
      satisfiable: res.satisfiable,
      assignment: res.assignment ? Array.from(res.assignment, (b, v) => (b ? v + 1 : -(v + 1))) : null,
      decisions: res.decisions,
      backtracks: res.backtracks,
      propagations: res.propagations,
      n, m, alpha: m / n, seed,
      falsifiedClauses: falsified,
      clausesChecked: res.satisfiable ? m : 0,
      ...(models !== null ? { bruteForceModels: models, bruteForceAgrees } : {}),
      clauses: toSigned(inst),
    },
    precision: {
      errorPct: res.satisfiable ? (100 * falsified) / m : bruteForceAgrees === false ? 100 : 0,
      boundPct: 0.1,
      reference: res.satisfiable
        ? 'every clause checked against the assignment' + (models !== null ? '; brute force over all 2^n assignments' : '')
        : 'exhaustive DPLL search' + (models !== null ? ', confirmed by brute force over all 2^n assignments' : ''),
      withinBound,
      referenceValue: falsified,
    },
  };
};

function maxVariable(clauses: number[][]): number {
  let mx = 0;
  for (const c of clauses) for (const l of c) { const a = l < 0 ? -l : l; if (a > mx) mx = a; }
  return mx;
}

/** Clauses of `cnf` that `model` (value per variable, 0/1) leaves false: checked against the input
 * itself, not the solver's copy of it. */
export function falsifiedByModel(cnf: Cnf, model: ArrayLike<number>): number {
  let bad = 0, sat = false;
  const lits = cnf.lits;
  for (let i = 0; i < lits.length; i++) {
    const l = lits[i];
    if (l === 0) { if (!sat) bad++; sat = false; continue; }
    if (!sat && (model[(l < 0 ? -l : l) - 1] === 1) === l > 0) sat = true;
  }
  return bad;
}

/** CPU time of this thread in ms (the worker's own, not the process's: other jobs run beside it).
 * `stats.solveMs` is this clock around the search, comparable with MiniSat's "CPU time";
 * `stats.wallMs` is the wall clock, which on a loaded machine also counts waiting for a core. */
function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/** Decides a given CNF, checks the certificate (model or DRAT proof) and builds the output. */
function solveGiven(cnf: Cnf, method: 'cdcl' | 'dpll', seed: number, ctx: SolverContext, extra: Record<string, unknown>, parseMs: number): SolverOutput {
  // progress: the search has no known length; 0 → 0.8 as conflicts (decisions for DPLL) grow,
  // then the certificate check
  const searchProgress = (k: number) => ctx.progress(0.8 * (1 - 1 / (1 + k / 50_000)));
  const cpu0 = threadCpuMs(), t0 = performance.now();
  const r = method === 'cdcl'
    ? solveSat(cnf.vars, cnf.lits, { seed, maxProofBytes: MAX_PROOF_BYTES, progress: searchProgress })
    : solveDpll(cnf.vars, cnf.lits, { seed, maxProofBytes: MAX_PROOF_BYTES, progress: searchProgress });
  const solveMs = threadCpuMs() - cpu0, wallMs = performance.now() - t0;
  if (r.status === 'UNKNOWN') throw refuse('PRECISION_REFUSED', 'the CDCL search stopped without an answer', { value: null });
  ctx.progress(0.8);
  const s = r.stats;
  // timings (thread CPU ms; they differ between runs and are not replayed: src/verify.ts): the
  // search alone, and apart from it reading the input, writing the proof and checking the certificate
  const stats: Record<string, number> = { conflicts: s.conflicts, decisions: s.decisions, propagations: s.propagations, restarts: s.restarts, solveMs, wallMs, parseMs, proofMs: 0, checkMs: 0 };
  const elim = 'elim' in r ? r.elim : null;
  const base = { ...extra, n: cnf.vars, m: cnf.clauses, method, ...(elim ? { preprocessing: { eliminatedVariables: elim.eliminated, resolvents: elim.resolvents, removedClauses: elim.removed, subsumed: elim.subsumed } } : {}) };
  if (r.status === 'SAT') {
    const model = r.model!;
    const k0 = threadCpuMs();
    const falsified = falsifiedByModel(cnf, model);
    stats.checkMs = threadCpuMs() - k0;
    ctx.progress(1);
    return {
      value: s.decisions,
      method,
      result: {
        status: 'SAT', satisfiable: true,
        model: Array.from(model, (b, v) => (b ? v + 1 : -(v + 1))),
        stats, ...base,
        check: { clausesChecked: cnf.clauses, falsifiedClauses: falsified },
      },
      precision: precisionOf({
        errorPct: cnf.clauses ? (100 * falsified) / cnf.clauses : 0,
        boundPct: 0,
        reference: 'the model checked against every clause of the input',
        referenceValue: falsified,
        certificate: 'model',
      }),
    };
  }
  // UNSAT: write the proof, check it with the independent checker
  if (r.proofTruncated) {
    ctx.progress(1);
    return {
      value: s.decisions,
      method,
      result: {
        status: 'UNSAT', satisfiable: false,
        proof: { format: 'drat', bytes: null, lemmas: r.lemmas, truncated: true },
        stats, ...base,
        check: { ok: false, reason: `the DRAT proof grew past ${MAX_PROOF_BYTES} bytes, the largest this node writes; the answer has no checked certificate` },
      },
      precision: precisionOf({
        errorPct: 100, boundPct: 0,
        reference: `no certificate: the DRAT proof exceeded ${MAX_PROOF_BYTES} bytes`,
        certificate: 'drat', alsoHolds: false,
      }),
    };
  }
  const w0 = threadCpuMs();
  const text = dratText(r.proof!);
  const sha256 = createHash('sha256').update(text).digest('hex');
  stats.proofMs = threadCpuMs() - w0;
  let ticks = 0;
  const k0 = threadCpuMs();
  const check = checkDrat(cnf.vars, cnf.lits, text, { progress: () => ctx.progress(Math.min(0.99, 0.8 + 0.2 * (1 - 1 / (1 + ++ticks / 64)))) });
  stats.checkMs = threadCpuMs() - k0;
  ctx.progress(1);
  return {
    value: s.decisions,
    method,
    result: {
      status: 'UNSAT', satisfiable: false,
      proof: { format: 'drat', sha256, bytes: text.length, lemmas: r.lemmas },
      stats, ...base,
      check: {
        ok: check.ok,
        checker: 'backward DRAT (RUP and RAT, core-first)',
        lemmasChecked: check.checked, ratLemmas: check.rat, ignoredDeletions: check.ignoredDeletions,
        ...(check.reason ? { reason: check.reason } : {}),
      },
    },
    precision: precisionOf({
      errorPct: check.ok ? 0 : 100,
      boundPct: 0,
      reference: check.ok
        ? `DRAT proof (${r.lemmas} lemmas) checked by an independent backward checker: ${check.checked} core lemmas verified by RUP/RAT`
        : `DRAT proof rejected by the independent checker: ${check.reason}`,
      certificate: 'drat',
      alsoHolds: check.ok,
    }),
    attachments: { drat: text },
  };
}
