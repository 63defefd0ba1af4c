// Supernodal sparse Cholesky P·A·Pᵀ = L·Lᵀ of a symmetric positive definite matrix, left-looking
// by supernodes with dense block kernels. Sources:
//  - elimination tree by Liu's algorithm with path compression, and its postorder (Liu, "The role
//    of elimination trees in sparse factorization", SIAM J. Matrix Anal. Appl. 11(1), 1990; Davis,
//    "Direct Methods for Sparse Linear Systems", SIAM 2006, §4.1-4.3). The fill-reducing order is
//    composed with the postorder, which changes no fill and makes every supernode a run of
//    consecutive columns;
//  - column counts of L in O(nnz(A)·α) from the row-subtree skeleton: leaves of each row subtree
//    found by first descendants, their least common ancestors by a disjoint-set forest (Gilbert,
//    Ng & Peyton, "An efficient algorithm to compute row and column counts for sparse Cholesky
//    factorization", SIAM J. Matrix Anal. Appl. 15(4), 1994; Davis 2006 §4.5);
//  - fundamental supernodes (Liu, Ng & Peyton, "On finding supernodes for sparse matrix
//    computations", SIMAX 14(1), 1993) merged by relaxed amalgamation (Ashcraft & Grimes, "The
//    influence of relaxed supernode partitions on the multifrontal method", ACM TOMS 15(4), 1989),
//    with the size/zero-fraction thresholds (4, 16, 48 columns; 80 %, 10 %, 5 % explicit zeros)
//    that CHOLMOD uses (Chen, Davis, Hager & Rajamanickam, ACM TOMS 35(3), 2008);
//  - numeric factorisation left-looking by supernodes (Ng & Peyton, "Block sparse Cholesky
//    algorithms on advanced uniprocessor computers", SIAM J. Sci. Comput. 14(5), 1993; Rothberg &
//    Gupta, "Efficient sparse matrix factorization on high-performance workstations — exploiting
//    the memory hierarchy", ACM TOMS 17(3), 1991): each supernode is a dense column-major trapezoid
//    (its rows × its columns) in one Float64Array; every earlier supernode d that updates it gives
//    one dense product C = L_d(rows ≥ first, :)·L_d(rows in range, :)ᵀ (four columns per pass, so
//    each column of L_d is read once per four outputs), scattered by a relative row map; then the
//    diagonal block is factorised and the rows below it solved in place (dense left-looking
//    Cholesky on the trapezoid). Descendants wait in linked lists keyed by the next supernode they
//    update. No allocation per entry; one scratch buffer for C, grown when needed.
// A pivot that is not positive (or not finite) stops the factorisation: the matrix is not
// (numerically) positive definite, and the caller learns the elimination step and the column of A.
import type { CscMatrix } from './csc.ts';
import { transpose } from './csc.ts';

export interface SupernodalSymbolic {
  n: number;
  /** row/column k of the factor is row/column perm[k] of A (the given order, postordered) */
  perm: Int32Array;
  /** elimination tree of P·A·Pᵀ (postordered: parent[k] > k) */
  parent: Int32Array;
  /** entries of each column of L, diagonal included */
  colCount: Int32Array;
  /** Σ colCount: the entries of L */
  nnzL: number;
  nsuper: number;
  /** supernode s holds columns superStart[s] .. superStart[s+1]−1 */
  superStart: Int32Array;
  /** column → supernode */
  superOf: Int32Array;
  /** rows of supernode s in rowIdx[rowPtr[s] .. rowPtr[s+1]), sorted; its own columns first */
  rowPtr: Int32Array;
  rowIdx: Int32Array;
  /** offset of supernode s's block (rows × columns, column-major) in the values */
  valPtr: Float64Array;
  /** stored values (the blocks, with the explicit zeros of amalgamation and each diagonal block's upper part) */
  stored: number;
  /** the lower triangle of P·A·Pᵀ by columns, to scatter into the blocks */
  lower: CscMatrix;
  /** the numeric factorisation's scratch, exactly (entries): update products, packed rows, row map */
  workspace: { cbuf: number; pack: number; rel: number };
  /** bytes the factorisation holds at its peak beside A: values, indices, per-column and
   * per-supernode arrays, the lower triangle, the scratch, the solve's two vectors */
  bytes: number;
}

