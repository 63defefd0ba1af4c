// Backward DRAT proof checker (RUP and RAT), written independently of the solver (cdcl.ts): its
// own parser, clause store, watch scheme, propagation and conflict analysis. It follows the
// method of DRAT-trim (Wetzler, Heule & Hunt, "DRAT-trim: efficient checking and trimming using
// expressive clausal proofs", SAT 2014; Heule, Hunt & Wetzler, "Trimming while checking clausal
// proofs", FMCAD 2013):
//   1. forward pass: the formula's clauses and the proof's lemmas are added (and deletions
//      applied) in order, with unit propagation at the top level after each step, until the
//      top level propagates to a conflict; that conflict's clauses are marked as the core;
//   2. backward pass: the proof is undone from that point backwards; a lemma is checked only if
//      it is in the core (some later core step used it). A lemma L is accepted if it is RUP
//      (assigning ¬L and unit propagating gives a conflict), or else RAT on its first literal p
//      (for every active clause C containing ¬p, L ∪ (C \ {¬p}) is RUP or a tautology). The
//      clauses taking part in each successful check's conflict are marked core (found by walking
//      the trail back from the conflict, as conflict analysis does);
//   3. propagation is core-first: units from core clauses are propagated to a fixpoint before a
//      single non-core clause may propagate, so that checks reuse the core and it stays small.
// Deletions follow DRAT-trim's default semantics: a deletion of a clause that is the reason of a
// top-level assignment (a unit under the current assignment) is ignored, as is a deletion of a
// clause that is not there; ignoring a deletion only keeps a (redundant) clause, so soundness
// is unaffected. The top-level assignment is rebuilt from scratch when a lemma that was the
// reason of a top-level literal is taken out, so every check sees exactly the top-level fixpoint
// of the formula at that point of the proof.
// Literals are the DIMACS integers themselves; arrays indexed by literal are offset by maxVar.

export interface DratCheckResult {
  ok: boolean;
  /** why the proof was rejected */
  reason?: string;
  /** lemmas (additions) in the proof */
  lemmas: number;
  /** lemmas checked (those in the core) */
  checked: number;
  /** lemmas that needed the RAT check */
  rat: number;
  /** deletions ignored (of a unit/reason clause, or of a clause not present) */
  ignoredDeletions: number;
}

export interface DratCheckOptions {
  /** called every 256 checked lemmas */
  progress?: () => void;
}

const NONE = -1, PROPAGATED = -2;

/**
 * Checks a text DRAT proof against a formula given as signed DIMACS literals (each clause ended by
 * 0) over variables 1..vars. Returns ok: false with a reason when the proof is malformed, derives
 * no conflict, or has a lemma that is neither RUP nor RAT.
 */
