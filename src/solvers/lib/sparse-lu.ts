// Sparse direct solution of A·x = b for a general (unsymmetric) square matrix in compressed-column
// form, for systems too large for lib/dense.ts (power-flow Jacobians up to 20,000 unknowns).
//
// - Fill-reducing ordering: minimum degree on a symmetric graph (Tinney & Walker, "Direct solutions
//   of sparse network equations by optimally ordered triangular factorization", Proc. IEEE 55(11),
//   1967, scheme 2; George & Liu, "The evolution of the minimum degree ordering algorithm", SIAM
//   Review 31(1), 1989). The elimination graph is kept explicitly (adjacency sets), which costs
//   O(Σ d²) over the eliminated degrees d: cheap for the nearly planar graphs of networks and
//   meshes. `fill` counts the off-diagonal entries of the factor the ordering produces, so a
//   caller can refuse a graph whose factor would be dense before any numeric work.
// - Factorisation P·A·Q = L·U by the left-looking Gilbert-Peierls algorithm (Gilbert & Peierls,
//   "Sparse partial pivoting in time proportional to arithmetic operations", SIAM J. Sci. Stat.
//   Comput. 9(5), 1988; Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, §6.3): for
//   each column, a depth-first search in the graph of L gives the nonzero pattern of the sparse
//   triangular solve in topological order, then the numeric solve and a pivot choice. Q is the
//   given column order; rows are chosen by threshold partial pivoting with a preference for the
//   diagonal (the entry in the row numbered like the column is kept when it is at least
//   `pivotTol` times the largest candidate, so the fill-reducing order survives). Partial
//   pivoting bounds the growth in the usual sense (Golub & Van Loan, "Matrix Computations",
//   4th ed., §3.4.6); with pivotTol < 1 the bound loosens by 1/pivotTol per step, the usual
//   trade-off of KLU and UMFPACK. A column with no nonzero candidate is reported as singular.
// L has a unit diagonal (stored first in each column), U its diagonal last in each column.

export interface CscMatrix {
  n: number;
  colPtr: Int32Array;
  rowIdx: Int32Array;
  values: Float64Array;
}

export interface LuFactors {
  n: number;
  /** L by columns, row indices in pivot order, unit diagonal first */
  lp: Int32Array; li: Int32Array; lx: Float64Array;
  /** U by columns, row indices in pivot order, diagonal last */
  up: Int32Array; ui: Int32Array; ux: Float64Array;
  /** row i of A is pivot row pinv[i] */
  pinv: Int32Array;
  /** column k of the factor is column q[k] of A */
  q: Int32Array;
}

/** Builds a CSC matrix from triplets (duplicates are summed). */
export function cscFromTriplets(n: number, rows: ArrayLike<number>, cols: ArrayLike<number>, vals: ArrayLike<number>, count = rows.length): CscMatrix {
  const colPtr = new Int32Array(n + 1);
  for (let k = 0; k < count; k++) colPtr[cols[k] + 1]++;
  for (let j = 0; j < n; j++) colPtr[j + 1] += colPtr[j];
  const next = colPtr.slice(0, n);
  const ri = new Int32Array(count), rv = new Float64Array(count);
  for (let k = 0; k < count; k++) { const p = next[cols[k]]++; ri[p] = rows[k]; rv[p] = vals[k]; }
  // sum duplicates within each column (stamp array of the last position of each row)
  const where = new Int32Array(n).fill(-1);
  const outPtr = new Int32Array(n + 1);
  let nz = 0;
  for (let j = 0; j < n; j++) {
    const start = nz;
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i = ri[p];
      if (where[i] >= start) rv[where[i]] += rv[p];
      else { where[i] = nz; ri[nz] = i; rv[nz] = rv[p]; nz++; }
    }
    outPtr[j + 1] = nz;
  }
  return { n, colPtr: outPtr, rowIdx: ri.slice(0, nz), values: rv.slice(0, nz) };
}

/** y = A·x */
export function cscMatVec(a: CscMatrix, x: ArrayLike<number>, y: Float64Array = new Float64Array(a.n)): Float64Array {
  y.fill(0);
  for (let j = 0; j < a.n; j++) {
    const xj = x[j];
    if (xj === 0) continue;
    for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) y[a.rowIdx[p]] += a.values[p] * xj;
  }
  return y;
}