export interface SupernodalFactor extends SupernodalSymbolic { lx: Float64Array }

export type SupernodalOutcome = { ok: true; factor: SupernodalFactor } | { ok: false; column: number; pivot: number; step: number };

/** Elimination tree of the matrix whose upper triangle is `c` (column k holds rows i ≤ k). */
export function etree(c: CscMatrix): Int32Array {
  const n = c.n, { colPtr, rowIdx } = c;
  const parent = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      let i = rowIdx[p];
      while (i !== -1 && i < k) {
        const next = ancestor[i];
        ancestor[i] = k;
        if (next === -1) parent[i] = k;
        i = next;
      }
    }
  }
  return parent;
}

/** Postorder of a forest (children visited in increasing order): post[k] is the k-th node. */
export function postorder(parent: Int32Array): Int32Array {
  const n = parent.length;
  const head = new Int32Array(n).fill(-1), next = new Int32Array(n).fill(-1);
  for (let j = n - 1; j >= 0; j--) { const p = parent[j]; if (p !== -1) { next[j] = head[p]; head[p] = j; } }
  const post = new Int32Array(n), stack = new Int32Array(n);
  let k = 0;
  for (let root = 0; root < n; root++) {
    if (parent[root] !== -1) continue;
    let top = 0;
    stack[0] = root;
    while (top >= 0) {
      const p = stack[top], c = head[p];
      if (c === -1) { top--; post[k++] = p; } else { head[p] = next[c]; stack[++top] = c; }
    }
  }
  return post;
}

/**
 * Column counts of L for a postordered elimination tree (parent[j] > j) from the lower triangle
 * (column j holds rows i ≥ j), Gilbert-Ng-Peyton.
 */
export function columnCounts(lower: CscMatrix, parent: Int32Array): Int32Array {
  const n = lower.n, { colPtr, rowIdx } = lower;
  const first = new Int32Array(n).fill(-1), maxfirst = new Int32Array(n).fill(-1), prevleaf = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n), delta = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    ancestor[k] = k;
    delta[k] = first[k] === -1 ? 1 : 0; // a leaf of the tree: its own diagonal
    for (let j = k; j !== -1 && first[j] === -1; j = parent[j]) first[j] = k;
  }
  for (let j = 0; j < n; j++) {
    if (parent[j] !== -1) delta[parent[j]]--;
    const fj = first[j];
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i = rowIdx[p];
      if (i <= j || fj <= maxfirst[i]) continue; // j is not a leaf of row i's subtree
      maxfirst[i] = fj;
      const jprev = prevleaf[i];
      prevleaf[i] = j;
      delta[j]++;
      if (jprev === -1) continue; // first leaf: the path up to i is counted once
      let q = jprev;
      while (q !== ancestor[q]) q = ancestor[q];
      for (let s = jprev; s !== q;) { const sp = ancestor[s]; ancestor[s] = q; s = sp; }
      delta[q]--; // the paths from jprev and j meet at q
    }
    if (parent[j] !== -1) ancestor[j] = parent[j];
  }
  for (let j = 0; j < n; j++) if (parent[j] !== -1) delta[parent[j]] += delta[j];
  return delta;
}

/** Upper triangle (row ≤ column) of P·A·Pᵀ, rows unsorted; A is read in full, only its entries with pinv[i] ≤ pinv[j] are used. */
function permutedUpper(a: CscMatrix, pinv: Int32Array): CscMatrix {
  const n = a.n, { colPtr, rowIdx, values } = a;
  const cp = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) {
    const j2 = pinv[j];
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) if (pinv[rowIdx[p]] <= j2) cp[j2 + 1]++;
  }
  for (let k = 0; k < n; k++) cp[k + 1] += cp[k];
  const next = cp.slice(0, n);
  const ri = new Int32Array(cp[n]), rv = new Float64Array(cp[n]);
  for (let j = 0; j < n; j++) {
    const j2 = pinv[j];
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i2 = pinv[rowIdx[p]];
      if (i2 <= j2) { const q = next[j2]++; ri[q] = i2; rv[q] = values[p]; }
    }
  }
  return { n, colPtr: cp, rowIdx: ri, values: rv };
}

