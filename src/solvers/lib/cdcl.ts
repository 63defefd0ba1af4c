// Conflict-driven clause learning (CDCL) SAT solver with DRAT proof output.
//
// The design follows MiniSat 2.2 (Eén & Sörensson, "An extensible SAT-solver", SAT 2003, and the
// MiniSat 2.2 sources) with the clause management of Glucose (Audemard & Simon, "Predicting
// learnt clauses quality in modern SAT solvers", IJCAI 2009):
//   - unit propagation with two watched literals and a blocking literal per watch (Moskewicz et
//     al., "Chaff", DAC 2001; Chu, Harwood & Stuckey, "Cache conscious data structures for
//     Boolean satisfiability solvers", JSAT 6, 2009); binary clauses are propagated from the
//     watch entry alone;
//   - first-UIP conflict analysis (Marques-Silva & Sakallah, GRASP, 1999; Zhang et al.,
//     ICCAD 2001) with recursive clause minimisation (Sörensson & Biere, "Minimizing learned
//     clauses", SAT 2009), using MiniSat's abstract-level filter;
//   - EVSIDS decisions (exponential VSIDS, MiniSat: bump by an increment that grows by 1/0.95 per
//     conflict, rescaled at 1e100) over a binary max-heap of variables;
//   - phase saving (Pipatsrisawat & Darwiche, SAT 2007), initial phase false as in MiniSat;
//   - restarts and modes: by default the search alternates a focused mode (Glucose-style restarts:
//     when the fast exponential moving average of the learnt clauses' LBD exceeds the slow one by
//     25 % (Biere & Fröhlich, "Evaluating CDCL restart schemes", POS 2015: α_fast = 2^-5,
//     α_slow = 2^-14), at least 50 conflicts apart, blocked while the trail is 1.4× its moving
//     average (Audemard & Simon, "Refining restarts strategies for SAT and UNSAT", CP 2012); saved
//     phases) and a stable mode (Luby restarts of unit 1024 conflicts, Luby, Sinclair & Zuckerman
//     1993; decisions follow the target phase), as CaDiCaL and Kissat do (Biere, Fazekas, Fleury &
//     Heisinger, "CaDiCaL, Kissat, Paracooba, Plingeling and Treengeling entering the SAT
//     Competition 2020"; Biere & Fleury, "Chasing target phases", POS 2020): the first switch after
//     1000 conflicts, each focused+stable pair twice as long as the one before. `restarts: 'luby'`
//     (unit 100, MiniSat's default, the seed code's) or 'glucose' keep one policy throughout;
//   - target phases and rephasing (Biere & Fleury 2020): at each conflict the trail below the
//     conflict's decision level is a conflict-free partial assignment; the longest one seen
//     (since the last rephasing or mode switch) is the target phase, which stable-mode decisions follow; the
//     longest since the last rephasing is also kept as the best phase. In stable mode every
//     1000·k conflicts (k rephasings so far) the saved phases are reset to best, original (false),
//     best, inverted (true) in turn;
//   - learnt-clause reduction by LBD (Audemard & Simon, "Predicting learnt clauses quality in
//     modern SAT solvers", IJCAI 2009) in three tiers as in CaDiCaL and Kissat: every
//     600 + 100·k conflicts (k reductions so far; Glucose uses 2000 + 300·k, CaDiCaL starts at
//     300) core clauses (LBD ≤ 2) stay for ever, tier-2 clauses (LBD ≤ 6) stay while used in a
//     conflict within the last two reductions, local clauses stay when used since the last one;
//     of the remaining ones the worse half by (LBD, activity) is deleted; reasons and binary
//     clauses are never deleted. A clause's LBD is recomputed when it takes part in a conflict;
//   - vivification of learnt clauses (Luo, Li, Xiao, Manyà & Lü, "An effective learnt clause
//     minimization approach for CDCL SAT solvers", IJCAI 2017; as in CaDiCaL and Kissat): every
//     second reduction, at level 0, core and tier-2 clauses not tried before are shortened by
//     deciding the negations of their literals one by one (details at `vivify`), within 5 % of the
//     propagations the search made since the last round. The shortened clause is a RUP lemma of
//     the proof and the old one a deletion;
//   - the search for a new watch in a long clause starts where the previous search stopped
//     (Gent, "Optimal implementation of watched literals and more general techniques", JAIR 48,
//     2013).
// Proof: every learnt clause is written as a DRAT lemma, every reduced clause as a deletion
// `d …`, and the empty clause ends a refutation (Wetzler, Heule & Hunt, "DRAT-trim", SAT 2014).
// Learnt clauses of first-UIP analysis with minimisation and vivified clauses are RUP (reverse
// unit propagation) consequences, so the proof never needs RAT.
//
// Speed: clauses live in one Int32Array arena (header: size, flags|LBD<<3, activity as float32
// bits, search position; then the literals); watch lists are per-literal Int32Arrays of
// (blocker, clause<<1 | binary) pairs; the propagation loop allocates nothing. Literals are 2v (x_v) and 2v+1 (¬x_v), v 0-based.
// Determinism: the only randomness is a tiny seeded initial activity per variable (< 1e-5, it
// orders ties before the first conflict), from lib/rng.ts (with `initialOrder: 'index'` none: the
// activities then decrease with the index); everything else is a function of the clauses. There is no stability condition: CDCL is exact and, given time, always terminates.
import { createRng } from './rng.ts';

export interface CdclOptions {
  /** orders ties in the initial variable order when `initialOrder` is 'seeded' (default 0) */
  seed?: number;
  /** the variables' initial activities, i.e. the decision order until conflicts have bumped them:
   * 'seeded' (default: a permutation drawn from `seed`) or 'index' (the lowest variable first, as
   * MiniSat 2.2's all-zero start roughly does; for A/B runs: docs/sat.md, "44bits_11") */
  initialOrder?: 'index' | 'seeded';
  /** write a DRAT proof (default true) */
  proof?: boolean;
  /** the proof's size past which logging stops and `proofTruncated` is set (bytes of DRAT text) */
  maxProofBytes?: number;
  /** called every 1024 conflicts with the conflict count */
  progress?: (conflicts: number) => void;
  /** give up (status UNKNOWN) after this many conflicts */
  maxConflicts?: number;
  /** 'modes' (default: focused and stable phases alternating, as in CaDiCaL and Kissat), or one
   * policy throughout: 'luby' or 'glucose' */
  restarts?: 'glucose' | 'luby' | 'modes';
  /** target phases and rephasing in the stable phases of 'modes' (default true) */
  target?: boolean;
  /** vivification of learnt clauses (default true) */
  vivify?: boolean;
  /** vivification's propagations as a fraction of the search's since the last round (default 0.05) */
  vivifyEffort?: number;
  /** failed-literal probing at the vivification rounds (default false: not yet measured on the
   * corpus) */
  probe?: boolean;
  /** equivalent-literal substitution before the search and at the vivification rounds (default
   * false: not yet measured on the corpus) */
  substitute?: boolean;
  /** asked every 256 conflicts; true stops the search with status UNKNOWN (a caller's own clock:
   * the bench's CPU-time limit; the node's budget stops the worker instead) */
  stop?: () => boolean;
  /** variables (0-based, 1 = eliminated by preprocessing) the search never decides: they occur
   * in no clause, and the caller extends the model to them */
  eliminated?: Uint8Array;
}