/** Binary min-heap of (key, node) pairs with lazy deletion: stale entries are skipped by the caller. */
class MinHeap {
  private keys: number[] = [];
  private nodes: number[] = [];
  get size(): number { return this.keys.length; }
  push(key: number, node: number): void {
    const k = this.keys, v = this.nodes;
    let i = k.length;
    k.push(key); v.push(node);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (k[p] < key || (k[p] === key && v[p] <= node)) break;
      k[i] = k[p]; v[i] = v[p]; i = p;
    }
    k[i] = key; v[i] = node;
  }
  /** pops the smallest (key, node) into out; ties broken by the lower node (determinism) */
  pop(out: { key: number; node: number }): void {
    const k = this.keys, v = this.nodes;
    out.key = k[0]; out.node = v[0];
    const lk = k.pop()!, lv = v.pop()!;
    const n = k.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      if (l + 1 < n && (k[l + 1] < k[l] || (k[l + 1] === k[l] && v[l + 1] < v[l]))) c = l + 1;
      if (lk < k[c] || (lk === k[c] && lv <= v[c])) break;
      k[i] = k[c]; v[i] = v[c]; i = c;
    }
    k[i] = lk; v[i] = lv;
  }
}

/**
 * Minimum-degree elimination order of the symmetric graph given by adjacency lists (CSR: the
 * neighbours of node i are adjIdx[adjPtr[i] .. adjPtr[i+1]); self loops and duplicates are
 * ignored). Returns the order (order[k] = node eliminated k-th) and the number of off-diagonal
 * entries of the lower factor it produces. Stops early, with `fill` > maxFill and no order,
 * when the factor would exceed maxFill entries.
 */
export function minimumDegreeOrder(n: number, adjPtr: ArrayLike<number>, adjIdx: ArrayLike<number>, maxFill = Infinity): { order: Int32Array | null; fill: number } {
  const adj: Set<number>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const s = new Set<number>();
    for (let p = adjPtr[i]; p < adjPtr[i + 1]; p++) if (adjIdx[p] !== i) s.add(adjIdx[p]);
    adj[i] = s;
  }
  // make the pattern symmetric (a caller may give one direction of an edge only)
  for (let i = 0; i < n; i++) for (const j of adj[i]) adj[j].add(i);
  const heap = new MinHeap();
  for (let i = 0; i < n; i++) heap.push(adj[i].size, i);
  const done = new Uint8Array(n);
  const order = new Int32Array(n);
  const top = { key: 0, node: 0 };
  let fill = 0;
  for (let k = 0; k < n; k++) {
    let v: number;
    for (;;) {
      heap.pop(top);
      v = top.node;
      if (!done[v] && top.key === adj[v].size) break; // skip stale entries
    }
    done[v] = 1;
    order[k] = v;
    const nb = adj[v];
    fill += nb.size;
    if (fill > maxFill) return { order: null, fill };
    // eliminating v joins its neighbours into a clique
    for (const u of nb) {
      const au = adj[u];
      au.delete(v);
      for (const w of nb) if (w !== u) au.add(w);
      heap.push(au.size, u);
    }
    adj[v] = new Set();
  }
  return { order, fill };
}

/** Growable typed arrays for the factors. */
function grow<T extends Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let cap = a.length * 2;
  while (cap < need) cap *= 2;
  const b = new (a.constructor as any)(cap) as T;
  b.set(a);
  return b;
}

/**
 * Factorises P·A·Q = L·U (see the file comment). `q` is the column order (null: natural order);
 * `pivotTol` in (0, 1] is the diagonal-preference threshold (1: plain partial pivoting). Returns
 * null when A is numerically singular (a column has no nonzero pivot candidate); `failure`, when
 * given, then receives the elimination step and the column of A where it happened.
 */