const NRELAX = [4, 16, 48], ZRELAX = [0.8, 0.1, 0.05];

/** Symbolic analysis of A (symmetric, full pattern) under the order `order` (then postordered). */
export function supernodalSymbolic(a: CscMatrix, order: Int32Array, maxFill = Infinity): SupernodalSymbolic | { tooLarge: number } {
  const n = a.n;
  // elimination tree under the given order, then its postorder composed into the order
  let pinv = new Int32Array(n);
  for (let k = 0; k < n; k++) pinv[order[k]] = k;
  const parent0 = etree(permutedUpper(a, pinv));
  const post = postorder(parent0);
  const perm = new Int32Array(n), ipost = new Int32Array(n);
  for (let k = 0; k < n; k++) { perm[k] = order[post[k]]; ipost[post[k]] = k; }
  const parent = new Int32Array(n);
  for (let k = 0; k < n; k++) { const p = parent0[post[k]]; parent[k] = p === -1 ? -1 : ipost[p]; }
  pinv = new Int32Array(n);
  for (let k = 0; k < n; k++) pinv[perm[k]] = k;
  const lower = transpose(permutedUpper(a, pinv)); // rows sorted, i ≥ j
  const colCount = columnCounts(lower, parent);
  let nnzL = 0;
  for (let j = 0; j < n; j++) nnzL += colCount[j];
  if (nnzL > maxFill) return { tooLarge: nnzL };

  // fundamental supernodes: j joins j−1's when j−1 is j's only child and L(:, j−1) = {j−1} ∪ L(:, j)
  const nchild = new Int32Array(n);
  for (let j = 0; j < n; j++) if (parent[j] !== -1) nchild[parent[j]]++;
  const fstart: number[] = [];
  for (let j = 0; j < n; j++) {
    if (j > 0 && parent[j - 1] === j && colCount[j - 1] === colCount[j] + 1 && nchild[j] === 1) continue;
    fstart.push(j);
  }
  const nf = fstart.length;
  fstart.push(n);
  const fsuperOf = new Int32Array(n);
  for (let s = 0; s < nf; s++) for (let j = fstart[s]; j < fstart[s + 1]; j++) fsuperOf[j] = s;
  const fparent = new Int32Array(nf);
  for (let s = 0; s < nf; s++) { const p = parent[fstart[s + 1] - 1]; fparent[s] = p === -1 ? -1 : fsuperOf[p]; }

  // relaxed amalgamation: a supernode merges into the group of its parent when the parent follows it
  // (it is the parent's last child), if the merged block stays small or mostly nonzero
  const gCols = new Float64Array(nf), gRows = new Float64Array(nf), gZeros = new Float64Array(nf);
  const merged = new Uint8Array(nf); // merged[s] = 1: s starts no group (it belongs to s−1's)
  for (let s = 0; s < nf; s++) { gCols[s] = fstart[s + 1] - fstart[s]; gRows[s] = colCount[fstart[s]]; }
  const entries = (c: number, r: number) => c * r - (c * (c - 1)) / 2;
  for (let s = nf - 2; s >= 0; s--) {
    if (fparent[s] !== s + 1) continue;
    const g = s + 1; // group starting at s+1 (groups are indexed by their first fundamental supernode)
    const nc = gCols[s] + gCols[g], nr = gCols[s] + gRows[g];
    const tot = entries(nc, nr);
    const zeros = tot - (entries(gCols[s], gRows[s]) - gZeros[s]) - (entries(gCols[g], gRows[g]) - gZeros[g]);
    const frac = zeros / tot;
    const ok = nc <= NRELAX[0] || (nc <= NRELAX[1] && frac < ZRELAX[0]) || (nc <= NRELAX[2] && frac < ZRELAX[1]) || frac < ZRELAX[2];
    if (!ok) continue;
    merged[g] = 1;
    gCols[s] = nc; gRows[s] = nr; gZeros[s] = zeros;
  }
  const starts: number[] = [];
  for (let s = 0; s < nf; s++) if (!merged[s]) starts.push(fstart[s]);
  const nsuper = starts.length;
  starts.push(n);
  const superStart = Int32Array.from(starts);
  const superOf = new Int32Array(n);
  for (let s = 0; s < nsuper; s++) for (let j = superStart[s]; j < superStart[s + 1]; j++) superOf[j] = s;
  const sparent = new Int32Array(nsuper);
  // supernodal tree; children lists to gather their row patterns
  const chead = new Int32Array(nsuper).fill(-1), cnext = new Int32Array(nsuper).fill(-1);
  let bound = 0;
  for (let s = 0; s < nsuper; s++) {
    const p = parent[superStart[s + 1] - 1];
    sparent[s] = p === -1 ? -1 : superOf[p];
    // the group is a path of the tree, so its rows lie in its columns and the last column's rows
    bound += superStart[s + 1] - superStart[s] + colCount[superStart[s + 1] - 1] - 1;
  }
  for (let s = nsuper - 1; s >= 0; s--) if (sparent[s] !== -1) { cnext[s] = chead[sparent[s]]; chead[sparent[s]] = s; }

  // row patterns: own columns, entries of A below them, and the children's rows below them
  const rowPtr = new Int32Array(nsuper + 1);
  const rowIdx = new Int32Array(bound);
  const mark = new Int32Array(n).fill(-1);
  const valPtr = new Float64Array(nsuper + 1);
  for (let s = 0; s < nsuper; s++) {
    const f = superStart[s], e = superStart[s + 1];
    let q = rowPtr[s];
    for (let j = f; j < e; j++) { rowIdx[q++] = j; mark[j] = s; }
    const tail = q;
    for (let j = f; j < e; j++) for (let p = lower.colPtr[j]; p < lower.colPtr[j + 1]; p++) {
      const i = lower.rowIdx[p];
      if (mark[i] !== s) { mark[i] = s; rowIdx[q++] = i; }
    }
    for (let c = chead[s]; c !== -1; c = cnext[c]) {
      for (let p = rowPtr[c] + (superStart[c + 1] - superStart[c]); p < rowPtr[c + 1]; p++) {
        const i = rowIdx[p];
        if (mark[i] !== s) { mark[i] = s; rowIdx[q++] = i; }
      }
    }
    rowIdx.subarray(tail, q).sort();
    rowPtr[s + 1] = q;
    valPtr[s + 1] = valPtr[s] + (q - rowPtr[s]) * (e - f);
  }
  // the blocks also hold amalgamation zeros and the diagonal blocks' upper parts: bounded too
  if (valPtr[nsuper] > 1.5 * maxFill) return { tooLarge: nnzL };
  // the numeric phase's scratch, update by update as supernodalNumeric meets them (a run of d's rows
  // below its columns that falls in one supernode's columns is one update), so that the memory a
  // factorisation needs is known before it starts
  let cbuf = 1024, pack = 1024, rel = 256;
  for (let d = 0; d < nsuper; d++) {
    const dp = rowPtr[d], dnr = rowPtr[d + 1] - dp, dnc = superStart[d + 1] - superStart[d];
    if (dnc >= 2 * PANEL) pack = Math.max(pack, dnr * dnc);
    for (let p0 = dnc; p0 < dnr;) {
      const e = superStart[superOf[rowIdx[dp + p0]] + 1];
      let p1 = p0;
      while (p1 < dnr && rowIdx[dp + p1] < e) p1++;
      const m1 = p1 - p0, m2 = dnr - p0;
      cbuf = Math.max(cbuf, m1 * m2); rel = Math.max(rel, m2);
      if (m1 >= 4 && dnc >= 4) pack = Math.max(pack, m2 * dnc);
      p0 = p1;
    }
  }
  const stored = valPtr[nsuper];
  const bytes = 8 * stored + 8 * (cbuf + pack) + 4 * rel + 4 * rowPtr[nsuper] // values, scratch, row indices
    + 20 * (nsuper + 1) + 12 * nsuper // rowPtr, superStart, valPtr; the numeric phase's head, link, pos
    + 20 * n + 16 * n // perm, parent, colCount, superOf, relmap; the solve's two vectors
    + 4 * (n + 1) + 12 * lower.colPtr[n]; // the lower triangle of P·A·Pᵀ
  return {
    n, perm, parent, colCount, nnzL, nsuper, superStart, superOf, rowPtr, rowIdx: rowIdx.slice(0, rowPtr[nsuper]),
    valPtr, stored, lower, workspace: { cbuf, pack, rel }, bytes,
  };
}

