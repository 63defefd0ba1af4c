// DPLL for clauses of any length, with a DRAT refutation (`method: 'dpll'` on a given CNF).
//
// Method: Davis-Putnam-Logemann-Loveland (Davis, Logemann & Loveland, CACM 5, 394 (1962)) as an
// iterative search with chronological backtracking and no learning, unit propagation with two
// watched literals (Moskewicz et al., "Chaff", DAC 2001), and two-sided Jeroslow-Wang branching
// (Jeroslow & Wang, Ann. Math. AI 1, 1990; Hooker & Vinay, JAR 15, 1995): every clause not yet
// satisfied adds 2^−f to each of its f free literals; the variable with the largest J(x) + J(¬x)
// is chosen, its sign with the larger J first; ties go to the earlier variable of a seeded
// permutation (the seed's only effect).
// Proof: a DPLL refutation is a tree-like resolution proof, written as DRAT: at a conflict under
// the branch literals l1..lk the clause ¬l1 ∨ … ∨ ¬lk is RUP (propagating l1..lk conflicts); when
// both branches of level k have failed, ¬l1 ∨ … ∨ ¬l(k−1) is RUP from the two clauses just
// written; the last one is the empty clause.
// (The built-in random-3-SAT mode of sat.ts keeps its own MOMS-branching DPLL, specialised to
// three literals per clause.)
import { createRng } from './rng.ts';

export interface DpllGeneralResult {
  status: 'SAT' | 'UNSAT';
  model: Uint8Array | null;
  proof: Int32Array | null;
  proofBytes: number;
  proofTruncated: boolean;
  lemmas: number;
  stats: { conflicts: number; decisions: number; propagations: number; restarts: number };
}

const digits = (a: number) => (a < 10 ? 1 : a < 100 ? 2 : a < 1000 ? 3 : a < 10000 ? 4 : a < 100000 ? 5 : 6);

