// Approximate minimum degree ordering on the quotient graph (Amestoy, Davis & Duff, "An
// approximate minimum degree ordering algorithm", SIAM J. Matrix Anal. Appl. 17(4), 1996, 886-905;
// George & Liu, "The evolution of the minimum degree ordering algorithm", SIAM Review 31, 1989).
//
// The elimination graph is never formed. Each eliminated pivot p becomes an element whose variable
// list Lp = (A_p ∪ ⋃_{e∈E_p} L_e) \ {p} stands for the clique that eliminating p creates; the
// elements in E_p are absorbed into it. A variable keeps its variable neighbours A_i (pruned of those
// an element already covers) and its elements E_i. Its exact external degree |⋃ L_e ∪ A_i| would cost
// set unions, so AMD bounds it by
//     d_i = min( n − k,  d_i_old + |Lp \ i|,  |A_i \ i| + |Lp \ i| + Σ_{e ∈ E_i \ p} |L_e \ Lp| )
// where the |L_e \ Lp| come from one scan of the elements adjacent to Lp (the w(e) counts of the
// paper, §4). Also from the paper: supervariables (variables with identical A_i and E_i, found by a
// hash of their lists, are merged and eliminated together: mass elimination), and aggressive element
// absorption (an element whose variables all lie in Lp is absorbed into p). Dense variables (degree
// > 10·√n, at least 16) are set aside and ordered last, as AMD does.
//
// The same quotient graph started with given elements instead of edges is a column ordering of
// an unsymmetric matrix for LU: rows of A are the initial elements over its columns, so the graph
// is that of AᵀA without forming it (the idea of COLAMD: Davis, Gilbert, Larimore & Ng, "A column
// approximate minimum degree ordering algorithm", ACM TOMS 30(3), 2004); see colamd.ts.
//
// Ties are broken deterministically (the most recently inserted variable of the lowest degree
// bucket); the same graph gives the same order.

const VAR = 0, ELEM = 1, DEAD = 2;

export interface QuotientGraphInput {
  /** number of variables */
  n: number;
  /** variable adjacency (symmetric; no self loops needed): neighbours of i in adjIdx[adjPtr[i]..adjPtr[i+1]) */
  adjPtr?: ArrayLike<number>;
  adjIdx?: ArrayLike<number>;
  /** initial elements, each a list of variables (for the column ordering) */
  elements?: ArrayLike<number>[];
}

/** AMD order: perm[k] is the variable eliminated k-th. */
export function amdOrder(g: QuotientGraphInput): Int32Array {
  if (g.elements === undefined && g.adjPtr && g.adjIdx) return amdFlat(g.n, g.adjPtr, g.adjIdx);
  return amdLists(g);
}