/** Numeric factorisation on a symbolic analysis. */
export function supernodalNumeric(sym: SupernodalSymbolic, progress?: (fraction: number) => void): SupernodalOutcome {
  const { n, nsuper, superStart, superOf, rowPtr, rowIdx, valPtr, lower } = sym;
  const lx = new Float64Array(sym.stored);
  const relmap = new Int32Array(n);
  const head = new Int32Array(nsuper).fill(-1), link = new Int32Array(nsuper).fill(-1);
  const pos = new Int32Array(nsuper);
  // scratch grows by doubling, never past the symbolic phase's exact need (sym.workspace)
  const ws = sym.workspace;
  let cbuf = new Float64Array(1024);
  let rel = new Int32Array(256);
  let pack = new Float64Array(1024);
  const tick = Math.max(1, nsuper >> 5);
  for (let s = 0; s < nsuper; s++) {
    const f = superStart[s], e = superStart[s + 1], nc = e - f;
    const rp = rowPtr[s], nr = rowPtr[s + 1] - rp, base = valPtr[s];
    for (let r = 0; r < nr; r++) relmap[rowIdx[rp + r]] = r;
    // A's lower columns into the block
    for (let j = f; j < e; j++) {
      const cb = base + (j - f) * nr;
      for (let p = lower.colPtr[j]; p < lower.colPtr[j + 1]; p++) lx[cb + relmap[lower.rowIdx[p]]] += lower.values[p];
    }
    // updates from the descendants waiting for s
    let d = head[s];
    head[s] = -1;
    while (d !== -1) {
      const nextD = link[d];
      const dp = rowPtr[d], dnr = rowPtr[d + 1] - dp, dnc = superStart[d + 1] - superStart[d], db = valPtr[d];
      const p0 = pos[d];
      let p1 = p0;
      while (p1 < dnr && rowIdx[dp + p1] < e) p1++;
      const m1 = p1 - p0, m2 = dnr - p0; // rows in s's columns; rows from s's first column on
      if (cbuf.length < m1 * m2) cbuf = new Float64Array(Math.min(ws.cbuf, Math.max(m1 * m2, 2 * cbuf.length)));
      if (rel.length < m2) rel = new Int32Array(Math.min(ws.rel, Math.max(m2, 2 * rel.length)));
      if (m1 >= 4 && dnc >= 4) {
        if (pack.length < m2 * dnc) pack = new Float64Array(Math.min(ws.pack, Math.max(m2 * dnc, 2 * pack.length)));
        packRows(lx, db + p0, dnr, dnc, m2, pack);
        syrkPacked(pack, dnc, dnc, 0, m2, m1, cbuf, 0, m2, false);
      } else syrkLower(lx, db + p0, dnr, dnc, m1, m2, cbuf);
      for (let r = 0; r < m2; r++) rel[r] = relmap[rowIdx[dp + p0 + r]];
      scatterSub(lx, base, nr, f, rowIdx, dp + p0, m1, m2, cbuf, rel);
      pos[d] = p1;
      if (p1 < dnr) { const t = superOf[rowIdx[dp + p1]]; link[d] = head[t]; head[t] = d; }
      d = nextD;
    }
    // dense left-looking Cholesky of the trapezoid (diagonal block and the rows below it)
    let bad: number;
    if (nc < 2 * PANEL) bad = denseTrapezoid(lx, base, nr, nr, nc);
    else {
      if (pack.length < nr * nc) pack = new Float64Array(Math.min(ws.pack, Math.max(nr * nc, 2 * pack.length)));
      bad = blockedTrapezoid(lx, base, nr, nc, pack);
    }
    if (bad >= 0) return { ok: false, column: sym.perm[f + bad], pivot: lx[base + bad * nr + bad], step: f + bad };
    pos[s] = nc;
    if (nc < nr) { const t = superOf[rowIdx[rp + nc]]; link[s] = head[t]; head[t] = s; }
    if (progress && s % tick === 0) progress(f / n);
  }
  return { ok: true, factor: { ...sym, lx } };
}

