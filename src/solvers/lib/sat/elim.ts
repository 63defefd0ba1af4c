// Bounded variable elimination with subsumption (preprocessing before CDCL).
//
// Eén & Biere, "Effective preprocessing in SAT through variable and clause elimination" (SatELite,
// SAT 2005), as MiniSat 2.2's `simp` does it: a variable x is eliminated by replacing the clauses
// that contain x or ¬x by all their non-tautological resolvents on x (Davis & Putnam 1960), when
// that does not increase the number of clauses and no resolvent is longer than RESOLVENT_MAX
// literals. A variable with only one sign (a pure literal) is eliminated with no resolvent.
// Resolvents are checked for subsumption both ways: a resolvent that an existing clause subsumes
// is not added (forward), and the clauses a short resolvent subsumes are removed (backward).
//
// Proof (DRAT; Wetzler, Heule & Hunt, SAT 2014): each resolvent is added as a lemma (it is RUP:
// unit propagation of its negation falsifies one of its two antecedents), then every clause that
// contained x is deleted (`d …`). A subsumed clause is deleted. The model of the reduced formula
// is extended back (Järvisalo, Heule & Biere, "Inprocessing rules", IJCAR 2012, §5): the removed
// clauses are kept on a stack with their pivot literal, and, in reverse order, a clause that the
// model leaves false has its pivot made true; the model then satisfies the ORIGINAL formula.
//
// Variables that occur in a clause with a repeated literal or in a tautology are not eliminated
// (the proof deletes clauses as the input wrote them; such clauses are read differently by proof
// checkers), and neither are variables past the work budget. All limits count steps, not time:
// the result is a function of the input.

export interface ElimOptions {
  /** stop after about this many literal visits (default 3e7) */
  maxSteps?: number;
  /** longest resolvent allowed (default 20, MiniSat's clause_lim) */
  resolventMax?: number;
  /** a side with more occurrences than this is not tried (default 32) */
  occMax?: number;
}

export interface ElimResult {
  /** the reduced formula: signed DIMACS literals, each clause ended by 0 */
  lits: Int32Array;
  clauses: number;
  /** DRAT records [1 (lemma) | 2 (deletion), DIMACS literals…, 0], to be written before the search's */
  proof: Int32Array;
  /** 1 for each eliminated variable (0-based) */
  eliminated: Uint8Array;
  /** reconstruction stack: [pivot, literals of the clause…, 0] records (DIMACS), oldest first */
  stack: Int32Array;
  /** unit propagation refuted the formula: the proof ends with the empty clause */
  refuted: boolean;
  stats: { eliminated: number; resolvents: number; removed: number; subsumed: number; steps: number };
}

const RESOLVENT_MAX = 20, OCC_MAX = 32, MAX_STEPS = 3e7;

/** internal literal of a DIMACS literal: 2(v-1) for v, 2(v-1)+1 for ¬v */
const lit = (d: number) => (d > 0 ? 2 * (d - 1) : 2 * (-d - 1) + 1);
const dimacs = (l: number) => (l & 1 ? -((l >> 1) + 1) : (l >> 1) + 1);

class IntVec {
  a: Int32Array; n = 0;
  constructor(cap = 1024) { this.a = new Int32Array(cap); }
  push(x: number) { if (this.n === this.a.length) { const g = new Int32Array(this.a.length * 2); g.set(this.a); this.a = g; } this.a[this.n++] = x; }
  view() { return this.a.slice(0, this.n); }
}