export function checkDrat(vars: number, formula: Int32Array, proofText: string, opts: DratCheckOptions = {}): DratCheckResult {
  const res: DratCheckResult = { ok: false, lemmas: 0, checked: 0, rat: 0, ignoredDeletions: 0 };

  // ---- clause store: literals of every clause (formula, then proof records) in one pool ----
  let pool = new Int32Array(Math.max(16, formula.length + (proofText.length >> 1)));
  let poolLen = 0;
  let cStart = new Int32Array(1024), cLen = new Int32Array(1024);
  let nClauses = 0;
  let maxVar = vars;
  // dedupe scratch: stamp[2|l| + (l < 0)] = 1 + the clause being stored (grows with the variables)
  let stamp = new Int32Array(2 * vars + 2);

  const newClause = (): number => {
    if (nClauses === cStart.length) {
      const s = new Int32Array(cStart.length * 2); s.set(cStart); cStart = s;
      const l = new Int32Array(cLen.length * 2); l.set(cLen); cLen = l;
    }
    cStart[nClauses] = poolLen; cLen[nClauses] = 0;
    return nClauses++;
  };
  const addLit = (c: number, lit: number) => {
    const key = lit < 0 ? -2 * lit + 1 : 2 * lit;
    if (key >= stamp.length) { const g = new Int32Array(Math.max(key + 2, stamp.length * 2)); g.set(stamp); stamp = g; }
    if (stamp[key] === c + 1) return; // duplicate literal
    stamp[key] = c + 1;
    if (poolLen === pool.length) { const g = new Int32Array(pool.length * 2); g.set(pool); pool = g; }
    pool[poolLen++] = lit;
    cLen[c]++;
    const v = lit < 0 ? -lit : lit;
    if (v > maxVar) maxVar = v;
  };

  // formula
  {
    let c = newClause();
    for (let i = 0; i < formula.length; i++) {
      const l = formula[i];
      if (l === 0) { c = newClause(); continue; }
      addLit(c, l);
    }
    nClauses--; // the clause opened after the last 0
  }
  const nFormula = nClauses;

  // proof: records of (kind, clause id, first literal as written = RAT pivot)
  let kinds = new Uint8Array(1024);
  let recClause = new Int32Array(1024);
  let pivot = new Int32Array(1024);
  let nRec = 0;
  {
    const t = proofText;
    const len = t.length;
    let pos = 0, line = 1;
    let cur = -1, deleting = false, first = 0;
    while (pos < len) {
      const ch = t.charCodeAt(pos);
      if (ch === 10) { line++; pos++; continue; }
      if (ch === 32 || ch === 9 || ch === 13) { pos++; continue; }
      if (ch === 99 /* c */ && cur < 0) { while (pos < len && t.charCodeAt(pos) !== 10) pos++; continue; }
      if (ch === 100 /* d */) {
        if (cur >= 0) return { ...res, reason: `proof line ${line}: 'd' inside a clause` };
        deleting = true; pos++; continue;
      }
      let p = pos, neg = false, v = 0, digits = 0;
      if (ch === 45) { neg = true; p++; }
      while (p < len) { const d = t.charCodeAt(p) - 48; if (d < 0 || d > 9) break; v = v * 10 + d; digits++; p++; }
      const nx = p < len ? t.charCodeAt(p) : 10;
      if (digits === 0 || !(nx === 32 || nx === 9 || nx === 13 || nx === 10) || v > 0x3fffffff) {
        return { ...res, reason: `proof line ${line}: '${t.slice(pos, Math.min(p + 1, pos + 20))}' is not a literal` };
      }
      pos = p;
      if (cur < 0) { cur = newClause(); first = 0; }
      if (v === 0) {
        if (nRec === kinds.length) {
          const k = new Uint8Array(kinds.length * 2); k.set(kinds); kinds = k;
          const r = new Int32Array(recClause.length * 2); r.set(recClause); recClause = r;
          const q = new Int32Array(pivot.length * 2); q.set(pivot); pivot = q;
        }
        kinds[nRec] = deleting ? 2 : 1; recClause[nRec] = cur; pivot[nRec] = first; nRec++;
        if (!deleting) res.lemmas++;
        cur = -1; deleting = false;
        continue;
      }
      const lit = neg ? -v : v;
      if (first === 0) first = lit;
      addLit(cur, lit);
    }
    if (cur >= 0 || deleting) return { ...res, reason: `proof line ${line}: the last clause is not ended by 0` };
  }
  stamp = new Int32Array(0);

  // ---- assignment, watches ----
  const V = maxVar;
  const value = new Int8Array(2 * V + 1);      // value[lit + V]: 1 true, -1 false, 0 unassigned
  const reasonOf = new Int32Array(V + 1).fill(NONE);
  const trailPos = new Int32Array(V + 1);
  const trail = new Int32Array(V + 1);
  let trailLen = 0;
  const seen = new Uint8Array(V + 1);
  const active = new Uint8Array(nClauses);
  const core = new Uint8Array(nClauses);
  // two watch lists per literal: non-core clauses at lit + V, core clauses at lit + V + W, so that
  // core-first propagation visits only the clauses of the mode it is in
  const W = 2 * V + 1;
  const watchList: Int32Array[] = [];
  const watchLen = new Int32Array(2 * W);
  for (let i = 0; i < 2 * W; i++) watchList.push(new Int32Array(4));
  let units = new Int32Array(64); // active clauses of one literal (not watched)
  let nUnits = 0;
  let topConflict = NONE;           // a clause false at the top level (set by attach)

  const isTrue = (l: number) => value[l + V] === 1;
  const isFalse = (l: number) => value[l + V] === -1;
  const assign = (l: number, why: number) => {
    value[l + V] = 1; value[V - l] = -1;
    const v = l < 0 ? -l : l;
    reasonOf[v] = why; trailPos[v] = trailLen; trail[trailLen++] = l;
  };
  const unassignTo = (len: number) => {
    while (trailLen > len) {
      const l = trail[--trailLen];
      value[l + V] = 0; value[V - l] = 0;
      reasonOf[l < 0 ? -l : l] = NONE;
    }
  };
  // a watch is a pair (blocker, clause): when the blocker (another literal of the clause) is
  // true, the clause is satisfied and is skipped without reading it (Chu, Harwood & Stuckey 2009)
  const watch = (lit: number, c: number, blocker: number) => {
    const k = lit + V + (core[c] !== 0 ? W : 0);
    let w = watchList[k];
    const n = watchLen[k];
    if (n + 2 > w.length) { const g = new Int32Array(w.length * 2); g.set(w); watchList[k] = w = g; }
    w[n] = blocker; w[n + 1] = c;
    watchLen[k] = n + 2;
  };
  const unwatch = (lit: number, c: number) => {
    const k = lit + V + (core[c] !== 0 ? W : 0);
    const w = watchList[k];
    const n = watchLen[k];
    for (let i = 1; i < n; i += 2) if (w[i] === c) { w[i - 1] = w[n - 2]; w[i] = w[n - 1]; watchLen[k] = n - 2; return; }
  };

  /** Makes clause c active at the current top-level assignment: watches two literals that are
   * not false if it has them, else the most recently falsified; assigns it if it is unit; records
   * a conflict if it is false. */
  const attach = (c: number) => {
    active[c] = 1;
    const s = cStart[c], n = cLen[c];
    if (n === 0) { topConflict = c; return; }
    if (n === 1) {
      if (nUnits === units.length) { const g = new Int32Array(units.length * 2); g.set(units); units = g; }
      units[nUnits++] = c;
      const l = pool[s];
      if (isFalse(l)) { if (topConflict === NONE) topConflict = c; } else if (!isTrue(l)) assign(l, c);
      return;
    }
    // order: non-false literals first, then false ones latest-falsified first
    for (let slot = 0; slot < 2; slot++) {
      let best = slot;
      for (let k = slot + 1; k < n; k++) {
        const a = pool[s + k], b = pool[s + best];
        const fa = isFalse(a), fb = isFalse(b);
        if (fb && (!fa || trailPos[Math.abs(a)] > trailPos[Math.abs(b)])) best = k;
      }
      const t = pool[s + slot]; pool[s + slot] = pool[s + best]; pool[s + best] = t;
    }
    watch(pool[s], c, pool[s + 1]); watch(pool[s + 1], c, pool[s]);
    const l0 = pool[s], l1 = pool[s + 1];
    if (isFalse(l0)) { if (topConflict === NONE) topConflict = c; } else if (isFalse(l1) && !isTrue(l0)) assign(l0, c);
  };
  const detach = (c: number) => {
    active[c] = 0;
    const n = cLen[c];
    if (n >= 2) { unwatch(pool[cStart[c]], c); unwatch(pool[cStart[c] + 1], c); }
    else if (n === 1) { for (let i = 0; i < nUnits; i++) if (units[i] === c) { units[i] = units[--nUnits]; break; } }
  };

  /** Visits the clauses watching `f` (just made false). filter: 0 all, 1 core only, 2 non-core
   * only; with `once`, stops after one unit propagation (core-first). Returns a conflicting
   * clause, PROPAGATED (with `once`), or NONE. */
  // where a `once` scan stopped: the next scan of the same list resumes there (the entries before
  // it are satisfied or core, and nothing is added to a false literal's list meanwhile)
  let resumeAt = 0;
  const scan = (f: number, filter: number, once: boolean, from = 0): number => {
    if (filter === 0) { const r = scan(f, 1, false); return r !== NONE ? r : scan(f, 2, false); }
    const k = f + V + (filter === 1 ? W : 0);
    const ws = watchList[k];
    const end = watchLen[k];
    let i = from, j = from, out = NONE;
    while (i < end) {
      const b = ws[i], c = ws[i + 1];
      i += 2;
      if (value[b + V] === 1) { ws[j++] = b; ws[j++] = c; continue; }
      const s = cStart[c];
      if (pool[s] === f) { pool[s] = pool[s + 1]; pool[s + 1] = f; }
      const other = pool[s];
      if (value[other + V] === 1) { ws[j++] = other; ws[j++] = c; continue; }
      const stop = s + cLen[c];
      let moved = false;
      for (let q = s + 2; q < stop; q++) {
        const lq = pool[q];
        if (value[lq + V] !== -1) { pool[s + 1] = lq; pool[q] = f; watch(lq, c, other); moved = true; break; }
      }
      if (moved) continue;
      ws[j++] = other; ws[j++] = c;
      if (value[other + V] === -1) { out = c; break; }
      assign(other, c);
      if (once) { out = PROPAGATED; break; }
    }
    resumeAt = j;
    while (i < end) ws[j++] = ws[i++];
    watchLen[k] = j;
    return out;
  };

  /** Unit propagation from trail position `from` to a fixpoint or a conflict (returned). */
  const propagate = (from: number, coreFirst: boolean): number => {
    if (topConflict !== NONE) return topConflict;
    if (!coreFirst) {
      for (let h = from; h < trailLen; h++) {
        const r = scan(-trail[h], 0, false);
        if (r >= 0) return r;
      }
      return NONE;
    }
    let hCore = from, hAll = from, at = 0;
    for (;;) {
      while (hCore < trailLen) {
        const r = scan(-trail[hCore++], 1, false);
        if (r >= 0) return r;
      }
      if (hAll >= trailLen) return NONE;
      const r = scan(-trail[hAll], 2, true, at);
      if (r >= 0) return r;
      if (r === NONE) { hAll++; at = 0; } else at = resumeAt;
    }
  };

  /** Makes c a core clause; an active one moves its two watches to the core lists. */
  const setCore = (c: number) => {
    if (core[c] !== 0) return;
    if (active[c] !== 0 && cLen[c] >= 2) {
      const s = cStart[c];
      unwatch(pool[s], c); unwatch(pool[s + 1], c);
      core[c] = 1;
      watch(pool[s], c, pool[s + 1]); watch(pool[s + 1], c, pool[s]);
    } else core[c] = 1;
  };

  /** Marks as core the conflict clause and every reason it depends on (walking the trail). */
  const markConflict = (confl: number, extraVar = 0) => {
    let pending = 0;
    const mark = (c: number, skipVar: number) => {
      setCore(c);
      const s = cStart[c], n = cLen[c];
      for (let q = 0; q < n; q++) {
        const v = Math.abs(pool[s + q]);
        if (v !== skipVar && seen[v] === 0) { seen[v] = 1; pending++; }
      }
    };
    if (confl >= 0) mark(confl, 0);
    if (extraVar > 0 && seen[extraVar] === 0) { seen[extraVar] = 1; pending++; }
    for (let t = trailLen - 1; t >= 0 && pending > 0; t--) {
      const v = Math.abs(trail[t]);
      if (seen[v] === 0) continue;
      seen[v] = 0; pending--;
      const r = reasonOf[v];
      if (r >= 0) mark(r, v);
    }
  };

  /** Top-level fixpoint from scratch: every active unit clause, then propagation. */
  const rebuildTop = (coreFirst: boolean): number => {
    unassignTo(0);
    topConflict = NONE;
    for (let i = 0; i < nUnits; i++) {
      const c = units[i], l = pool[cStart[c]];
      if (isFalse(l)) return c;
      if (!isTrue(l)) assign(l, c);
    }
    return propagate(0, coreFirst);
  };

  /** RUP check of the literals lits[0..n) at the current top level; marks the core on success. */
  const rup = (lits: Int32Array, n: number): boolean => {
    const base = trailLen;
    for (let q = 0; q < n; q++) {
      const l = lits[q];
      if (isTrue(l)) {
        // already implied at the top level: the conflict is ¬l against l's reasons
        unassignTo(base);
        markConflict(NONE, Math.abs(l));
        return true;
      }
      if (!isFalse(l)) assign(-l, NONE);
    }
    const confl = propagate(base, true);
    if (confl < 0) { unassignTo(base); return false; }
    markConflict(confl);
    unassignTo(base);
    return true;
  };

  // ---- deletion lookup: hash of the literal set → active clause ids ----
  const hashOf = (s: number, n: number): number => {
    let h1 = 0, h2 = 0;
    for (let q = 0; q < n; q++) {
      let x = Math.imul(pool[s + q] ^ 0x5bd1e995, 0x9e3779b1);
      x ^= x >>> 15;
      h1 = (h1 + x) | 0;
      h2 ^= Math.imul(x, 0x85ebca6b);
    }
    return (h1 >>> 0) * 1048576 + ((h2 >>> 12) & 0xfffff);
  };
  const byHash = new Map<number, number[]>();
  const index = (c: number) => {
    const h = hashOf(cStart[c], cLen[c]);
    const list = byHash.get(h);
    if (list) list.push(c); else byHash.set(h, [c]);
  };
  const mark2 = new Uint8Array(2 * V + 1);
  const findActive = (d: number): number => {
    const s = cStart[d], n = cLen[d];
    const list = byHash.get(hashOf(s, n));
    if (!list) return NONE;
    for (let q = 0; q < n; q++) mark2[pool[s + q] + V] = 1;
    let found = NONE;
    for (let i = list.length - 1; i >= 0 && found === NONE; i--) {
      const c = list[i];
      if (cLen[c] !== n) continue;
      let same = true;
      for (let q = 0; q < n && same; q++) same = mark2[pool[cStart[c] + q] + V] === 1;
      if (same) { found = c; list.splice(i, 1); }
    }
    for (let q = 0; q < n; q++) mark2[pool[s + q] + V] = 0;
    return found;
  };
  const isReason = (c: number): boolean => {
    const s = cStart[c], n = cLen[c];
    for (let q = 0; q < n; q++) { const l = pool[s + q]; if (isTrue(l) && reasonOf[Math.abs(l)] === c) return true; }
    return false;
  };

  // ---- forward pass ----
  for (let c = 0; c < nFormula; c++) { attach(c); index(c); }
  let confl = propagate(0, false);
  let last = -1; // index of the proof record whose addition led to the conflict
  const deleted = new Int32Array(nRec).fill(NONE); // the clause each applied deletion removed
  for (let r = 0; r < nRec && confl < 0; r++) {
    const c = recClause[r];
    if (kinds[r] === 1) {
      const base = trailLen;
      attach(c); index(c);
      confl = propagate(base, false);
      if (confl < 0 && cLen[c] === 0) confl = c;
      last = r;
      continue;
    }
    const d = findActive(c);
    if (d === NONE) { res.ignoredDeletions++; continue; }
    if (isReason(d)) { res.ignoredDeletions++; index(d); continue; }
    detach(d);
    deleted[r] = d;
  }
  if (confl < 0) return { ...res, reason: 'the proof does not derive the empty clause: no conflict at the top level after its last step' };

  // ---- backward pass ----
  markConflict(confl);
  if (last >= 0) {
    // the state after the conflict is not a fixpoint: take the last lemma out and rebuild
    const c = recClause[last];
    detach(c);
    if (rebuildTop(true) >= 0) return { ...res, reason: 'internal: the formula before the last lemma already conflicts' };
    if (core[c] !== 0 && !verify(last)) return res;
  }
  for (let r = last - 1; r >= 0; r--) {
    if (kinds[r] === 2) {
      const d = deleted[r];
      if (d === NONE) continue;
      const base = trailLen;
      attach(d);
      if (propagate(base, true) >= 0) return { ...res, reason: `internal: restoring the clause deleted by proof step ${r + 1} conflicts` };
      continue;
    }
    const c = recClause[r];
    const wasReason = isReason(c);
    detach(c);
    if (wasReason && rebuildTop(true) >= 0) return { ...res, reason: `internal: the formula before proof step ${r + 1} conflicts` };
    if (core[c] !== 0 && !verify(r)) return res;
  }
  res.ok = true;
  return res;

  /** Checks the lemma of proof record r (RUP, else RAT on its first literal); sets res.reason. */
  function verify(r: number): boolean {
    const c = recClause[r];
    res.checked++;
    if (opts.progress && (res.checked & 255) === 0) opts.progress();
    const s = cStart[c], n = cLen[c];
    const lits = pool.slice(s, s + n);
    if (rup(lits, n)) return true;
    const p = pivot[r];
    if (p === 0) { res.reason = `proof step ${r + 1}: the empty clause is not RUP`; return false; }
    res.rat++;
    // RAT: every resolvent on p with an active clause containing ¬p must be RUP
    const buf = new Int32Array(n + V);
    for (let d = 0; d < nClauses; d++) {
      if (active[d] === 0) continue;
      const ds = cStart[d], dn = cLen[d];
      let has = false;
      for (let q = 0; q < dn && !has; q++) has = pool[ds + q] === -p;
      if (!has) continue;
      let m = 0, taut = false;
      for (let q = 0; q < n; q++) { buf[m++] = lits[q]; mark2[lits[q] + V] = 1; }
      for (let q = 0; q < dn; q++) {
        const l = pool[ds + q];
        if (l === -p) continue;
        if (mark2[V - l] === 1) { taut = true; break; }
        if (mark2[l + V] === 0) { buf[m++] = l; mark2[l + V] = 1; }
      }
      for (let q = 0; q < m; q++) mark2[buf[q] + V] = 0;
      if (taut) continue;
      if (!rup(buf, m)) {
        res.reason = `proof step ${r + 1}: lemma '${Array.from(lits).join(' ')} 0' is neither RUP nor RAT on ${p} (the resolvent with clause ${d < nFormula ? `${d + 1} of the formula` : 'of a lemma'} is not RUP)`;
        return false;
      }
      setCore(d);
    }
    return true;
  }
}