/**
 * C(r, c) = Σ_k L(r, k)·L(c, k) for 0 ≤ c < m1, c ≤ r < m2 (C column-major, leading dimension m2),
 * where L(r, k) = lx[at + k·ld + r]: register tiles of 2 rows × 4 columns, each entry written once.
 */
function syrkLower(lx: Float64Array, at: number, ld: number, nk: number, m1: number, m2: number, C: Float64Array): void {
  let c = 0;
  for (; c + 3 < m1; c += 4) {
    const o0 = c * m2, o1 = o0 + m2, o2 = o1 + m2, o3 = o2 + m2;
    let r = c;
    for (; r + 1 < m2; r += 2) {
      let a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
      for (let k = 0, col = at; k < nk; k++, col += ld) {
        const t0 = lx[col + c], t1 = lx[col + c + 1], t2 = lx[col + c + 2], t3 = lx[col + c + 3];
        const v0 = lx[col + r], v1 = lx[col + r + 1];
        a00 += v0 * t0; a01 += v0 * t1; a02 += v0 * t2; a03 += v0 * t3;
        a10 += v1 * t0; a11 += v1 * t1; a12 += v1 * t2; a13 += v1 * t3;
      }
      C[o0 + r] = a00; C[o1 + r] = a01; C[o2 + r] = a02; C[o3 + r] = a03;
      C[o0 + r + 1] = a10; C[o1 + r + 1] = a11; C[o2 + r + 1] = a12; C[o3 + r + 1] = a13;
    }
    if (r < m2) {
      let a00 = 0, a01 = 0, a02 = 0, a03 = 0;
      for (let k = 0, col = at; k < nk; k++, col += ld) {
        const v0 = lx[col + r];
        a00 += v0 * lx[col + c]; a01 += v0 * lx[col + c + 1]; a02 += v0 * lx[col + c + 2]; a03 += v0 * lx[col + c + 3];
      }
      C[o0 + r] = a00; C[o1 + r] = a01; C[o2 + r] = a02; C[o3 + r] = a03;
    }
  }
  for (; c < m1; c++) {
    const o0 = c * m2;
    let r = c;
    for (; r + 1 < m2; r += 2) {
      let a0 = 0, a1 = 0;
      for (let k = 0, col = at; k < nk; k++, col += ld) { const t = lx[col + c]; a0 += lx[col + r] * t; a1 += lx[col + r + 1] * t; }
      C[o0 + r] = a0; C[o0 + r + 1] = a1;
    }
    if (r < m2) {
      let a0 = 0;
      for (let k = 0, col = at; k < nk; k++, col += ld) a0 += lx[col + r] * lx[col + c];
      C[o0 + r] = a0;
    }
  }
}