/** Decides the CNF `lits` (signed DIMACS literals, clauses ended by 0) over variables 1..nVars. */
export function solveDpll(nVars: number, lits: Int32Array, opts: { seed?: number; proof?: boolean; maxProofBytes?: number; progress?: (decisions: number) => void } = {}): DpllGeneralResult {
  const n = nVars, nl = 2 * n;
  const logProof = opts.proof ?? true;
  const maxProofBytes = opts.maxProofBytes ?? 64 * 1024 * 1024;
  // clauses: normalised (no duplicate literal, no tautology), internal literals 2v / 2v+1
  const starts: number[] = [];
  const store: number[] = [];
  const units: number[] = [];
  let emptyClause = false;
  {
    const mark = new Int8Array(nl);
    let cur: number[] = [];
    let taut = false;
    for (let i = 0; i < lits.length; i++) {
      const d = lits[i];
      if (d !== 0) {
        const l = d > 0 ? 2 * (d - 1) : 2 * (-d - 1) + 1;
        if (mark[l]) continue;
        if (mark[l ^ 1]) taut = true;
        mark[l] = 1; cur.push(l);
        continue;
      }
      for (const l of cur) mark[l] = 0;
      if (!taut) {
        if (cur.length === 0) emptyClause = true;
        else if (cur.length === 1) units.push(cur[0]);
        else { starts.push(store.length); store.push(cur.length); for (const l of cur) store.push(l); }
      }
      cur = []; taut = false;
    }
  }
  const m = starts.length;
  const cl = Int32Array.from(store); // [size, lits…] per clause
  const cs = Int32Array.from(starts);

  const val = new Int8Array(nl); // per literal: 1 true, −1 false, 0 free
  const trail = new Int32Array(n);
  let trailLen = 0, qhead = 0;
  const watchHead = new Int32Array(nl).fill(-1);
  const watchNext = new Int32Array(2 * m);
  const addWatch = (l: number, node: number) => { watchNext[node] = watchHead[l]; watchHead[l] = node; };
  for (let c = 0; c < m; c++) { addWatch(cl[cs[c] + 1], 2 * c); addWatch(cl[cs[c] + 2], 2 * c + 1); }

  const stats = { conflicts: 0, decisions: 0, propagations: 0, restarts: 0 };
  let proof = new Int32Array(logProof ? 4096 : 0);
  let proofLen = 0, proofBytes = 0, lemmas = 0, proofTruncated = false;
  const levelLit = new Int32Array(n + 1);
  const levelStart = new Int32Array(n + 1);
  const levelFlipped = new Uint8Array(n + 1);
  let level = 0;
  /** writes the lemma ¬levelLit[1..k] (the negated branch of the first k levels) */
  const emitNegatedPath = (k: number) => {
    if (!logProof || proofTruncated) return;
    let bytes = 2;
    for (let i = 1; i <= k; i++) bytes += 1 + (levelLit[i] & 1 ? 0 : 1) + digits((levelLit[i] >> 1) + 1);
    if (proofBytes + bytes > maxProofBytes) { proofTruncated = true; return; }
    proofBytes += bytes;
    while (proofLen + k + 2 > proof.length) { const g = new Int32Array(proof.length * 2); g.set(proof); proof = g; }
    proof[proofLen++] = 1;
    for (let i = 1; i <= k; i++) { const l = levelLit[i] ^ 1; proof[proofLen++] = l & 1 ? -((l >> 1) + 1) : (l >> 1) + 1; }
    proof[proofLen++] = 0;
    lemmas++;
  };

  const assign = (l: number) => { val[l] = 1; val[l ^ 1] = -1; trail[trailLen++] = l; };
  /** propagates from qhead; false on a conflict */
  const propagate = (): boolean => {
    while (qhead < trailLen) {
      const falseLit = trail[qhead++] ^ 1;
      stats.propagations++;
      let node = watchHead[falseLit], prev = -1;
      while (node !== -1) {
        const next = watchNext[node];
        const c = node >> 1, k = node & 1;
        const s = cs[c] + 1, size = cl[s - 1];
        // this watch is at position k of the clause, the other at 1 − k
        const other = cl[s + (k ^ 1)];
        if (val[other] === 1) { prev = node; node = next; continue; }
        let moved = false;
        for (let q = 2; q < size; q++) {
          const lq = cl[s + q];
          if (val[lq] !== -1) {
            cl[s + q] = cl[s + k]; cl[s + k] = lq;
            if (prev === -1) watchHead[falseLit] = next; else watchNext[prev] = next;
            addWatch(lq, node);
            moved = true;
            break;
          }
        }
        if (moved) { node = next; continue; }
        if (val[other] === -1) { qhead = trailLen; return false; }
        assign(other);
        prev = node; node = next;
      }
    }
    return true;
  };

  // seeded tie-break order
  const order = new Int32Array(n);
  for (let v = 0; v < n; v++) order[v] = v;
  const rng = createRng(opts.seed ?? 0);
  for (let i = n - 1; i > 0; i--) { const j = rng.int(i + 1); const t = order[i]; order[i] = order[j]; order[j] = t; }
  const J = new Float64Array(nl);
  const pickBranch = (): number => {
    J.fill(0);
    let any = false;
    for (let c = 0; c < m; c++) {
      const s = cs[c] + 1, size = cl[s - 1];
      let free = 0, sat = false;
      for (let q = 0; q < size; q++) { const x = val[cl[s + q]]; if (x === 1) { sat = true; break; } if (x === 0) free++; }
      if (sat) continue;
      any = true;
      const w = 2 ** -free;
      for (let q = 0; q < size; q++) { const l = cl[s + q]; if (val[l] === 0) J[l] += w; }
    }
    if (!any) return -1;
    let best = -1, bestScore = -1;
    for (let i = 0; i < n; i++) {
      const v = order[i];
      if (val[2 * v] !== 0) continue;
      const s = J[2 * v] + J[2 * v + 1];
      if (s > bestScore) { bestScore = s; best = J[2 * v] >= J[2 * v + 1] ? 2 * v : 2 * v + 1; }
    }
    return best;
  };

  let status: 'SAT' | 'UNSAT' = 'SAT';
  let ok = !emptyClause;
  for (const u of units) { if (!ok) break; if (val[u] === -1) ok = false; else if (val[u] === 0) assign(u); }
  if (ok) ok = propagate();
  if (!ok) { status = 'UNSAT'; emitNegatedPath(0); }
  else {
    for (;;) {
      if (!ok) {
        stats.conflicts++;
        emitNegatedPath(level);
        // pop the levels whose both branches have failed: each pop's clause is RUP
        while (level > 0 && levelFlipped[level]) { level--; emitNegatedPath(level); }
        if (level === 0) { status = 'UNSAT'; break; }
        const start = levelStart[level];
        for (let i = trailLen - 1; i >= start; i--) { const l = trail[i]; val[l] = 0; val[l ^ 1] = 0; }
        trailLen = start; qhead = start;
        levelLit[level] ^= 1;
        levelFlipped[level] = 1;
        assign(levelLit[level]);
        ok = propagate();
        continue;
      }
      const lit = pickBranch();
      if (lit === -1) break;
      stats.decisions++;
      if ((stats.decisions & 1023) === 0) opts.progress?.(stats.decisions);
      level++;
      levelStart[level] = trailLen;
      levelLit[level] = lit;
      levelFlipped[level] = 0;
      assign(lit);
      ok = propagate();
    }
  }
  let model: Uint8Array | null = null;
  if (status === 'SAT') {
    model = new Uint8Array(n);
    for (let v = 0; v < n; v++) model[v] = val[2 * v] === 1 ? 1 : 0;
  }
  return { status, model, proof: logProof ? proof.slice(0, proofLen) : null, proofBytes, proofTruncated, lemmas, stats };
}