export interface CdclStats {
  conflicts: number;
  decisions: number;
  propagations: number;
  restarts: number;
  learned: number;
  deleted: number;
  reductions: number;
  /** switches between focused and stable mode */
  modeSwitches: number;
  rephases: number;
  /** learnt clauses vivification shortened, and the literals it removed */
  vivified: number;
  vivifiedLits: number;
  /** literals probing found failed (their negation learnt as a unit) */
  failedLiterals: number;
  /** variables replaced by an equivalent literal */
  substituted: number;
}

export interface CdclResult {
  status: 'SAT' | 'UNSAT' | 'UNKNOWN';
  /** value per variable (1 true, 0 false) when SAT */
  model: Uint8Array | null;
  /** the proof as records [1 (add) | 2 (delete), DIMACS literals…, 0] when proof logging is on */
  proof: Int32Array | null;
  proofBytes: number;
  proofTruncated: boolean;
  lemmas: number;
  stats: CdclStats;
}

const HDR = 4;            // clause header words: size, flags, activity, search position
const F_LEARNT = 1, F_DELETED = 2, F_USED = 4;
// flags above the LBD: tried by vivification already; used twice since the last reduction
const F_VIVIFIED = 1 << 30, F_USED2 = 1 << 29, F_HIGH = F_VIVIFIED | F_USED2;
const LBD_MASK = (1 << 26) - 1;
const LBD_SHIFT = 3;
const CORE_LBD = 2, TIER2_LBD = 6;
const FIRST_REDUCE = 600, REDUCE_INC = 100;
const VAR_DECAY = 0.95, CLA_DECAY = 0.999;
const EMA_FAST = 1 / 32, EMA_SLOW = 1 / 16384, RESTART_MARGIN = 1.25, RESTART_MIN = 50;
const BLOCK_TRAIL = 1.4, EMA_TRAIL = 1 / 5000, BLOCK_MIN_CONFLICTS = 10000;
const LUBY_UNIT = 100;
// stable/focused modes (CaDiCaL, Kissat): the first switch after STABLE_INIT conflicts, each phase
// STABLE_FACTOR times longer than the one before; stable mode restarts by Luby with unit 1024
// (CaDiCaL's "reluctant doubling")
const STABLE_INIT = 1000, STABLE_FACTOR = 2, STABLE_LUBY_UNIT = 1024;
// rephasing (stable mode): every REPHASE_INT·k conflicts the saved phases are reset, cycling
// best, original, best, inverted
const REPHASE_INT = 1000;
// vivification: every VIVIFY_EVERY-th reduction, at most VIVIFY_EFFORT × the propagations the search
// made since the last round
const VIVIFY_EVERY = 2, VIVIFY_EFFORT = 0.05, VIVIFY_MIN = 5000;
const DEFAULT_MAX_PROOF_BYTES = 64 * 1024 * 1024;

/** Luby's sequence 1, 1, 2, 1, 1, 2, 4, … (MiniSat's formulation, base 2), 0-based index. */
function luby(i: number): number {
  let size = 1, seq = 0;
  while (size < i + 1) { seq++; size = 2 * size + 1; }
  let x = i;
  while (size - 1 !== x) { size = (size - 1) >> 1; seq--; x = x % size; }
  return 2 ** seq;
}

/** Decimal digits of |x| plus a sign character and the separating space (DRAT text size). */
function litBytes(l: number): number {
  const a = l < 0 ? -l : l;
  return (l < 0 ? 2 : 1) + (a < 10 ? 1 : a < 100 ? 2 : a < 1000 ? 3 : a < 10000 ? 4 : a < 100000 ? 5 : a < 1000000 ? 6 : 7);
}