/** Subtracts the lower part of C from supernode columns (rows[c] − f), rows through rel. */
function scatterSub(lx: Float64Array, base: number, nr: number, f: number, rowIdx: Int32Array, rows: number, m1: number, m2: number, C: Float64Array, rel: Int32Array): void {
  for (let c = 0; c < m1; c++) {
    const tb = base + (rowIdx[rows + c] - f) * nr, o = c * m2;
    const r0 = rel[c];
    if (rel[m2 - 1] - r0 === m2 - 1 - c) { // the rows land consecutively
      const t = tb + r0 - c;
      for (let r = c; r < m2; r++) lx[t + r] -= C[o + r];
    } else {
      for (let r = c; r < m2; r++) lx[tb + rel[r]] -= C[o + r];
    }
  }
}

/**
 * Dense left-looking Cholesky of an nr × nc trapezoid (column-major at `base`, leading dimension nr):
 * the diagonal block becomes L11, the rows below L21 = A21·L11⁻ᵀ. Returns the local column of a
 * non-positive pivot, or −1.
 */
function denseTrapezoid(lx: Float64Array, base: number, ld: number, nr: number, nc: number): number {
  for (let j = 0; j < nc; j++) {
    const cj = base + j * ld;
    let k = 0;
    for (; k + 3 < j; k += 4) {
      const c0 = base + k * ld, c1 = c0 + ld, c2 = c1 + ld, c3 = c2 + ld;
      const t0 = lx[c0 + j], t1 = lx[c1 + j], t2 = lx[c2 + j], t3 = lx[c3 + j];
      for (let r = j; r < nr; r++) lx[cj + r] -= lx[c0 + r] * t0 + lx[c1 + r] * t1 + lx[c2 + r] * t2 + lx[c3 + r] * t3;
    }
    for (; k < j; k++) {
      const c0 = base + k * ld, t0 = lx[c0 + j];
      if (t0 === 0) continue;
      for (let r = j; r < nr; r++) lx[cj + r] -= lx[c0 + r] * t0;
    }
    const dj = lx[cj + j];
    if (!(dj > 0) || !Number.isFinite(dj)) return j;
    const ljj = Math.sqrt(dj);
    lx[cj + j] = ljj;
    const inv = 1 / ljj;
    for (let r = j + 1; r < nr; r++) lx[cj + r] *= inv;
  }
  return -1;
}