/** The same algorithm on JS lists, kept for the column ordering (initial elements). */
function amdLists(g: QuotientGraphInput): Int32Array {
  const n = g.n;
  const elementsIn = g.elements ?? [];
  const ne0 = elementsIn.length;
  const N = n + ne0; // node ids: variables 0..n-1, initial elements n..n+ne0-1
  const status = new Uint8Array(N);
  const nv = new Int32Array(N);           // supervariable weight
  const adj: number[][] = new Array(n);
  const elems: number[][] = new Array(n);
  const lst: number[][] = new Array(N);   // element variable lists
  const esize = new Float64Array(N);      // Σ nv over the live variables of an element
  const chain: number[][] = new Array(n); // variables merged into a principal one
  for (let i = 0; i < n; i++) {
    nv[i] = 1; elems[i] = []; chain[i] = [];
    const a: number[] = [];
    if (g.adjPtr && g.adjIdx) for (let p = g.adjPtr[i]; p < g.adjPtr[i + 1]; p++) { const j = g.adjIdx[p]; if (j !== i) a.push(j); }
    adj[i] = a;
  }
  for (let e = 0; e < ne0; e++) {
    const id = n + e;
    status[id] = ELEM;
    const vars = Array.from(elementsIn[e]);
    lst[id] = vars;
    esize[id] = vars.length;
    for (const v of vars) elems[v].push(id);
  }
  // initial degrees: |A_i| + Σ (|L_e| − 1), capped at n − 1
  const deg = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let d = adj[i].length;
    for (const e of elems[i]) d += lst[e].length - 1;
    deg[i] = Math.min(d, n - 1);
  }
  // dense variables are ordered last
  const denseLimit = Math.max(16, Math.floor(10 * Math.sqrt(n)));
  const dense: number[] = [];
  for (let i = 0; i < n; i++) if (g.elements === undefined && adj[i].length > denseLimit) { status[i] = DEAD; dense.push(i); }
  if (dense.length) for (let i = 0; i < n; i++) if (status[i] === VAR) adj[i] = adj[i].filter((j) => status[j] === VAR);

  // degree buckets (doubly linked)
  const head = new Int32Array(n + 1).fill(-1);
  const next = new Int32Array(n).fill(-1), prev = new Int32Array(n).fill(-1);
  const inBucket = new Int32Array(n).fill(-1);
  const insert = (i: number, d: number) => {
    inBucket[i] = d; prev[i] = -1; next[i] = head[d];
    if (head[d] >= 0) prev[head[d]] = i;
    head[d] = i;
  };
  const remove = (i: number) => {
    const d = inBucket[i];
    if (d < 0) return;
    if (prev[i] >= 0) next[prev[i]] = next[i]; else head[d] = next[i];
    if (next[i] >= 0) prev[next[i]] = prev[i];
    inBucket[i] = -1;
  };
  for (let i = n - 1; i >= 0; i--) if (status[i] === VAR) insert(i, deg[i]);

  const order = new Int32Array(n);
  let k = 0; // original variables ordered so far
  const mark = new Int32Array(N).fill(-1);
  const w = new Float64Array(N);
  let wflg = 1;
  let mindeg = 0;
  const live = n - dense.length;
  let eliminated = 0;
  const HASH = 1 << 20;
  const hashOf = new Int32Array(n);
  const hhead = new Int32Array(HASH).fill(-1), hnext = new Int32Array(n).fill(-1);

  while (eliminated < live) {
    // pivot: lowest non-empty bucket
    while (mindeg < n && head[mindeg] < 0) mindeg++;
    const p = head[mindeg];
    remove(p);
    // Lp: variables of the absorbed elements and of A_p
    const Lp: number[] = [];
    mark[p] = p;
    for (const e of elems[p]) {
      if (status[e] !== ELEM) continue;
      for (const v of lst[e]) if (status[v] === VAR && mark[v] !== p) { mark[v] = p; Lp.push(v); }
      status[e] = DEAD; lst[e] = [];
    }
    for (const v of adj[p]) if (status[v] === VAR && mark[v] !== p) { mark[v] = p; Lp.push(v); }
    order[k++] = p;
    for (const c of chain[p]) order[k++] = c;
    eliminated += nv[p];
    status[p] = ELEM; adj[p] = []; elems[p] = []; chain[p] = [];
    let degLp = 0;
    for (const v of Lp) degLp += nv[v];
    lst[p] = Lp; esize[p] = degLp;
    const nLeft = live - eliminated;
    if (!Lp.length) continue;

    // |L_e \ Lp| for the elements next to Lp, into w[e] − wflg
    for (const i of Lp) {
      remove(i);
      for (const e of elems[i]) {
        if (status[e] !== ELEM) continue;
        if (w[e] < wflg) w[e] = wflg + esize[e];
        w[e] -= nv[i];
      }
    }
    // degree update, list pruning (in place), hashes
    for (const i of Lp) {
      const Ei = elems[i];
      let dExt = 0;
      let h = p;
      let q = 0;
      for (let t = 0; t < Ei.length; t++) {
        const e = Ei[t];
        if (status[e] !== ELEM) continue;
        const we = w[e] - wflg;
        if (we <= 0) { status[e] = DEAD; lst[e] = []; continue; } // aggressive absorption
        dExt += we; Ei[q++] = e; h += e;
      }
      Ei[q++] = p;
      Ei.length = q;
      const Ai = adj[i];
      q = 0;
      for (let t = 0; t < Ai.length; t++) {
        const v = Ai[t];
        if (status[v] !== VAR || mark[v] === p || v === i) continue; // covered by p, or gone
        dExt += nv[v]; Ai[q++] = v; h += v;
      }
      Ai.length = q;
      const lpOther = degLp - nv[i];
      deg[i] = Math.max(0, Math.min(nLeft - nv[i], deg[i] + lpOther, dExt + lpOther));
      const hb = h % HASH;
      hashOf[i] = hb;
      hnext[i] = hhead[hb]; hhead[hb] = i;
    }
    // supervariables: equal hash, then equal lists (elements all contain p; compare the rest)
    for (const i0 of Lp) {
      const hb = hashOf[i0];
      if (hhead[hb] < 0) continue; // bucket done
      for (let i = hhead[hb]; i >= 0; i = hnext[i]) {
        if (status[i] !== VAR || hnext[i] < 0) continue;
        const stamp = -2 - i; // a private mark value for i's lists
        for (const e of elems[i]) mark[e] = stamp;
        for (const v of adj[i]) mark[v] = stamp;
        for (let j = hnext[i]; j >= 0; j = hnext[j]) {
          if (status[j] !== VAR) continue;
          if (elems[j].length !== elems[i].length || adj[j].length !== adj[i].length) continue;
          let same = true;
          for (const e of elems[j]) if (mark[e] !== stamp) { same = false; break; }
          if (same) for (const v of adj[j]) if (mark[v] !== stamp) { same = false; break; }
          if (!same) continue;
          // merge j into i
          nv[i] += nv[j];
          status[j] = DEAD;
          chain[i].push(j);
          for (const c of chain[j]) chain[i].push(c);
          chain[j] = []; adj[j] = []; elems[j] = [];
          deg[i] = Math.max(0, deg[i] - nv[j]);
        }
        for (const e of elems[i]) mark[e] = -1;
        for (const v of adj[i]) mark[v] = -1;
      }
      hhead[hb] = -1;
    }
    // back into the buckets; Lp keeps its principal variables only
    const kept: number[] = [];
    for (const i of Lp) {
      if (status[i] !== VAR) continue;
      kept.push(i);
      const d = Math.min(deg[i], n - 1);
      deg[i] = d;
      insert(i, d);
      if (d < mindeg) mindeg = d;
    }
    lst[p] = kept;
    wflg += n + 1; // every w[e] set in this step is below the new flag
    if (wflg > 2 ** 52) { w.fill(0); wflg = 1; }
  }
  for (const i of dense) order[k++] = i;
  if (k !== n) throw new Error(`amd: ordered ${k} of ${n} variables`);
  return order;
}

