// The normal equations of the interior-point method (ipm.ts): M = Ā·Θ·Āᵀ for the computational
// form Ā = [A | −I] (structurals, then one logical per row), i.e. M = A·Θ_x·Aᵀ + Θ_s, factorised
// as P·M·Pᵀ = L·Lᵀ by a sparse Cholesky factorisation whose pattern is computed once (the
// pattern of M does not change between iterations, only Θ does):
//  - the fill-reducing order is the approximate minimum degree order of the pattern of M
//    (lib/sparse/amd.ts, called, not changed; Amestoy, Davis & Duff 1996);
//  - the elimination tree, column counts and the row subtrees ("ereach") follow Liu 1990 and
//    Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, §4.1-4.3; the numeric
//    factorisation is the up-looking one (row k of L from a sparse triangular solve with the
//    rows above, Davis §4.7), written here rather than taken from lib/sparse/cholesky.ts because
//    the IPM needs two things that a general-purpose SPD factorisation rightly refuses:
//  - a pivot that is zero or negative up to rounding (linearly dependent rows, or the end of the
//    iterations where Θ spans 1e±20) is replaced by 1e128, so that the corresponding component
//    of the solution is (numerically) zero: the "Cholesky-infinity" rule of Zhang's LIPSOL
//    (Zhang, "Solving large-scale linear programs by interior-point methods under the MATLAB
//    environment", Optim. Methods Softw. 10, 1998) and Wright, "Primal-Dual Interior-Point
//    Methods", SIAM 1997, ch. 11 ("dealing with singularity");
//  - the values are refilled in place each iteration from Θ.
import { amdOrder } from '../sparse/amd.ts';

export interface NormalStructure {
  m: number; n: number;
  colPtr: Int32Array; rowIdx: Int32Array; vals: Float64Array;
  rowPtr: Int32Array; colIdx: Int32Array; rvals: Float64Array;
}

const HUGE_PIVOT = 1e128;
const DROP_TOL = 1e-14;

export class NormalFactor {
  readonly m: number;
  private a: NormalStructure;
  private perm: Int32Array; private pinv: Int32Array;
  // full adjacency of M (original numbering), diagonal excluded
  private adjPtr: Int32Array; private adjIdx: Int32Array;
  // C = upper triangle of P·M·Pᵀ by columns
  private cp: Int32Array; private ci: Int32Array; private cx: Float64Array;
  private parent: Int32Array;
  private lp: Int32Array; private li: Int32Array; private lx: Float64Array;
  private work: Float64Array; private mark: Int32Array; private stack: Int32Array; private s: Int32Array; private next: Int32Array;
  /** pivots replaced by HUGE_PIVOT in the last factorisation */
  dropped = 0;
  /** dual regularisation added to the diagonal of M */
  reg = 0;
  readonly fill: number;

  private constructor(a: NormalStructure, adjPtr: Int32Array, adjIdx: Int32Array, perm: Int32Array) {
    const m = a.m;
    this.m = m; this.a = a; this.adjPtr = adjPtr; this.adjIdx = adjIdx; this.perm = perm;
    this.pinv = new Int32Array(m);
    for (let k = 0; k < m; k++) this.pinv[perm[k]] = k;
    // C pattern
    const cnt = new Int32Array(m + 1);
    for (let i = 0; i < m; i++) {
      const ki = this.pinv[i];
      cnt[ki + 1]++;
      for (let p = adjPtr[i]; p < adjPtr[i + 1]; p++) if (this.pinv[adjIdx[p]] < ki) cnt[ki + 1]++;
    }
    for (let k = 0; k < m; k++) cnt[k + 1] += cnt[k];
    this.cp = cnt;
    this.ci = new Int32Array(cnt[m]); this.cx = new Float64Array(cnt[m]);
    for (let i = 0; i < m; i++) {
      const ki = this.pinv[i];
      let q = cnt[ki];
      this.ci[q++] = ki;
      for (let p = adjPtr[i]; p < adjPtr[i + 1]; p++) { const r = this.pinv[adjIdx[p]]; if (r < ki) this.ci[q++] = r; }
    }
    // elimination tree (Liu, with path compression through `ancestor`)
    const parent = new Int32Array(m).fill(-1), ancestor = new Int32Array(m).fill(-1);
    for (let k = 0; k < m; k++) {
      for (let p = this.cp[k]; p < this.cp[k + 1]; p++) {
        let i = this.ci[p];
        while (i !== -1 && i < k) { const nx = ancestor[i]; ancestor[i] = k; if (nx === -1) parent[i] = k; i = nx; }
      }
    }
    this.parent = parent;
    // column counts of L from the row subtrees
    const mark = new Int32Array(m).fill(-1);
    const colCount = new Float64Array(m).fill(1);
    let total = m;
    for (let k = 0; k < m; k++) {
      mark[k] = k;
      for (let p = this.cp[k]; p < this.cp[k + 1]; p++) {
        for (let i = this.ci[p]; i < k && mark[i] !== k; i = parent[i]) { mark[i] = k; colCount[i]++; total++; }
      }
    }
    this.fill = total;
    this.lp = new Int32Array(m + 1);
    for (let j = 0; j < m; j++) this.lp[j + 1] = this.lp[j] + colCount[j];
    this.li = new Int32Array(this.lp[m]); this.lx = new Float64Array(this.lp[m]);
    this.work = new Float64Array(m); this.mark = new Int32Array(m); this.stack = new Int32Array(m); this.s = new Int32Array(m); this.next = new Int32Array(m);
  }