const PANEL = 32;

/** Rows 0..m−1 of an ld-strided column-major block with nk columns, into row-major `out` (row length nk). */
function packRows(lx: Float64Array, at: number, ld: number, nk: number, m: number, out: Float64Array): void {
  for (let k = 0; k < nk; k++) {
    const col = at + k * ld;
    for (let r = 0, o = k; r < m; r++, o += nk) out[o] = lx[col + r];
  }
}

/**
 * For 0 ≤ c < m1, c ≤ r < m2: out[at + c·ld + r] (−)= Σ_{k<nk} P(r0 + r, k)·P(r0 + c, k), P row-major
 * with row length ldp: contiguous dot products in register tiles of 2 rows × 4 columns.
 */
function syrkPacked(P: Float64Array, ldp: number, nk: number, r0: number, m2: number, m1: number, out: Float64Array, at: number, ld: number, subtract: boolean): void {
  let c = 0;
  for (; c + 3 < m1; c += 4) {
    const q0 = (r0 + c) * ldp, q1 = q0 + ldp, q2 = q1 + ldp, q3 = q2 + ldp;
    const o0 = at + c * ld, o1 = o0 + ld, o2 = o1 + ld, o3 = o2 + ld;
    let r = c;
    for (; r + 1 < m2; r += 2) {
      const v0 = (r0 + r) * ldp, v1 = v0 + ldp;
      let a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
      for (let k = 0; k < nk; k++) {
        const t0 = P[q0 + k], t1 = P[q1 + k], t2 = P[q2 + k], t3 = P[q3 + k];
        const x0 = P[v0 + k], x1 = P[v1 + k];
        a00 += x0 * t0; a01 += x0 * t1; a02 += x0 * t2; a03 += x0 * t3;
        a10 += x1 * t0; a11 += x1 * t1; a12 += x1 * t2; a13 += x1 * t3;
      }
      if (subtract) {
        out[o0 + r] -= a00; out[o1 + r] -= a01; out[o2 + r] -= a02; out[o3 + r] -= a03;
        out[o0 + r + 1] -= a10; out[o1 + r + 1] -= a11; out[o2 + r + 1] -= a12; out[o3 + r + 1] -= a13;
      } else {
        out[o0 + r] = a00; out[o1 + r] = a01; out[o2 + r] = a02; out[o3 + r] = a03;
        out[o0 + r + 1] = a10; out[o1 + r + 1] = a11; out[o2 + r + 1] = a12; out[o3 + r + 1] = a13;
      }
    }
    if (r < m2) {
      const v0 = (r0 + r) * ldp;
      let a00 = 0, a01 = 0, a02 = 0, a03 = 0;
      for (let k = 0; k < nk; k++) { const x0 = P[v0 + k]; a00 += x0 * P[q0 + k]; a01 += x0 * P[q1 + k]; a02 += x0 * P[q2 + k]; a03 += x0 * P[q3 + k]; }
      if (subtract) { out[o0 + r] -= a00; out[o1 + r] -= a01; out[o2 + r] -= a02; out[o3 + r] -= a03; }
      else { out[o0 + r] = a00; out[o1 + r] = a01; out[o2 + r] = a02; out[o3 + r] = a03; }
    }
  }
  for (; c < m1; c++) {
    const q0 = (r0 + c) * ldp, o0 = at + c * ld;
    for (let r = c; r < m2; r++) {
      const v0 = (r0 + r) * ldp;
      let a = 0;
      for (let k = 0; k < nk; k++) a += P[v0 + k] * P[q0 + k];
      if (subtract) out[o0 + r] -= a; else out[o0 + r] = a;
    }
  }
}