// ---------------------------------------------------------------------------------------------
// The symmetric ordering in flat integer arrays (the storage scheme of the paper, §3: one array iw
// holds every variable's list — its elements first, then its variables — and every element's list
// of variables; absorbed nodes point to their absorber; a new element is written at the end of iw,
// or over the pivot's own list when it has no elements, and iw is compacted when it runs out):
// no allocation per step. Per pivot p: Lp is built from the lists of p's elements and its own
// variables (those elements are absorbed); one scan of the elements of the variables of Lp gives
// w(e) = |Le \ Lp|; each variable of Lp gets the approximate degree bound, its lists pruned
// (elements with Le ⊆ Lp are absorbed: aggressive absorption; variables of Lp dropped, p added),
// and a hash of its lists; a variable left with no other neighbours is eliminated with p (mass
// elimination); variables of Lp with equal hash and identical lists are merged (supervariables).
// Ties: the most recently inserted variable of the lowest degree; the same graph, the same order.

const flip = (i: number) => -i - 2;

function amdFlat(n: number, adjPtr: ArrayLike<number>, adjIdx: ArrayLike<number>): Int32Array {
  const order = new Int32Array(n);
  let k = 0; // entries of order written
  if (n === 0) return order;
  const denseLimit = Math.max(16, Math.floor(10 * Math.sqrt(n)));
  const pe = new Int32Array(n), len = new Int32Array(n), elen = new Int32Array(n), nv = new Int32Array(n);
  const degree = new Int32Array(n), w = new Float64Array(n);
  const head = new Int32Array(n + 1).fill(-1), next = new Int32Array(n).fill(-1), last = new Int32Array(n).fill(-1);
  const hhead = new Int32Array(n).fill(-1), hnext = new Int32Array(n).fill(-1), hbucket = new Int32Array(n);
  const cnext = new Int32Array(n).fill(-1), ctail = new Int32Array(n); // members merged into a principal variable
  let nnz = 0;
  for (let i = 0; i < n; i++) for (let p = adjPtr[i]; p < adjPtr[i + 1]; p++) if (adjIdx[p] !== i) nnz++;
  const nzmax = nnz + Math.floor(nnz / 5) + 2 * n + 16;
  const iw = new Int32Array(nzmax);
  const dense = new Uint8Array(n);
  let cnz = 0;
  for (let i = 0; i < n; i++) {
    pe[i] = cnz;
    for (let p = adjPtr[i]; p < adjPtr[i + 1]; p++) { const j = adjIdx[p]; if (j !== i) iw[cnz++] = j; }
    len[i] = cnz - pe[i];
    if (len[i] > denseLimit) dense[i] = 1;
  }
  const emit = (i: number) => { for (let j = i; j !== -1; j = cnext[j]) order[k++] = j; };
  let nel = 0;
  const denseList: number[] = [];
  for (let i = 0; i < n; i++) {
    nv[i] = 1; w[i] = 1; ctail[i] = i;
    if (dense[i]) { nv[i] = 0; elen[i] = -1; pe[i] = -1; len[i] = 0; denseList.push(i); nel++; continue; }
    let d = 0;
    for (let p = pe[i]; p < pe[i] + len[i]; p++) if (!dense[iw[p]]) d++;
    degree[i] = d;
  }
  for (let i = 0; i < n; i++) {
    if (dense[i]) continue;
    if (degree[i] === 0) { elen[i] = -2; nel++; pe[i] = -1; len[i] = 0; w[i] = 0; order[k++] = i; continue; }
    const d = degree[i];
    next[i] = head[d];
    if (head[d] !== -1) last[head[d]] = i;
    head[d] = i;
  }
  let mindeg = 0, mark = 2, lemax = 0;
  while (nel < n) {
    // pivot of least approximate degree
    while (mindeg < n && head[mindeg] === -1) mindeg++;
    const kp = head[mindeg];
    if (next[kp] !== -1) last[next[kp]] = -1;
    head[mindeg] = next[kp];
    const elenk = elen[kp];
    let nvk = nv[kp];
    nel += nvk;
    emit(kp);
    // compaction when the new element might not fit at the end
    if (elenk > 0 && cnz + mindeg >= nzmax) {
      for (let j = 0; j < n; j++) { const p = pe[j]; if (p >= 0) { pe[j] = iw[p]; iw[p] = flip(j); } }
      let src = 0, dst = 0;
      while (src < cnz) {
        const j = flip(iw[src++]);
        if (j >= 0) {
          iw[dst] = pe[j]; pe[j] = dst++;
          for (let t = 0; t < len[j] - 1; t++) iw[dst++] = iw[src++];
        }
      }
      cnz = dst;
      if (cnz + mindeg >= nzmax) throw new Error('amd: workspace exhausted');
    }
    // the new element Lk
    let dk = 0;
    nv[kp] = -nvk;
    let p = pe[kp];
    const pk1 = elenk === 0 ? p : cnz;
    let pk2 = pk1;
    for (let k1 = 1; k1 <= elenk + 1; k1++) {
      let e: number, pj: number, ln: number;
      if (k1 > elenk) { e = kp; pj = p; ln = len[kp] - elenk; }
      else { e = iw[p++]; pj = pe[e]; ln = len[e]; }
      for (let k2 = 0; k2 < ln; k2++) {
        const i = iw[pj++];
        const nvi = nv[i];
        if (nvi <= 0) continue;
        dk += nvi; nv[i] = -nvi; iw[pk2++] = i;
        // out of its degree list
        if (next[i] !== -1) last[next[i]] = last[i];
        if (last[i] !== -1) next[last[i]] = next[i]; else head[degree[i]] = next[i];
      }
      if (e !== kp) { pe[e] = flip(kp); w[e] = 0; }
    }
    if (elenk !== 0) cnz = pk2;
    degree[kp] = dk; pe[kp] = pk1; len[kp] = pk2 - pk1; elen[kp] = -2;
    // |Le \ Lk| for the elements of the variables of Lk: w(e) − mark
    for (let pk = pk1; pk < pk2; pk++) {
      const i = iw[pk];
      const eln = elen[i];
      if (eln <= 0) continue;
      const nvi = -nv[i], wnvi = mark - nvi;
      for (let q = pe[i]; q < pe[i] + eln; q++) {
        const e = iw[q];
        let we = w[e];
        if (we >= mark) we -= nvi; else if (we !== 0) we = degree[e] + wnvi;
        w[e] = we;
      }
    }
    // degree bounds, pruning, aggressive absorption, mass elimination, hashes
    for (let pk = pk1; pk < pk2; pk++) {
      const i = iw[pk];
      const p1 = pe[i], p2 = p1 + elen[i] - 1;
      let pn = p1, h = 0, d = 0;
      for (let q = p1; q <= p2; q++) {
        const e = iw[q];
        if (w[e] === 0) continue;
        const dext = w[e] - mark;
        if (dext > 0) { d += dext; iw[pn++] = e; h += e; }
        else { pe[e] = flip(kp); w[e] = 0; }
      }
      elen[i] = pn - p1 + 1;
      const p3 = pn, p4 = p1 + len[i];
      for (let q = p2 + 1; q < p4; q++) {
        const j = iw[q];
        const nvj = nv[j];
        if (nvj <= 0) continue;
        d += nvj; iw[pn++] = j; h += j;
      }
      if (d === 0) { // i is adjacent to Lk alone: eliminated with k
        pe[i] = flip(kp);
        const nvi = -nv[i];
        dk -= nvi; nvk += nvi; nel += nvi;
        nv[i] = 0; elen[i] = -1;
        emit(i);
      } else {
        degree[i] = Math.min(degree[i], d);
        iw[pn] = iw[p3]; iw[p3] = iw[p1]; iw[p1] = kp;
        len[i] = pn - p1 + 1;
        const hb = h % n;
        hnext[i] = hhead[hb]; hhead[hb] = i; hbucket[i] = hb;
      }
    }
    degree[kp] = dk;
    if (dk > lemax) lemax = dk;
    mark += lemax + 1;
    // supervariables: equal hash, then identical lists (all begin with k)
    for (let pk = pk1; pk < pk2; pk++) {
      let i = iw[pk];
      if (nv[i] >= 0) continue;
      const hb = hbucket[i];
      i = hhead[hb];
      if (i === -1) continue;
      hhead[hb] = -1;
      for (; i !== -1 && hnext[i] !== -1; i = hnext[i]) {
        const ln = len[i], eln = elen[i];
        for (let q = pe[i] + 1; q < pe[i] + ln; q++) w[iw[q]] = mark;
        let jlast = i;
        for (let j = hnext[i]; j !== -1;) {
          let ok = len[j] === ln && elen[j] === eln;
          for (let q = pe[j] + 1; ok && q < pe[j] + ln; q++) if (w[iw[q]] !== mark) ok = false;
          if (ok) {
            pe[j] = flip(i);
            nv[i] += nv[j]; nv[j] = 0; elen[j] = -1;
            cnext[ctail[i]] = j; ctail[i] = ctail[j];
            j = hnext[j]; hnext[jlast] = j;
          } else { jlast = j; j = hnext[j]; }
        }
        mark++;
      }
    }
    // the principal variables of Lk back into the degree lists
    p = pk1;
    for (let pk = pk1; pk < pk2; pk++) {
      const i = iw[pk];
      const nvi = -nv[i];
      if (nvi <= 0) continue;
      nv[i] = nvi;
      const d = Math.min(degree[i] + dk - nvi, n - nel - nvi);
      next[i] = head[d];
      if (head[d] !== -1) last[head[d]] = i;
      last[i] = -1;
      head[d] = i;
      if (d < mindeg) mindeg = d;
      degree[i] = d;
      iw[p++] = i;
    }
    nv[kp] = nvk;
    len[kp] = p - pk1;
    if (len[kp] === 0) { pe[kp] = -1; w[kp] = 0; }
    if (elenk !== 0) cnz = p;
  }
  for (const i of denseList) order[k++] = i;
  if (k !== n) throw new Error(`amd: ordered ${k} of ${n} variables`);
  return order;
}