export function eliminate(nVars: number, input: Int32Array, opts: ElimOptions = {}): ElimResult {
  const n = nVars, nl = 2 * n;
  const resolventMax = opts.resolventMax ?? RESOLVENT_MAX;
  const occMax = opts.occMax ?? OCC_MAX;
  const maxSteps = opts.maxSteps ?? MAX_STEPS;
  let steps = 0;

  // ---- clauses: literal arrays (internal literals), sorted; a live flag; a 64-bit-ish signature ----
  const cls: number[][] = [];
  const alive: number[] = [];
  const sig: number[] = [];
  const frozen = new Uint8Array(n);
  const mark = new Int32Array(nl);   // stamp per literal
  let stamp = 0;
  const occ: number[][] = new Array(nl);
  for (let l = 0; l < nl; l++) occ[l] = [];
  const signature = (c: number[]) => { let s = 0; for (let k = 0; k < c.length; k++) s |= 1 << ((c[k] >> 1) & 31); return s; };
  const addClause = (c: number[]) => {
    const id = cls.length;
    cls.push(c); alive.push(1); sig.push(signature(c));
    for (let k = 0; k < c.length; k++) occ[c[k]].push(id);
    return id;
  };
  {
    let start = 0;
    const buf: number[] = [];
    for (let i = 0; i < input.length; i++) {
      if (input[i] !== 0) continue;
      stamp++;
      buf.length = 0;
      let odd = false;
      for (let k = start; k < i; k++) {
        const l = lit(input[k]);
        if (mark[l] === stamp) { odd = true; continue; }
        if (mark[l ^ 1] === stamp) odd = true;
        mark[l] = stamp;
        buf.push(l);
      }
      if (odd) {
        // a repeated literal or a tautology: its variables stay; the clause stays as written
        for (const l of buf) frozen[l >> 1] = 1;
      }
      addClause(buf.slice().sort((a, b) => a - b));
      start = i + 1;
    }
  }

  const proof = new IntVec(1 << 12);
  const stack = new IntVec(1 << 12);
  const record = (kind: number, c: ArrayLike<number>) => { proof.push(kind); for (let k = 0; k < c.length; k++) proof.push(dimacs(c[k])); proof.push(0); };
  const eliminated = new Uint8Array(n);
  const stats = { eliminated: 0, resolvents: 0, removed: 0, subsumed: 0, steps: 0 };

  const liveOcc = (l: number): number[] => {
    const o = occ[l];
    let j = 0;
    for (let i = 0; i < o.length; i++) if (alive[o[i]]) o[j++] = o[i];
    o.length = j;
    return o;
  };
  const removeClause = (id: number) => { alive[id] = 0; record(2, cls[id]); stats.removed++; };

  /** does clause a (sorted) subsume clause b (sorted)? */
  const subsumes = (a: number[], b: number[]): boolean => {
    if (a.length > b.length) return false;
    let j = 0;
    for (let i = 0; i < a.length; i++) {
      while (j < b.length && b[j] < a[i]) j++;
      if (j === b.length || b[j] !== a[i]) return false;
      j++;
    }
    steps += a.length + j;
    return true;
  };

  // resolvent scratch
  const res = new Int32Array(2 * resolventMax + 2);
  /** resolvent of c (with x) and d (with ¬x) into res; returns its size, -1 if tautological, -2 if too long */
  const resolve = (c: number[], d: number[], x: number): number => {
    stamp++;
    let size = 0;
    for (let k = 0; k < c.length; k++) { const l = c[k]; if ((l >> 1) === (x >> 1)) continue; mark[l] = stamp; res[size++] = l; }
    for (let k = 0; k < d.length; k++) {
      const l = d[k];
      if ((l >> 1) === (x >> 1)) continue;
      if (mark[l ^ 1] === stamp) return -1;
      if (mark[l] === stamp) continue;
      if (size === resolventMax) return -2;
      mark[l] = stamp; res[size++] = l;
    }
    steps += c.length + d.length;
    return size > resolventMax ? -2 : size;
  };

  // ---- top-level unit propagation (MiniSat's simplify): clauses a unit satisfies are deleted,
  // false literals are removed (the shorter clause is a RUP lemma, the old one deleted); the unit
  // clauses stay, so the search sees the same assignment; assigned variables are not eliminated ----
  // empty: the formula has an empty clause; refuted: the proof above already ends with it
  let empty = false, refuted = false;
  {
    const value = new Int8Array(nl);
    const queue: number[] = [];
    for (let id = 0; id < cls.length; id++) if (cls[id].length === 1) queue.push(id);
    for (let id = 0; id < cls.length; id++) if (cls[id].length === 0) empty = true;
    for (let qi = 0; qi < queue.length && !empty; qi++) {
      const unitId = queue[qi];
      if (!alive[unitId]) continue;
      const l = cls[unitId][0];
      if (value[l] === 1) continue;
      if (value[l] === -1) { record(1, []); empty = true; refuted = true; break; }
      value[l] = 1; value[l ^ 1] = -1; frozen[l >> 1] = 1;
      for (const id of liveOcc(l)) if (id !== unitId && alive[id]) { alive[id] = 0; record(2, cls[id]); steps += cls[id].length; }
      for (const id of liveOcc(l ^ 1)) {
        if (!alive[id]) continue;
        const c = cls[id];
        const shorter: number[] = [];
        for (let k = 0; k < c.length; k++) if (c[k] !== (l ^ 1)) shorter.push(c[k]);
        record(1, shorter);
        if (shorter.length === 0) { empty = true; refuted = true; break; }
        alive[id] = 0; record(2, c);
        steps += c.length;
        const nid = addClause(shorter);
        if (shorter.length === 1) queue.push(nid);
      }
    }
  }

  const touched = new Uint8Array(n);
  const tryEliminate = (v: number): boolean => {
    if (eliminated[v] || frozen[v]) return false;
    const pos = liveOcc(2 * v), neg = liveOcc(2 * v + 1);
    if (pos.length === 0 && neg.length === 0) return false;
    if (pos.length > occMax && neg.length > occMax) return false;
    const before = pos.length + neg.length;
    // count the resolvents first; give up as soon as they would outnumber the clauses removed
    let count = 0;
    for (const a of pos) {
      for (const b of neg) {
        const s = resolve(cls[a], cls[b], 2 * v);
        if (s === -2) return false;
        if (s >= 0 && ++count > before) return false;
      }
      if (steps > maxSteps) return false;
    }
    // eliminate: add the resolvents (RUP lemmas), unless an existing clause subsumes them
    const added: number[][] = [];
    for (const a of pos) for (const b of neg) {
      const s = resolve(cls[a], cls[b], 2 * v);
      if (s < 0) continue;
      added.push(Array.from(res.subarray(0, s)).sort((a, b) => a - b));
    }
    for (const r of added) {
      // forward subsumption: a live clause without x that subsumes r makes r redundant
      const sr = signature(r);
      let min = r.length ? r[0] : -1;
      for (let k = 1; k < r.length; k++) if (occ[r[k]].length < occ[min].length) min = r[k];
      let sub = false;
      if (min >= 0 && r.length <= 12 && occ[min].length <= 256) {
        for (const id of occ[min]) {
          if (!alive[id] || (sig[id] & ~sr) !== 0) continue;
          const c = cls[id];
          if (c.length <= r.length && !c.some((l) => (l >> 1) === v) && subsumes(c, r)) { sub = true; break; }
        }
      }
      if (sub) { stats.subsumed++; continue; }
      record(1, r);
      const id = addClause(r);
      stats.resolvents++;
      for (let k = 0; k < r.length; k++) touched[r[k] >> 1] = 1;
      // backward subsumption: live clauses that r subsumes are removed
      if (r.length > 0 && r.length <= 8 && occ[min].length <= 256) {
        for (const other of liveOcc(min)) {
          if (other === id || (sr & ~sig[other]) !== 0) continue;
          const c = cls[other];
          if (c.some((l) => (l >> 1) === v)) continue;
          if (subsumes(r, c)) { removeClause(other); stats.subsumed++; }
        }
      }
    }
    // move the clauses with x or ¬x to the reconstruction stack and delete them
    for (const [list, pivot] of [[pos, 2 * v], [neg, 2 * v + 1]] as const) {
      for (const id of list) {
        if (!alive[id]) continue;
        const c = cls[id];
        stack.push(dimacs(pivot));
        for (let k = 0; k < c.length; k++) stack.push(dimacs(c[k]));
        stack.push(0);
        removeClause(id);
      }
    }
    occ[2 * v].length = 0; occ[2 * v + 1].length = 0;
    eliminated[v] = 1;
    stats.eliminated++;
    return true;
  };

  // order: cheapest first (product of the two occurrence counts), ties by variable
  const order: number[] = [];
  if (empty) { /* the formula is refuted by unit propagation: nothing to eliminate */ }
  for (let v = 0; v < n; v++) if (!frozen[v] && occ[2 * v].length + occ[2 * v + 1].length > 0) order.push(v);
  const cost = (v: number) => occ[2 * v].length * occ[2 * v + 1].length;
  order.sort((a, b) => cost(a) - cost(b) || a - b);
  for (const v of order) { if (steps > maxSteps || empty) break; tryEliminate(v); }
  // a second round over the variables the first round's resolvents touched
  if (steps <= maxSteps && !empty) {
    const again: number[] = [];
    for (let v = 0; v < n; v++) if (touched[v] && !eliminated[v]) again.push(v);
    again.sort((a, b) => cost(a) - cost(b) || a - b);
    for (const v of again) { if (steps > maxSteps) break; tryEliminate(v); }
  }
  stats.steps = steps;

  // ---- the reduced formula ----
  const out = new IntVec(input.length + 16);
  let clauses = 0;
  if (empty) { out.push(0); clauses++; }
  for (let id = 0; id < cls.length && !empty; id++) {
    if (!alive[id]) continue;
    const c = cls[id];
    for (let k = 0; k < c.length; k++) out.push(dimacs(c[k]));
    out.push(0);
    clauses++;
  }
  return { lits: out.view(), clauses, proof: proof.view(), eliminated, stack: stack.view(), refuted, stats };
}

/** Extends a model of the reduced formula (value per variable, 1 true, 0 false) to the original
 * formula, in place: the stack's clauses in reverse order, each made true by its pivot if the
 * model leaves it false. */
export function extendModel(model: Uint8Array, stack: Int32Array): void {
  // record starts, scanned forward once
  const starts: number[] = [];
  for (let i = 0; i < stack.length; ) { starts.push(i); i++; while (stack[i] !== 0) i++; i++; }
  for (let r = starts.length - 1; r >= 0; r--) {
    let i = starts[r];
    const pivot = stack[i++];
    let sat = false;
    for (; stack[i] !== 0; i++) {
      const d = stack[i];
      if ((model[(d < 0 ? -d : d) - 1] === 1) === d > 0) { sat = true; }
    }
    if (!sat) model[(pivot < 0 ? -pivot : pivot) - 1] = pivot > 0 ? 1 : 0;
  }
}