/**
 * The trapezoid of denseTrapezoid in panels of PANEL columns: each panel is first updated by all
 * earlier columns through syrkPacked on a row-major copy T of the finished columns (row length nc),
 * then factorised by the unblocked kernel; its columns then join T.
 */
function blockedTrapezoid(lx: Float64Array, base: number, nr: number, nc: number, T: Float64Array): number {
  for (let j0 = 0; j0 < nc; j0 += PANEL) {
    const w = Math.min(PANEL, nc - j0);
    const at = base + j0 * nr + j0;
    if (j0 > 0) syrkPacked(T, nc, j0, j0, nr - j0, w, lx, at, nr, true);
    const bad = denseTrapezoid(lx, at, nr, nr - j0, w);
    if (bad >= 0) return j0 + bad;
    for (let c = j0; c < j0 + w; c++) {
      const col = base + c * nr;
      for (let r = c, o = r * nc + c; r < nr; r++, o += nc) T[o] = lx[col + r];
    }
  }
  return -1;
}

/**
 * Solves A·x = b with P·A·Pᵀ = L·Lᵀ. Per supernode: the diagonal block by dense substitution on
 * consecutive entries; the rows below it through one dense work vector (accumulated column by
 * column, then scattered once; gathered once for the transposed solve).
 */
export function supernodalSolve(fa: SupernodalFactor, b: ArrayLike<number>, out: Float64Array = new Float64Array(fa.n)): Float64Array {
  const { n, nsuper, superStart, rowPtr, rowIdx, valPtr, lx, perm } = fa;
  const y = new Float64Array(n);
  const t = new Float64Array(n);
  for (let k = 0; k < n; k++) y[k] = b[perm[k]];
  for (let s = 0; s < nsuper; s++) { // L·z = y
    const f = superStart[s], nc = superStart[s + 1] - f, rp = rowPtr[s], nr = rowPtr[s + 1] - rp, base = valPtr[s];
    const nb = nr - nc;
    for (let r = 0; r < nb; r++) t[r] = 0;
    for (let j = 0; j < nc; j++) {
      const cj = base + j * nr;
      const yj = (y[f + j] /= lx[cj + j]);
      if (yj === 0) continue;
      for (let r = j + 1; r < nc; r++) y[f + r] -= lx[cj + r] * yj;
      const cb = cj + nc;
      for (let r = 0; r < nb; r++) t[r] += lx[cb + r] * yj;
    }
    const rb = rp + nc;
    for (let r = 0; r < nb; r++) y[rowIdx[rb + r]] -= t[r];
  }
  for (let s = nsuper - 1; s >= 0; s--) { // Lᵀ·w = z
    const f = superStart[s], nc = superStart[s + 1] - f, rp = rowPtr[s], nr = rowPtr[s + 1] - rp, base = valPtr[s];
    const nb = nr - nc, rb = rp + nc;
    for (let r = 0; r < nb; r++) t[r] = y[rowIdx[rb + r]];
    for (let j = nc - 1; j >= 0; j--) {
      const cj = base + j * nr, cb = cj + nc;
      let v = y[f + j];
      for (let r = 0; r < nb; r++) v -= lx[cb + r] * t[r];
      for (let r = j + 1; r < nc; r++) v -= lx[cj + r] * y[f + r];
      y[f + j] = v / lx[cj + j];
    }
  }
  for (let k = 0; k < n; k++) out[perm[k]] = y[k];
  return out;
}

/** The diagonal of L (elimination order). */
export function supernodalDiagonal(fa: SupernodalFactor): Float64Array {
  const d = new Float64Array(fa.n);
  for (let s = 0; s < fa.nsuper; s++) {
    const f = fa.superStart[s], nc = fa.superStart[s + 1] - f, nr = fa.rowPtr[s + 1] - fa.rowPtr[s];
    for (let j = 0; j < nc; j++) d[f + j] = fa.lx[fa.valPtr[s] + j * nr + j];
  }
  return d;
}