  /** The symbolic analysis; null when L would have more than maxFill entries. */
  static analyse(a: NormalStructure, maxFill: number): NormalFactor | null {
    const m = a.m;
    // adjacency of M: rows sharing a column
    const mark = new Int32Array(m).fill(-1);
    const ptr = new Int32Array(m + 1);
    const idx: number[] = [];
    for (let i = 0; i < m; i++) {
      mark[i] = i;
      for (let t = a.rowPtr[i]; t < a.rowPtr[i + 1]; t++) {
        const j = a.colIdx[t];
        for (let q = a.colPtr[j]; q < a.colPtr[j + 1]; q++) { const r = a.rowIdx[q]; if (mark[r] !== i) { mark[r] = i; idx.push(r); } }
      }
      ptr[i + 1] = idx.length;
      if (idx.length > 2 * maxFill) return null;
    }
    const adjIdx = Int32Array.from(idx);
    const perm = amdOrder({ n: m, adjPtr: ptr, adjIdx });
    const f = new NormalFactor(a, ptr, adjIdx, perm);
    return f.fill > maxFill ? null : f;
  }

  /** Fills C with P·(A·Θ_x·Aᵀ + Θ_s)·Pᵀ (upper triangle) and factorises; θ has n + m entries. */
  factor(theta: Float64Array): void {
    const { m, a, perm, pinv, cp, ci, cx, work: w } = this;
    const n = a.n;
    // values: column k' of C is column perm[k'] of M, rows pinv ≤ k'
    const diag = new Float64Array(m);
    for (let k = 0; k < m; k++) {
      const i = perm[k];
      for (let t = a.rowPtr[i]; t < a.rowPtr[i + 1]; t++) {
        const j = a.colIdx[t];
        const th = theta[j];
        if (th === 0) continue;
        const f = th * a.rvals[t];
        for (let q = a.colPtr[j]; q < a.colPtr[j + 1]; q++) w[a.rowIdx[q]] += f * a.vals[q];
      }
      w[i] += theta[n + i] + this.reg;
      for (let p = cp[k]; p < cp[k + 1]; p++) cx[p] = w[perm[ci[p]]];
      diag[k] = w[i];
      w[i] = 0;
      for (let p = this.adjPtr[i]; p < this.adjPtr[i + 1]; p++) w[this.adjIdx[p]] = 0;
    }
    // up-looking numeric factorisation
    const { parent, lp, li, lx, mark, stack, s, next } = this;
    const x = w;
    for (let k = 0; k < m; k++) next[k] = lp[k];
    mark.fill(-1);
    this.dropped = 0;
    for (let k = 0; k < m; k++) {
      let top = m;
      mark[k] = k;
      for (let p = cp[k]; p < cp[k + 1]; p++) {
        let i = ci[p];
        x[i] = cx[p];
        let len = 0;
        while (mark[i] !== k) { stack[len++] = i; mark[i] = k; i = parent[i]; }
        while (len > 0) s[--top] = stack[--len];
      }
      let d = x[k];
      x[k] = 0;
      for (let t = top; t < m; t++) {
        const i = s[t];
        const lki = x[i] / lx[lp[i]];
        x[i] = 0;
        for (let p = lp[i] + 1; p < next[i]; p++) x[li[p]] -= lx[p] * lki;
        d -= lki * lki;
        const p = next[i]++;
        li[p] = k; lx[p] = lki;
      }
      if (!(d > DROP_TOL * Math.max(diag[k], 1e-300)) || !Number.isFinite(d)) { d = HUGE_PIVOT; this.dropped++; }
      const p = next[k]++;
      li[p] = k; lx[p] = Math.sqrt(d);
    }
  }

  /** Solves M·y = b (original numbering) with the current factors; returns y (a new array). */
  solve(b: ArrayLike<number>): Float64Array {
    const { m, perm, lp, li, lx } = this;
    const z = new Float64Array(m);
    for (let k = 0; k < m; k++) z[k] = b[perm[k]];
    for (let j = 0; j < m; j++) {
      const v = (z[j] /= lx[lp[j]]);
      if (v === 0) continue;
      for (let p = lp[j] + 1; p < lp[j + 1]; p++) z[li[p]] -= lx[p] * v;
    }
    for (let j = m - 1; j >= 0; j--) {
      let v = z[j];
      for (let p = lp[j] + 1; p < lp[j + 1]; p++) v -= lx[p] * z[li[p]];
      z[j] = v / lx[lp[j]];
    }
    const y = new Float64Array(m);
    for (let k = 0; k < m; k++) y[perm[k]] = z[k];
    return y;
  }
}