export function luFactor(a: CscMatrix, q: Int32Array | null = null, pivotTol = 0.1, failure?: { step: number; column: number }): LuFactors | null {
  const n = a.n;
  const { colPtr, rowIdx, values } = a;
  const order = q ?? Int32Array.from({ length: n }, (_, i) => i);
  const nnzA = colPtr[n];
  let li = new Int32Array(Math.max(16, 2 * nnzA + n)), lx = new Float64Array(li.length);
  let ui = new Int32Array(Math.max(16, 2 * nnzA + n)), ux = new Float64Array(ui.length);
  const lp = new Int32Array(n + 1), up = new Int32Array(n + 1);
  const pinv = new Int32Array(n).fill(-1);
  const x = new Float64Array(n);
  const xi = new Int32Array(n);          // reach set, topological order in xi[top..n)
  const mark = new Int32Array(n).fill(-1);
  const stack = new Int32Array(n), pos = new Int32Array(n);
  let lnz = 0, unz = 0;
  for (let k = 0; k < n; k++) {
    const col = order[k];
    lp[k] = lnz; up[k] = unz;
    // symbolic: depth-first search from each nonzero of A(:, col) in the graph of L
    let top = n;
    for (let p = colPtr[col]; p < colPtr[col + 1]; p++) {
      const r0 = rowIdx[p];
      if (mark[r0] === k) continue;
      let head = 0;
      stack[0] = r0;
      mark[r0] = k;
      const s0 = pinv[r0];
      pos[0] = s0 >= 0 ? lp[s0] + 1 : 0;
      while (head >= 0) {
        const j = stack[head];
        const s = pinv[j];
        let descended = false;
        if (s >= 0) {
          const end = lp[s + 1];
          for (let pp = pos[head]; pp < end; pp++) {
            const i = li[pp];
            if (mark[i] === k) continue;
            pos[head] = pp + 1;
            mark[i] = k;
            head++;
            stack[head] = i;
            const si = pinv[i];
            pos[head] = si >= 0 ? lp[si] + 1 : 0;
            descended = true;
            break;
          }
        }
        if (!descended) { head--; xi[--top] = j; }
      }
    }
    // numeric: x = L \ A(:, col) on the reach set
    for (let p = colPtr[col]; p < colPtr[col + 1]; p++) x[rowIdx[p]] += values[p];
    for (let t = top; t < n; t++) {
      const j = xi[t];
      const s = pinv[j];
      if (s < 0) continue;
      const xj = x[j];
      if (xj === 0) continue;
      for (let pp = lp[s] + 1; pp < lp[s + 1]; pp++) x[li[pp]] -= lx[pp] * xj;
    }
    // pivot choice among the rows not yet pivotal; U gets the pivotal ones
    let ipiv = -1, amax = 0;
    ui = grow(ui, unz + (n - top) + 1); ux = grow(ux, ui.length);
    for (let t = top; t < n; t++) {
      const i = xi[t];
      if (pinv[i] < 0) {
        const ax = Math.abs(x[i]);
        if (ax > amax) { amax = ax; ipiv = i; }
      } else { ui[unz] = pinv[i]; ux[unz] = x[i]; unz++; }
    }
    if (ipiv < 0 || !(amax > 0) || !Number.isFinite(amax)) {
      for (let t = top; t < n; t++) x[xi[t]] = 0;
      if (failure) { failure.step = k; failure.column = col; }
      return null;
    }
    if (pinv[col] < 0 && Math.abs(x[col]) >= pivotTol * amax) ipiv = col;
    const pivot = x[ipiv];
    ui[unz] = k; ux[unz] = pivot; unz++;
    pinv[ipiv] = k;
    li = grow(li, lnz + (n - top) + 1); lx = grow(lx, li.length);
    li[lnz] = ipiv; lx[lnz] = 1; lnz++;
    for (let t = top; t < n; t++) {
      const i = xi[t];
      if (pinv[i] < 0) { li[lnz] = i; lx[lnz] = x[i] / pivot; lnz++; }
      x[i] = 0;
    }
  }
  lp[n] = lnz; up[n] = unz;
  for (let p = 0; p < lnz; p++) li[p] = pinv[li[p]];
  return { n, lp, li: li.slice(0, lnz), lx: lx.slice(0, lnz), up, ui: ui.slice(0, unz), ux: ux.slice(0, unz), pinv, q: order };
}

/** Solves A·x = b with the factors of luFactor. */
export function luSolve(f: LuFactors, b: ArrayLike<number>, out: Float64Array = new Float64Array(f.n)): Float64Array {
  const { n, lp, li, lx, up, ui, ux, pinv, q } = f;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[pinv[i]] = b[i];
  for (let j = 0; j < n; j++) {
    const yj = y[j];
    if (yj === 0) continue;
    for (let p = lp[j] + 1; p < lp[j + 1]; p++) y[li[p]] -= lx[p] * yj;
  }
  for (let j = n - 1; j >= 0; j--) {
    const d = up[j + 1] - 1;
    const yj = (y[j] /= ux[d]);
    if (yj === 0) continue;
    for (let p = up[j]; p < d; p++) y[ui[p]] -= ux[p] * yj;
  }
  for (let k = 0; k < n; k++) out[q[k]] = y[k];
  return out;
}