/** Solves the CNF `lits` (signed DIMACS literals, each clause ended by 0) over variables 1..nVars. */
export function solveCdcl(nVars: number, lits: Int32Array, opts: CdclOptions = {}): CdclResult {
  const n = nVars;
  const nl = 2 * n;
  const logProof = opts.proof ?? true;
  const maxProofBytes = opts.maxProofBytes ?? DEFAULT_MAX_PROOF_BYTES;
  const maxConflicts = opts.maxConflicts ?? Infinity;

  // ---- assignment ----
  const val = new Int8Array(nl);          // per literal: 1 true, -1 false, 0 unassigned
  const level = new Int32Array(n);
  const reason = new Int32Array(n).fill(-1);
  const trail = new Int32Array(n);
  let trailLen = 0, qhead = 0;
  const trailLim = new Int32Array(n + 1);
  let dl = 0;                              // decision level
  const polarity = new Uint8Array(n).fill(1); // saved phase: 1 = negative literal

  // ---- clause arena ----
  let arenaBuf = new ArrayBuffer(4 * Math.max(1024, (lits.length + 4 * 1024) * 2));
  let arena = new Int32Array(arenaBuf);
  let arenaF = new Float32Array(arenaBuf);
  let arenaTop = 0, wasted = 0;
  let learnts = new Int32Array(1024);
  let nLearnts = 0;

  // ---- watches: per literal, (blocker, cref<<1 | binary) pairs; watches[l] holds the clauses
  // watching l, visited when l becomes false ----
  const watches: Int32Array[] = new Array(nl);
  const wsz = new Int32Array(nl);
  // one shared empty list until a literal is first watched: a literal that is never watched costs
  // no allocation (large formulas have millions of them)
  const NO_WATCHES = new Int32Array(0);
  for (let i = 0; i < nl; i++) watches[i] = NO_WATCHES;

  // ---- variable order ----
  const act = new Float64Array(n);
  let varInc = 1;
  let claInc = 1;
  const heap = new Int32Array(n);
  const heapIdx = new Int32Array(n).fill(-1);
  let heapSize = 0;

  // ---- scratch ----
  const seen = new Uint8Array(n);
  const learnt = new Int32Array(n + 1);
  const stack = new Int32Array(n + 1);
  const toClear = new Int32Array(n + 1);
  const levelStamp = new Int32Array(n + 2);
  const dirty = new Int32Array(nl);
  const dirtyMark = new Uint8Array(nl);
  let stampCounter = 0;

  // ---- proof ----
  let proof = logProof ? new Int32Array(1 << 16) : new Int32Array(0);
  let proofLen = 0, proofBytes = 0, lemmas = 0;
  let proofTruncated = false;

  const stats: CdclStats = { conflicts: 0, decisions: 0, propagations: 0, restarts: 0, learned: 0, deleted: 0, reductions: 0, modeSwitches: 0, rephases: 0, vivified: 0, vivifiedLits: 0, failedLiterals: 0, substituted: 0 };

  const proofPush = (x: number) => {
    if (proofLen === proof.length) { const g = new Int32Array(proof.length * 2); g.set(proof); proof = g; }
    proof[proofLen++] = x;
  };
  /** writes an addition (kind 1) or deletion (kind 2) of internal literals lits[from..to) */
  const proofRecord = (kind: number, src: Int32Array, from: number, to: number) => {
    if (!logProof || proofTruncated) return;
    let bytes = kind === 2 ? 4 : 2; // "d " and "0\n"
    for (let k = from; k < to; k++) { const l = src[k]; bytes += litBytes(l & 1 ? -((l >> 1) + 1) : (l >> 1) + 1); }
    if (proofBytes + bytes > maxProofBytes) { proofTruncated = true; return; }
    proofBytes += bytes;
    proofPush(kind);
    for (let k = from; k < to; k++) { const l = src[k]; proofPush(l & 1 ? -((l >> 1) + 1) : (l >> 1) + 1); }
    proofPush(0);
    if (kind === 1) lemmas++;
  };

  // ---- heap (max-heap on act) ----
  const heapUp = (i: number) => {
    const v = heap[i];
    const a = act[v];
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pv = heap[p];
      if (act[pv] >= a) break;
      heap[i] = pv; heapIdx[pv] = i; i = p;
    }
    heap[i] = v; heapIdx[v] = i;
  };
  const heapDown = (i: number) => {
    const v = heap[i];
    const a = act[v];
    for (;;) {
      let c = 2 * i + 1;
      if (c >= heapSize) break;
      if (c + 1 < heapSize && act[heap[c + 1]] > act[heap[c]]) c++;
      const cv = heap[c];
      if (act[cv] <= a) break;
      heap[i] = cv; heapIdx[cv] = i; i = c;
    }
    heap[i] = v; heapIdx[v] = i;
  };
  const heapInsert = (v: number) => {
    if (heapIdx[v] >= 0) return;
    heap[heapSize] = v; heapIdx[v] = heapSize; heapSize++;
    heapUp(heapSize - 1);
  };
  const heapPop = (): number => {
    const top = heap[0];
    heapIdx[top] = -1;
    heapSize--;
    if (heapSize > 0) { heap[0] = heap[heapSize]; heapIdx[heap[0]] = 0; heapDown(0); }
    return top;
  };
  const bumpVar = (v: number) => {
    if ((act[v] += varInc) > 1e100) {
      for (let i = 0; i < n; i++) act[i] *= 1e-100;
      varInc *= 1e-100;
    }
    if (heapIdx[v] >= 0) heapUp(heapIdx[v]);
  };

  // ---- clauses ----
  const ensureArena = (words: number) => {
    if (arenaTop + words <= arena.length) return;
    let cap = arena.length * 2;
    while (cap < arenaTop + words) cap *= 2;
    const buf = new ArrayBuffer(4 * cap);
    const a = new Int32Array(buf);
    a.set(arena.subarray(0, arenaTop));
    arenaBuf = buf; arena = a; arenaF = new Float32Array(buf);
  };
  const watchPush = (l: number, blocker: number, cw: number) => {
    let w = watches[l];
    const s = wsz[l];
    if (s + 2 > w.length) { const g = new Int32Array(Math.max(4, w.length * 2)); g.set(w); watches[l] = w = g; }
    w[s] = blocker; w[s + 1] = cw;
    wsz[l] = s + 2;
  };
  /** stores lits src[0..size) as a clause and watches its first two literals */
  const addClause = (src: Int32Array, size: number, learntFlag: boolean, lbd: number): number => {
    ensureArena(HDR + size);
    const c = arenaTop;
    arena[c] = size;
    arena[c + 1] = (learntFlag ? F_LEARNT : 0) | (lbd << LBD_SHIFT);
    arenaF[c + 2] = 0;
    arena[c + 3] = 2;
    for (let k = 0; k < size; k++) arena[c + HDR + k] = src[k];
    arenaTop += HDR + size;
    const bin = size === 2 ? 1 : 0;
    watchPush(src[0], src[1], (c << 1) | bin);
    watchPush(src[1], src[0], (c << 1) | bin);
    if (learntFlag) {
      if (nLearnts === learnts.length) { const g = new Int32Array(learnts.length * 2); g.set(learnts); learnts = g; }
      learnts[nLearnts++] = c;
    }
    return c;
  };

  const enqueue = (l: number, from: number) => {
    val[l] = 1; val[l ^ 1] = -1;
    const v = l >> 1;
    level[v] = dl; reason[v] = from;
    trail[trailLen++] = l;
  };

  /** Unit propagation from qhead; returns the conflicting clause or -1. The hot loop: the
   * mutable solver state it touches (queue head, trail length) is held in locals and written
   * back once, and enqueueing is inlined. */
  const propagate = (): number => {
    let confl = -1;
    let qh = qhead, tl = trailLen;
    // every array in locals: loads of closure variables are not hoisted out of the loop
    const a = arena, lvl = dl, val_ = val, trail_ = trail, level_ = level, reason_ = reason, watches_ = watches, wsz_ = wsz;
    while (qh < tl) {
      const p = trail_[qh++];
      const falseLit = p ^ 1;
      const ws = watches_[falseLit];
      const end = wsz_[falseLit];
      let i = 0, j = 0;
      while (i < end) {
        const blocker = ws[i];
        const cw = ws[i + 1];
        i += 2;
        const bv = val_[blocker];
        if (bv === 1) { ws[j++] = blocker; ws[j++] = cw; continue; }
        if ((cw & 1) !== 0) {
          ws[j++] = blocker; ws[j++] = cw;
          if (bv === 0) {
            val_[blocker] = 1; val_[blocker ^ 1] = -1;
            const v = blocker >> 1;
            level_[v] = lvl; reason_[v] = cw >> 1; trail_[tl++] = blocker;
            continue;
          }
          confl = cw >> 1;
          while (i < end) ws[j++] = ws[i++];
          break;
        }
        const c = cw >> 1;
        const c0 = c + HDR;
        let first = a[c0];
        if (first === falseLit) { first = a[c0 + 1]; a[c0] = first; a[c0 + 1] = falseLit; }
        const fv = val_[first];
        if (fv === 1) { ws[j++] = first; ws[j++] = cw; continue; }
        // look for a non-false literal, starting where the last search of this clause stopped
        // and wrapping around (Gent, "Optimal implementation of watched literals", JAIR 48, 2013)
        const stop = c0 + a[c];
        const from = c0 + a[c + 3];
        let k = from;
        for (; k < stop; k++) if (val_[a[k]] !== -1) break;
        if (k === stop) { for (k = c0 + 2; k < from; k++) if (val_[a[k]] !== -1) break; if (k === from) k = stop; }
        if (k < stop) {
          const lk = a[k];
          a[c0 + 1] = lk; a[k] = falseLit;
          a[c + 3] = k - c0;
          {
            let w = watches_[lk];
            const sz = wsz_[lk];
            if (sz + 2 > w.length) { const g = new Int32Array(Math.max(4, w.length * 2)); g.set(w); watches_[lk] = w = g; }
            w[sz] = first; w[sz + 1] = cw;
            wsz_[lk] = sz + 2;
          }
          continue;
        }
        ws[j++] = first; ws[j++] = cw;
        if (fv === 0) {
          val_[first] = 1; val_[first ^ 1] = -1;
          const v = first >> 1;
          level_[v] = lvl; reason_[v] = c; trail_[tl++] = first;
          continue;
        }
        confl = c;
        while (i < end) ws[j++] = ws[i++];
        break;
      }
      wsz_[falseLit] = j;
      if (confl >= 0) break;
    }
    stats.propagations += qh - qhead;
    qhead = confl >= 0 ? tl : qh;
    trailLen = tl;
    return confl;
  };

  const cancelUntil = (lvl: number, savePhases = true) => {
    if (dl <= lvl) return;
    const stop = trailLim[lvl];
    for (let i = trailLen - 1; i >= stop; i--) {
      const l = trail[i];
      const v = l >> 1;
      val[l] = 0; val[l ^ 1] = 0;
      reason[v] = -1;
      if (savePhases) polarity[v] = l & 1;
      heapInsert(v);
    }
    trailLen = stop; qhead = stop; dl = lvl;
  };

  const abstractLevel = (v: number) => 1 << (level[v] & 31);

  /** Sörensson & Biere's recursive test: is literal p implied by the other literals of the learnt clause? */
  const litRedundant = (p: number, abstractLevels: number, clearTop: { n: number }): boolean => {
    let sp = 0;
    stack[sp++] = p;
    const top = clearTop.n;
    while (sp > 0) {
      const q = stack[--sp];
      const qv = q >> 1;
      const c = reason[qv];
      const c0 = c + HDR, stop = c0 + arena[c];
      for (let k = c0; k < stop; k++) {
        const l = arena[k];
        const v = l >> 1;
        if (v === qv || seen[v] !== 0 || level[v] === 0) continue;
        if (reason[v] >= 0 && (abstractLevel(v) & abstractLevels) !== 0) {
          seen[v] = 1;
          stack[sp++] = l;
          toClear[clearTop.n++] = l;
        } else {
          for (let t = top; t < clearTop.n; t++) seen[toClear[t] >> 1] = 0;
          clearTop.n = top;
          return false;
        }
      }
    }
    return true;
  };
  const clearTop = { n: 0 };

  const bumpClause = (c: number) => {
    if ((arenaF[c + 2] += claInc) > 1e20) {
      for (let i = 0; i < nLearnts; i++) arenaF[learnts[i] + 2] *= 1e-20;
      claInc *= 1e-20;
    }
  };

  /** LBD (number of distinct decision levels) of lits src[0..size) */
  const computeLbd = (src: Int32Array, from: number, size: number): number => {
    stampCounter++;
    let lbd = 0;
    for (let k = from; k < from + size; k++) {
      const lv = level[src[k] >> 1];
      if (levelStamp[lv] !== stampCounter) { levelStamp[lv] = stampCounter; lbd++; }
    }
    return lbd;
  };

  /** First-UIP analysis of conflict `confl`; fills learnt[0..size) (asserting literal first,
   * a literal of the backjump level second) and returns size; sets `btLevel` and `learntLbd`. */
  let btLevel = 0, learntLbd = 0;
  const analyze = (confl: number): number => {
    let pathC = 0;
    let p = -1;
    let size = 1;
    let idx = trailLen - 1;
    let c = confl;
    for (;;) {
      const flags = arena[c + 1];
      if ((flags & F_LEARNT) !== 0) {
        bumpClause(c);
        // refresh the LBD of a learnt clause that takes part in a conflict (Glucose)
        // and mark it used: a tier-2 clause (LBD ≤ 6) then survives two reductions, a local one
        // the next (CaDiCaL's `used` counter)
        const lbd = (flags >>> LBD_SHIFT) & LBD_MASK;
        if (lbd > CORE_LBD) {
          const nlbd = computeLbd(arena, c + HDR, arena[c]);
          const newLbd = nlbd < lbd ? nlbd : lbd;
          arena[c + 1] = (flags & (7 | F_HIGH)) | F_USED | (newLbd <= TIER2_LBD ? F_USED2 : 0) | (newLbd << LBD_SHIFT);
        }
      }
      const c0 = c + HDR, stop = c0 + arena[c];
      const pv = p >> 1;
      for (let k = c0; k < stop; k++) {
        const q = arena[k];
        const v = q >> 1;
        if (v === pv || seen[v] !== 0 || level[v] === 0) continue;
        seen[v] = 1;
        bumpVar(v);
        if (level[v] >= dl) pathC++;
        else learnt[size++] = q;
      }
      while (seen[trail[idx] >> 1] === 0) idx--;
      p = trail[idx--];
      c = reason[p >> 1];
      seen[p >> 1] = 0;
      if (--pathC <= 0) break;
    }
    learnt[0] = p ^ 1;

    // recursive minimisation
    clearTop.n = 0;
    for (let k = 1; k < size; k++) toClear[clearTop.n++] = learnt[k];
    let abstractLevels = 0;
    for (let k = 1; k < size; k++) abstractLevels |= abstractLevel(learnt[k] >> 1);
    let j = 1;
    for (let k = 1; k < size; k++) {
      const l = learnt[k];
      if (reason[l >> 1] < 0 || !litRedundant(l, abstractLevels, clearTop)) learnt[j++] = l;
    }
    size = j;
    for (let t = 0; t < clearTop.n; t++) seen[toClear[t] >> 1] = 0;

    // backjump level: the highest level among the other literals, moved to position 1
    if (size === 1) btLevel = 0;
    else {
      let maxI = 1;
      for (let k = 2; k < size; k++) if (level[learnt[k] >> 1] > level[learnt[maxI] >> 1]) maxI = k;
      const t = learnt[maxI]; learnt[maxI] = learnt[1]; learnt[1] = t;
      btLevel = level[t >> 1];
    }
    learntLbd = computeLbd(learnt, 0, size);
    return size;
  };

  const isLocked = (c: number): boolean => {
    const l0 = arena[c + HDR];
    if (val[l0] === 1 && reason[l0 >> 1] === c) return true;
    const l1 = arena[c + HDR + 1];
    return val[l1] === 1 && reason[l1 >> 1] === c;
  };

  /** marks clause c deleted, writes the deletion to the proof and notes its watched literals, whose
   * lists `flushDeleted` then cleans */
  let nDirty = 0;
  const markDeleted = (c: number) => {
    arena[c + 1] |= F_DELETED;
    wasted += HDR + arena[c];
    stats.deleted++;
    proofRecord(2, arena, c + HDR, c + HDR + arena[c]);
    for (let w = 0; w < 2; w++) {
      const l = arena[c + HDR + w];
      if (dirtyMark[l] === 0) { dirtyMark[l] = 1; dirty[nDirty++] = l; }
    }
  };
  /** drops the deleted clauses' watches: only the lists of their two watched literals hold them */
  const flushDeleted = () => {
    for (let d = 0; d < nDirty; d++) {
      const l = dirty[d];
      dirtyMark[l] = 0;
      const ws = watches[l];
      const end = wsz[l];
      let j = 0;
      for (let i = 0; i < end; i += 2) {
        const cw = ws[i + 1];
        if ((arena[(cw >> 1) + 1] & F_DELETED) !== 0) continue;
        ws[j++] = ws[i]; ws[j++] = cw;
      }
      wsz[l] = j;
    }
    nDirty = 0;
  };

  /** Reduction of the learnt clauses in three tiers (Audemard & Simon, IJCAI 2009, for the LBD;
   * the tiers as in CaDiCaL and Kissat, Biere et al., SAT Competition 2017-2020 system
   * descriptions): core (LBD ≤ 2) kept for ever; tier 2 (LBD ≤ 6) kept while used in a conflict
   * within the last two reductions; local clauses kept when used since the last one. Of the rest
   * (and reasons and binary clauses are never touched) the worse half by (LBD, activity) goes. */
  /** Orders learnt clauses worst first: higher LBD, then lower activity, then older (smaller cref) */
  const worseFirst = (x: number, y: number): number => {
    const lx = (arena[x + 1] >>> LBD_SHIFT) & LBD_MASK, ly = (arena[y + 1] >>> LBD_SHIFT) & LBD_MASK;
    if (lx !== ly) return ly - lx;
    const ax = arenaF[x + 2], ay = arenaF[y + 2];
    if (ax !== ay) return ax - ay;
    return x - y;
  };
  const reduceDb = () => {
    stats.reductions++;
    const cand: number[] = [];
    let keep = 0;
    for (let i = 0; i < nLearnts; i++) {
      const c = learnts[i];
      const flags = arena[c + 1];
      const lbd = (flags >>> LBD_SHIFT) & LBD_MASK;
      if (lbd <= CORE_LBD || arena[c] === 2 || isLocked(c)) { learnts[keep++] = c; continue; }
      if ((flags & F_USED2) !== 0) { arena[c + 1] = flags & ~F_USED2; learnts[keep++] = c; continue; }
      if ((flags & F_USED) !== 0) { arena[c + 1] = flags & ~F_USED; learnts[keep++] = c; continue; }
      cand.push(c);
    }
    // worst first: higher LBD, then lower activity, then older (smaller cref) for determinism
    cand.sort(worseFirst);
    const remove = cand.length >> 1;
    for (let i = 0; i < cand.length; i++) {
      const c = cand[i];
      if (i < remove) markDeleted(c);
      else learnts[keep++] = c;
    }
    nLearnts = keep;
    flushDeleted();
    if (wasted > arenaTop / 2) collectGarbage();
  };

  /** Vivification of learnt clauses (Luo, Li, Xiao, Manyà & Lü, "An effective learnt clause
   * minimization approach for CDCL SAT solvers", IJCAI 2017; as in CaDiCaL's `vivify`): at level 0,
   * for a core or tier-2 clause C = (l1 … lk) the negations ¬l1, ¬l2, … are decided one by one
   * with unit propagation after each. A literal already false is implied false by the decisions
   * before it and leaves C; a literal already true (implied by the decisions) ends C there; a
   * conflict ends C at the decisions made. The shortened clause C' is a RUP consequence of the
   * clauses (C included), so it enters the proof as a lemma and C as a deletion. Returns false when
   * a unit it found refutes the formula at level 0. Bounded by a propagation budget. */
  const vivBuf = new Int32Array(n + 1), vivLits = new Int32Array(n + 1);
  const vivify = (budget: number): boolean => {
    const cand: number[] = [];
    for (let i = 0; i < nLearnts; i++) {
      const c = learnts[i];
      const flags = arena[c + 1];
      if ((flags & (F_VIVIFIED | F_DELETED)) !== 0 || arena[c] <= 2) continue;
      if (((flags >>> LBD_SHIFT) & LBD_MASK) > TIER2_LBD) continue;
      cand.push(c);
    }
    // best first: lower LBD, then higher activity, newer first (the reduction's order reversed)
    cand.sort((x, y) => worseFirst(y, x));
    const limit = stats.propagations + budget;
    let ok = true;
    // (clause references stay valid: growing the arena copies it at the same offsets)
    for (let ci = 0; ci < cand.length && ok && stats.propagations < limit; ci++) {
      const c = cand[ci];
      arena[c + 1] |= F_VIVIFIED;
      if (isLocked(c)) continue;
      const size = arena[c];
      // a copy: propagation reorders the clause's own literals as its watches move
      for (let i = 0; i < size; i++) vivLits[i] = arena[c + HDR + i];
      let k = 0;            // literals kept in vivBuf
      let satisfiedAt0 = false;
      for (let i = 0; i < size; i++) {
        const l = vivLits[i];
        const v = val[l];
        if (v === -1) continue;                              // implied false: leaves C
        if (v === 1) {
          if (level[l >> 1] === 0) { satisfiedAt0 = true; break; }
          vivBuf[k++] = l; break;                            // implied true: C ends here
        }
        vivBuf[k++] = l;
        trailLim[dl] = trailLen;
        dl++;
        enqueue(l ^ 1, -1);
        if (propagate() >= 0) break;                        // conflict: the decisions suffice
      }
      cancelUntil(0, false);
      // (a deleted clause leaves its watch lists at once: propagation would move its watches
      // to lists the flush does not visit)
      if (satisfiedAt0) { markDeleted(c); flushDeleted(); continue; }
      if (k >= size) continue;
      stats.vivified++;
      stats.vivifiedLits += size - k;
      proofRecord(1, vivBuf, 0, k);
      if (k === 1) {
        markDeleted(c); flushDeleted();
        enqueue(vivBuf[0], -1);
        if (propagate() >= 0) ok = false;
        continue;
      }
      const flags = arena[c + 1];
      const lbd = (flags >>> LBD_SHIFT) & LBD_MASK;
      markDeleted(c); flushDeleted();
      const nc = addClause(vivBuf, k, true, lbd < k ? lbd : k - 1);
      arena[nc + 1] |= F_VIVIFIED | (flags & (F_USED | F_USED2));
      arenaF[nc + 2] = arenaF[c + 2];
    }
    let keep = 0;
    for (let i = 0; i < nLearnts; i++) if ((arena[learnts[i] + 1] & F_DELETED) === 0) learnts[keep++] = learnts[i];
    nLearnts = keep;
    flushDeleted();
    if (wasted > arenaTop / 2) collectGarbage();
    return ok;
  };

  /** Compacts the arena, rewriting every clause reference (watches, reasons, learnt list). */
  const collectGarbage = () => {
    const buf = new ArrayBuffer(4 * Math.max(1024, (arenaTop - wasted) * 2));
    const na = new Int32Array(buf);
    const naF = new Float32Array(buf);
    let top = 0;
    // one linear pass copies the live clauses; the old activity slot (already copied) then holds
    // the clause's new position, so every reference is rewritten by one lookup
    let c = 0;
    while (c < arenaTop) {
      const size = arena[c];
      const flags = arena[c + 1];
      if ((flags & F_DELETED) === 0) {
        na[top] = size; na[top + 1] = flags; naF[top + 2] = arenaF[c + 2]; na[top + 3] = arena[c + 3];
        for (let k = 0; k < size; k++) na[top + HDR + k] = arena[c + HDR + k];
        arena[c + 2] = top;
        top += HDR + size;
      } else {
        arena[c + 2] = -1;
      }
      c += HDR + size;
    }
    for (let l = 0; l < nl; l++) {
      const ws = watches[l];
      const end = wsz[l];
      for (let i = 0; i < end; i += 2) { const cw = ws[i + 1]; ws[i + 1] = (arena[(cw >> 1) + 2] << 1) | (cw & 1); }
    }
    for (let i = 0; i < trailLen; i++) { const v = trail[i] >> 1; if (reason[v] >= 0) reason[v] = arena[reason[v] + 2]; }
    for (let i = 0; i < nLearnts; i++) learnts[i] = arena[learnts[i] + 2];
    arenaBuf = buf; arena = na; arenaF = naF; arenaTop = top; wasted = 0;
  };

  /** Failed-literal probing (Freeman, "Improvements to propositional satisfiability search
   * algorithms", 1995; Le Berre, "Exploiting the real power of unit propagation lookahead", SAT
   * 2001; as inprocessing in Lingeling and CaDiCaL): at level 0, a literal l that occurs negated in
   * a binary clause (so deciding it propagates) is decided and propagated; a conflict shows ¬l,
   * which is RUP (asserting l propagates to that conflict) and joins the proof and level 0 as a
   * unit. Each variable is probed once, in index order from where the last round stopped, within
   * the same budget rule as vivification. Returns false when a unit refutes the formula. */
  let probeNext = 0;
  const probeLit = new Int32Array(1);
  const probe = (budget: number): boolean => {
    const limit = stats.propagations + budget;
    for (let tried = 0; tried < n && stats.propagations < limit; tried++) {
      const v = probeNext;
      probeNext = probeNext + 1 === n ? 0 : probeNext + 1;
      if (val[2 * v] !== 0) continue; // (eliminated variables are in no clause: never a root)
      for (let sign = 0; sign < 2; sign++) {
        const l = 2 * v + sign;
        if (val[l] !== 0) continue;
        // a root worth probing: ¬l is watched by a binary clause (l's decision then implies its other literal)
        const ws = watches[l ^ 1];
        let hasBinary = false;
        for (let i = 1; i < wsz[l ^ 1]; i += 2) if ((ws[i] & 1) !== 0) { hasBinary = true; break; }
        if (!hasBinary) continue;
        trailLim[dl] = trailLen;
        dl++;
        enqueue(l, -1);
        const confl = propagate();
        cancelUntil(0, false);
        if (confl < 0) continue;
        stats.failedLiterals++;
        probeLit[0] = l ^ 1;
        proofRecord(1, probeLit, 0, 1);
        enqueue(l ^ 1, -1);
        if (propagate() >= 0) return false;
      }
    }
    return true;
  };

  /** Equivalent-literal substitution (Li, "Integrating equivalency reasoning into Davis-Putnam
   * procedure", AAAI 2000; Van Gelder, "Toward leaner binary-clause reasoning in a satisfiability
   * solver", AMAI 43, 2005; as in Lingeling, CaDiCaL and Kissat's `substitute`): at level 0 the
   * strongly connected components of the binary implication graph (Tarjan 1972, iteratively) are
   * classes of equivalent literals; each class is replaced by its literal of the smallest variable.
   * A class holding l and ¬l refutes the formula: ¬l is RUP (l reaches ¬l through binary clauses),
   * then the empty clause. Otherwise every clause with a replaced literal is rewritten: the new
   * clause is RUP while the binary clauses that make the equivalence are still there (asserting
   * ¬r propagates ¬x along them), so ALL rewritten clauses are added to the proof first and the old
   * ones deleted after; tautologies are deleted, duplicate literals merged, literals false at level
   * 0 dropped; clauses true at level 0 are left alone. A replaced variable then occurs in no clause; the
   * model gives it its representative's value (`substStack`, undone in reverse order). Returns
   * false when the formula is refuted. */
  const substStack: number[] = []; // pairs (variable, representative literal for its positive literal)
  const substitute = (): boolean => {
    // Tarjan over the unassigned literals; edges u → y for each binary clause (¬u ∨ y), found in
    // the watch list of ¬u with y as the blocker
    const index = new Int32Array(nl).fill(-1), low = new Int32Array(nl);
    const onStack = new Uint8Array(nl), sccStack = new Int32Array(nl), callStack = new Int32Array(nl), iter = new Int32Array(nl);
    const repr = new Int32Array(nl);
    for (let l = 0; l < nl; l++) repr[l] = l;
    let counter = 0, sp = 0, found = 0;
    for (let root = 0; root < nl; root++) {
      if (index[root] >= 0 || val[root] !== 0) continue;
      let cp = 0;
      callStack[cp++] = root; index[root] = low[root] = counter++; iter[root] = 0;
      sccStack[sp++] = root; onStack[root] = 1;
      while (cp > 0) {
        const u = callStack[cp - 1];
        const ws = watches[u ^ 1], end = wsz[u ^ 1];
        let pushed = false;
        while (iter[u] < end) {
          const i = iter[u]; iter[u] += 2;
          if ((ws[i + 1] & 1) === 0) continue;
          const y = ws[i];
          if (val[y] !== 0) continue;
          if (index[y] < 0) {
            index[y] = low[y] = counter++; iter[y] = 0;
            sccStack[sp++] = y; onStack[y] = 1;
            callStack[cp++] = y; pushed = true; break;
          }
          if (onStack[y] !== 0 && index[y] < low[u]) low[u] = index[y];
        }
        if (pushed) continue;
        cp--;
        if (cp > 0) { const p = callStack[cp - 1]; if (low[u] < low[p]) low[p] = low[u]; }
        if (low[u] === index[u]) {
          // pop the component; its representative: the literal of the smallest variable
          let top = sp;
          let r = u;
          do { top--; const x = sccStack[top]; if ((x >> 1) < (r >> 1)) r = x; } while (sccStack[top] !== u);
          for (let t = top; t < sp; t++) {
            const x = sccStack[t];
            onStack[x] = 0;
            if ((x ^ 1) === r) {
              // l and ¬l equivalent: ¬r is RUP, then the empty clause
              probeLit[0] = r ^ 1;
              proofRecord(1, probeLit, 0, 1);
              enqueue(r ^ 1, -1);
              propagate();
              return false;
            }
            repr[x] = r;
            if (x !== r) found++;
          }
          sp = top;
        }
      }
    }
    if (found === 0) return true;
    // consistency: the class of ¬x is the complement of the class of x, so repr(¬x) = ¬repr(x)
    // holds by the smallest-variable rule; count the replaced variables once
    const affected: number[] = [];
    for (let c = 0; c < arenaTop; c += HDR + arena[c]) {
      if ((arena[c + 1] & F_DELETED) !== 0) continue;
      const c0 = c + HDR;
      // a clause true at level 0 stays as it is (it may be a reason there; its replaced literals
      // cannot matter to it)
      let sat0 = false, hit = false;
      for (let k = c0; k < c0 + arena[c]; k++) {
        if (val[arena[k]] === 1) { sat0 = true; break; }
        if (repr[arena[k]] !== arena[k]) hit = true;
      }
      if (hit && !sat0) affected.push(c);
    }
    // phase 1: the rewritten clauses into the proof (the equivalences' binary clauses still there)
    const mark = new Int8Array(nl);
    const newOf: (Int32Array | null)[] = [];
    for (const c of affected) {
      const c0 = c + HDR;
      let k = 0, drop = false;
      for (let i = c0; i < c0 + arena[c]; i++) {
        const l = repr[arena[i]];
        if (mark[l ^ 1] !== 0) { drop = true; break; } // a tautology
        if (val[l] === -1 || mark[l] !== 0) continue;
        mark[l] = 1; vivBuf[k++] = l;
      }
      for (let i = c0; i < c0 + arena[c]; i++) mark[repr[arena[i]]] = 0;
      if (drop) { newOf.push(null); continue; }
      if (k === 0) {
        // every literal false at level 0: impossible after a complete propagation
        throw new Error('substitute: a clause falsified at level 0');
      }
      proofRecord(1, vivBuf, 0, k);
      newOf.push(vivBuf.slice(0, k));
    }
    // phase 2: the old clauses out, the new ones in
    const units: number[] = [];
    for (let a = 0; a < affected.length; a++) {
      const c = affected[a];
      const flags = arena[c + 1];
      const learntC = (flags & F_LEARNT) !== 0;
      const lbd = (flags >>> LBD_SHIFT) & LBD_MASK;
      markDeleted(c);
      const nc = newOf[a];
      if (!nc) continue;
      if (nc.length === 1) { units.push(nc[0]); continue; }
      const added = addClause(nc, nc.length, learntC, learntC ? Math.min(lbd, nc.length - 1) : 0);
      arena[added + 1] |= flags & F_HIGH;
    }
    flushDeleted();
    let keep = 0;
    for (let i = 0; i < nLearnts; i++) if ((arena[learnts[i] + 1] & F_DELETED) === 0) learnts[keep++] = learnts[i];
    nLearnts = keep;
    for (let v = 0; v < n; v++) {
      const r = repr[2 * v];
      if (r !== 2 * v) { substStack.push(v, r); stats.substituted++; }
    }
    for (const u of units) {
      if (val[u] === 1) continue;
      if (val[u] === -1) return false;
      enqueue(u, -1);
      if (propagate() >= 0) return false;
    }
    if (wasted > arenaTop / 2) collectGarbage();
    return true;
  };

  // ---- phases: saved (polarity), target and best (Biere & Fleury, "Chasing target phases",
  // POS 2020): the target phase is the assignment of the longest conflict-free trail seen since the
  // last rephasing, the best phase likewise; decisions in stable mode follow the target ----
  const target = new Uint8Array(n).fill(1);
  const best = new Uint8Array(n).fill(1);
  let targetAssigned = 0, bestAssigned = 0;
  let useTargetNow = false;
  /** at a conflict: the trail below the current decision level was propagated without conflict */
  const updateTargetAndBest = () => {
    if (dl === 0) return;
    const consistent = trailLim[dl - 1];
    if (useTargetNow && consistent > targetAssigned) {
      for (let i = 0; i < consistent; i++) { const l = trail[i]; target[l >> 1] = l & 1; }
      targetAssigned = consistent;
    }
    if (consistent > bestAssigned) {
      for (let i = 0; i < consistent; i++) { const l = trail[i]; best[l >> 1] = l & 1; }
      bestAssigned = consistent;
    }
  };

  const pickBranch = (): number => {
    const ph = useTargetNow ? target : polarity;
    while (heapSize > 0) {
      const v = heapPop();
      if (val[2 * v] === 0) return 2 * v + ph[v];
    }
    return -1;
  };

  // ---- load the clauses ----
  let unsat = false;
  const rng = createRng(opts.seed ?? 0);
  const initialOrder = opts.initialOrder ?? 'seeded';
  for (let v = 0; v < n; v++) act[v] = initialOrder === 'index' ? ((n - v) / n) * 1e-5 : rng.next() * 1e-5;
  const elim = opts.eliminated;
  for (let v = 0; v < n; v++) if (!elim || elim[v] === 0) heapInsert(v);
  {
    const buf = new Int32Array(nl + 1); // a tautology may hold both signs of every variable
    const mark = new Int8Array(nl); // 1 when the literal is in the current clause
    let size = 0, taut = false;
    for (let i = 0; i < lits.length && !unsat; i++) {
      const d = lits[i];
      if (d !== 0) {
        const l = d > 0 ? 2 * (d - 1) : 2 * (-d - 1) + 1;
        if (mark[l] !== 0) continue;         // duplicate literal
        if (mark[l ^ 1] !== 0) taut = true;  // x ∨ ¬x: always true
        mark[l] = 1;
        buf[size++] = l;
        continue;
      }
      for (let k = 0; k < size; k++) mark[buf[k]] = 0;
      if (!taut) {
        // drop literals false at level 0, skip clauses true at level 0
        let sat = false, j = 0;
        for (let k = 0; k < size; k++) {
          const l = buf[k];
          if (val[l] === 1) { sat = true; break; }
          if (val[l] === 0) buf[j++] = l;
        }
        if (!sat) {
          if (j === 0) unsat = true;
          else if (j === 1) { enqueue(buf[0], -1); if (propagate() >= 0) unsat = true; }
          else if (j === size) addClause(buf, size, false, 0);
          else {
            // the clause shrank by level-0 units: its stored form is a RUP lemma
            proofRecord(1, buf, 0, j);
            addClause(buf, j, false, 0);
          }
        }
      }
      size = 0; taut = false;
    }
  }

  // ---- search ----
  // restart policy: 'modes' alternates focused mode (Glucose's LBD-average restarts, saved phases)
  // and stable mode (Luby restarts of unit 1024, target phases, rephasing), as CaDiCaL and Kissat
  // do (Biere & Fleury, POS 2020; Biere, Fazekas, Fleury & Heisinger, SAT Competition 2020 system
  // descriptions); 'luby' and 'glucose' keep one policy throughout
  const policy = opts.restarts ?? 'modes';
  const withTarget = policy === 'modes' && (opts.target ?? true);
  const withVivify = opts.vivify ?? true;
  const withProbe = withVivify && (opts.probe ?? false);
  const withSubst = opts.substitute ?? false;
  let stable = false;
  let useLuby = policy === 'luby';
  let lubyUnit = LUBY_UNIT;
  let modeLen = STABLE_INIT, nextSwitch = policy === 'modes' ? STABLE_INIT : Infinity;
  let nextRephase = REPHASE_INT, rephaseCount = 0;
  let vivifyPropsMark = 0, reductionsSinceVivify = 0;
  let status: 'SAT' | 'UNSAT' | 'UNKNOWN' = 'UNKNOWN';
  if (unsat) status = 'UNSAT';
  else if (propagate() >= 0) status = 'UNSAT';
  if (status === 'UNKNOWN' && withSubst && !substitute()) status = 'UNSAT';
  let emaFast = 0, emaSlow = 0, emaTrail = 0;
  let conflictsSinceRestart = 0;
  let restartDue = false;
  let nextReduce = FIRST_REDUCE;
  let lubyIndex = 0;
  let lubyLimit = lubyUnit * luby(0);
  const progress = opts.progress;

  while (status === 'UNKNOWN') {
    const confl = propagate();
    if (confl >= 0) {
      stats.conflicts++;
      conflictsSinceRestart++;
      if (dl === 0) { status = 'UNSAT'; break; }
      if (withTarget) updateTargetAndBest();
      const size = analyze(confl);
      proofRecord(1, learnt, 0, size);
      // restart bookkeeping (Glucose): LBD and trail averages
      emaFast += EMA_FAST * (learntLbd - emaFast);
      emaSlow += EMA_SLOW * (learntLbd - emaSlow);
      if (!useLuby && stats.conflicts > BLOCK_MIN_CONFLICTS && conflictsSinceRestart >= RESTART_MIN && trailLen > BLOCK_TRAIL * emaTrail) {
        conflictsSinceRestart = 0; // a promising assignment: block the next restart
      }
      emaTrail += EMA_TRAIL * (trailLen - emaTrail);
      if (useLuby) restartDue = conflictsSinceRestart >= lubyLimit;
      else {
        // the slow average starts at 0: divide by 1 − (1 − α)^k to remove that bias
        const slow = emaSlow / (1 - Math.pow(1 - EMA_SLOW, Math.min(stats.conflicts, 1e6)));
        restartDue = conflictsSinceRestart >= RESTART_MIN && emaFast > RESTART_MARGIN * slow;
      }
      cancelUntil(btLevel);
      if (size === 1) enqueue(learnt[0], -1);
      else {
        const c = addClause(learnt, size, true, learntLbd);
        bumpClause(c);
        enqueue(learnt[0], c);
      }
      stats.learned++;
      varInc /= VAR_DECAY;
      claInc /= CLA_DECAY;
      if (stats.conflicts >= nextSwitch) {
        // switch mode; the phase after a stable one is STABLE_FACTOR times longer
        stable = !stable;
        stats.modeSwitches++;
        if (!stable) modeLen *= STABLE_FACTOR;
        nextSwitch = stats.conflicts + modeLen;
        useLuby = stable;
        lubyUnit = STABLE_LUBY_UNIT;
        lubyIndex = 0; lubyLimit = lubyUnit * luby(0);
        useTargetNow = stable && withTarget;
        targetAssigned = 0;
        restartDue = true;
      }
      if (stable && withTarget && stats.conflicts >= nextRephase) {
        // rephase: best, original (all false), best, inverted (all true), …
        rephaseCount++;
        stats.rephases++;
        const kind = rephaseCount & 3;
        if (kind === 1 || kind === 3) polarity.set(best);
        else polarity.fill(kind === 2 ? 1 : 0);
        target.set(polarity);
        targetAssigned = 0; bestAssigned = 0;
        nextRephase = stats.conflicts + REPHASE_INT * (rephaseCount + 1);
      }
      if ((stats.conflicts & 1023) === 0) progress?.(stats.conflicts);
      if (stats.conflicts >= maxConflicts) break;
      if ((stats.conflicts & 255) === 0 && opts.stop?.()) break;
      continue;
    }
    // no conflict: restart, reduce, or decide
    if (restartDue) {
      restartDue = false;
      stats.restarts++;
      conflictsSinceRestart = 0;
      if (useLuby) lubyLimit = lubyUnit * luby(++lubyIndex);
      cancelUntil(0);
      continue;
    }
    if (stats.conflicts >= nextReduce) {
      reduceDb();
      nextReduce = stats.conflicts + FIRST_REDUCE + REDUCE_INC * stats.reductions;
      if (withVivify && ++reductionsSinceVivify >= VIVIFY_EVERY) {
        reductionsSinceVivify = 0;
        cancelUntil(0);
        const budget = Math.max(VIVIFY_MIN, (opts.vivifyEffort ?? VIVIFY_EFFORT) * (stats.propagations - vivifyPropsMark));
        if (!vivify(budget) || (withProbe && !probe(budget)) || (withSubst && !substitute())) { status = 'UNSAT'; break; }
        vivifyPropsMark = stats.propagations;
        continue;
      }
    }
    const lit = pickBranch();
    if (lit < 0) { status = 'SAT'; break; }
    stats.decisions++;
    trailLim[dl] = trailLen;
    dl++;
    enqueue(lit, -1);
  }

  let model: Uint8Array | null = null;
  if (status === 'SAT') {
    model = new Uint8Array(n);
    for (let v = 0; v < n; v++) model[v] = val[2 * v] === 1 ? 1 : 0;
    // substituted variables take their representative's value, the latest substitution first
    for (let i = substStack.length - 2; i >= 0; i -= 2) {
      const v = substStack[i], r = substStack[i + 1];
      model[v] = model[r >> 1] ^ (r & 1);
    }
  }
  if (status === 'UNSAT') proofRecord(1, learnt, 0, 0); // the empty clause
  return {
    status, model,
    proof: logProof ? proof.slice(0, proofLen) : null,
    proofBytes, proofTruncated, lemmas, stats,
  };
}
