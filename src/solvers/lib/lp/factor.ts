// The simplex basis B (m×m, columns from the constraint matrix [A | −I]) as sparse LU factors
// with product-form updates.
//
// Factorisation: left-looking LU with threshold partial pivoting (Gilbert & Peierls, SIAM J. Sci.
// Stat. Comput. 9(5), 1988; Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, §6),
// the columns taken in order of increasing count so that the (usually large) triangular part of a
// simplex basis — logical columns first — is factorised without fill (Suhl & Suhl, "Computing
// sparse LU factorizations for large-scale linear programming bases", ORSA J. Computing 2(4),
// 1990, take the same cue). Among the candidate rows with |value| ≥ 0.1·max, the one with the
// fewest nonzeros in A is chosen (a Markowitz-style tie-break). A column with no acceptable pivot
// is dropped and replaced by the logical column of an unpivoted row: the caller learns which
// basis positions changed (Koberstein, "The dual simplex method, techniques for a fast and stable
// implementation", PhD thesis, Paderborn 2005, §5.3: "singular bases are repaired by slacks").
//
// Updates: the product form of the inverse (Dantzig & Orchard-Hays, "The product form for the
// inverse in the simplex method", Math. Tables Aids Comput. 8, 1954; Maros, "Computational
// Techniques of the Simplex Method", Kluwer 2003, §8.1): after replacing the basic column at
// position r by a column whose FTRAN image is α, B_new⁻¹ = E⁻¹ B⁻¹ with E the identity whose
// r-th column is α. The eta file is cleared by a refactorisation every REFACTOR_EVERY updates.
//
// FTRAN solves B·x = b (b by row, x by basis position); BTRAN solves Bᵀ·y = c (c by basis
// position, y by row). Both are dense-vector sweeps over the sparse factors: O(m + nnz(L, U, η)).

export const REFACTOR_EVERY = 50;
const PIVOT_THRESHOLD = 0.1;
const SINGULAR_TOL = 1e-11;

export interface BasisColumns {
  m: number;
  /** nonzeros of column j of [A | −I]: calls visit(row, value) for each */
  column(j: number, visit: (row: number, value: number) => void): void;
  /** count of nonzeros of column j (for the ordering) */
  count(j: number): number;
  /** number of nonzeros of row i of A (for the pivot tie-break) */
  rowCount(i: number): number;
  /** index of the logical column of row i */
  logical(i: number): number;
}

export class BasisFactor {
  readonly m: number;
  // step k: pivot row p[k], basis position q[k]
  private p: Int32Array; private q: Int32Array;
  private lp: Int32Array; private li: Int32Array = new Int32Array(0); private lx: Float64Array = new Float64Array(0);
  private up: Int32Array; private ui: Int32Array = new Int32Array(0); private ux: Float64Array = new Float64Array(0);
  private udiag: Float64Array;
  // eta file: eta e has pivot position etaPos[e], entries etaIdx/etaVal[etaPtr[e]..etaPtr[e+1]) (position, value) and pivot etaPiv[e]
  private etaPos: number[] = []; private etaPiv: number[] = []; private etaPtr: number[] = [0];
  private etaIdx: Int32Array = new Int32Array(1024); private etaVal: Float64Array = new Float64Array(1024); private etaNnz = 0;
  private work: Float64Array;
  updates = 0;

  constructor(m: number) {
    this.m = m;
    this.p = new Int32Array(m); this.q = new Int32Array(m);
    this.lp = new Int32Array(m + 1); this.up = new Int32Array(m + 1);
    this.udiag = new Float64Array(m);
    this.work = new Float64Array(m);
  }

  /**
   * Factorises the basis whose position k holds column basis[k]. Returns the positions whose
   * column was found dependent and replaced (in `basis`, in place) by a logical column.
   */
  factor(cols: BasisColumns, basis: Int32Array): number[] {
    const m = this.m;
    this.etaPos = []; this.etaPiv = []; this.etaPtr = [0]; this.etaNnz = 0; this.updates = 0;
    const order = Array.from({ length: m }, (_, k) => k).sort((a, b) => cols.count(basis[a]) - cols.count(basis[b]) || a - b);
    const pivotOfRow = new Int32Array(m).fill(-1);
    const x = new Float64Array(m);
    const li: number[] = [], lx: number[] = [], ui: number[] = [], ux: number[] = [];
    const touched: number[] = [];
    const stamp = new Int32Array(m).fill(-1);
    let colNo = 0;
    const dropped: number[] = [];
    let k = 0;
    const stepRows: number[] = [];
    const factorColumn = (pos: number, j: number): boolean => {
      touched.length = 0;
      colNo++;
      cols.column(j, (i, v) => { if (stamp[i] !== colNo) { stamp[i] = colNo; touched.push(i); } x[i] += v; });
      // left-looking: apply the earlier L columns in step order
      for (let s = 0; s < k; s++) {
        const xs = x[this.p[s]];
        if (xs === 0) continue;
        for (let t = this.lp[s]; t < this.lp[s + 1]; t++) { const i = li[t]; if (stamp[i] !== colNo) { stamp[i] = colNo; touched.push(i); } x[i] -= lx[t] * xs; }
      }
      let amax = 0;
      for (const i of touched) if (pivotOfRow[i] < 0) { const a = Math.abs(x[i]); if (a > amax) amax = a; }
      if (!(amax > SINGULAR_TOL)) { for (const i of touched) x[i] = 0; return false; }
      let piv = -1, best = Infinity, bestAbs = 0;
      for (const i of touched) {
        if (pivotOfRow[i] >= 0) continue;
        const a = Math.abs(x[i]);
        if (a < PIVOT_THRESHOLD * amax) continue;
        const rc = cols.rowCount(i);
        if (rc < best || (rc === best && a > bestAbs)) { best = rc; bestAbs = a; piv = i; }
      }
      const pv = x[piv];
      this.up[k] = ui.length;
      for (const i of touched) { const s = pivotOfRow[i]; if (s >= 0 && x[i] !== 0) { ui.push(s); ux.push(x[i]); } }
      this.udiag[k] = pv;
      this.lp[k] = li.length;
      for (const i of touched) if (pivotOfRow[i] < 0 && i !== piv && x[i] !== 0) { li.push(i); lx.push(x[i] / pv); }
      this.lp[k + 1] = li.length; this.up[k + 1] = ui.length;
      for (const i of touched) x[i] = 0;
      this.p[k] = piv; this.q[k] = pos; pivotOfRow[piv] = k; stepRows.push(piv);
      k++;
      return true;
    };
    // lp[s+1] is read for s < k during the sweep: keep it in step with li
    for (const pos of order) {
      this.lp[k + 1] = this.lp[k];
      if (!factorColumn(pos, basis[pos])) dropped.push(pos);
    }
    // repair: each dropped position gets the logical of an unpivoted row
    if (dropped.length) {
      let r = 0;
      for (const pos of dropped) {
        while (pivotOfRow[r] >= 0) r++;
        basis[pos] = cols.logical(r);
        this.lp[k + 1] = this.lp[k];
        if (!factorColumn(pos, basis[pos])) throw new Error('logical column singular');
      }
    }
    this.li = Int32Array.from(li); this.lx = Float64Array.from(lx);
    this.ui = Int32Array.from(ui); this.ux = Float64Array.from(ux);
    return dropped;
  }

  /** x = B⁻¹·b in place: b by row on entry, x by basis position on return. */
  ftran(b: Float64Array): void {
    const m = this.m, { p, q, lp, li, lx, up, ui, ux, udiag } = this;
    for (let k = 0; k < m; k++) {
      const v = b[p[k]];
      if (v === 0) continue;
      for (let t = lp[k]; t < lp[k + 1]; t++) b[li[t]] -= lx[t] * v;
    }
    const z = this.work;
    for (let k = 0; k < m; k++) z[k] = b[p[k]];
    for (let k = m - 1; k >= 0; k--) {
      const zk = z[k] / udiag[k];
      z[k] = zk;
      if (zk === 0) continue;
      for (let t = up[k]; t < up[k + 1]; t++) z[ui[t]] -= ux[t] * zk;
    }
    for (let k = 0; k < m; k++) b[q[k]] = z[k];
    // eta file, oldest first
    const { etaPos, etaPiv, etaPtr, etaIdx, etaVal } = this;
    for (let e = 0; e < etaPos.length; e++) {
      const r = etaPos[e];
      const xr = b[r] / etaPiv[e];
      b[r] = xr;
      if (xr === 0) continue;
      for (let t = etaPtr[e]; t < etaPtr[e + 1]; t++) b[etaIdx[t]] -= etaVal[t] * xr;
    }
  }

  /** y = B⁻ᵀ·c in place: c by basis position on entry, y by row on return. */
  btran(c: Float64Array): void {
    const m = this.m, { p, q, lp, li, lx, up, ui, ux, udiag } = this;
    const { etaPos, etaPiv, etaPtr, etaIdx, etaVal } = this;
    for (let e = etaPos.length - 1; e >= 0; e--) {
      const r = etaPos[e];
      let s = c[r];
      for (let t = etaPtr[e]; t < etaPtr[e + 1]; t++) s -= etaVal[t] * c[etaIdx[t]];
      c[r] = s / etaPiv[e];
    }
    const w = this.work;
    for (let k = 0; k < m; k++) {
      let s = c[q[k]];
      for (let t = up[k]; t < up[k + 1]; t++) s -= ux[t] * w[ui[t]];
      w[k] = s / udiag[k];
    }
    for (let k = 0; k < m; k++) c[p[k]] = w[k];
    for (let k = m - 1; k >= 0; k--) {
      let s = c[p[k]];
      for (let t = lp[k]; t < lp[k + 1]; t++) s -= lx[t] * c[li[t]];
      c[p[k]] = s;
    }
  }

  /** Records the replacement of the column at basis position r by one with FTRAN image alpha. */
  update(r: number, alpha: Float64Array): void {
    this.etaPos.push(r); this.etaPiv.push(alpha[r]);
    if (this.etaNnz + this.m > this.etaIdx.length) {
      const cap = Math.max(2 * this.etaIdx.length, this.etaNnz + this.m);
      const ni = new Int32Array(cap), nv = new Float64Array(cap);
      ni.set(this.etaIdx.subarray(0, this.etaNnz)); nv.set(this.etaVal.subarray(0, this.etaNnz));
      this.etaIdx = ni; this.etaVal = nv;
    }
    let k = this.etaNnz;
    const idx = this.etaIdx, val = this.etaVal;
    for (let i = 0; i < this.m; i++) { const a = alpha[i]; if (a !== 0 && i !== r) { idx[k] = i; val[k] = a; k++; } }
    this.etaNnz = k;
    this.etaPtr.push(k);
    this.updates++;
  }

  /** true when the eta file has grown past the factors themselves: a refactorisation is cheaper
   * than applying it (the usual trigger besides the update count; Maros 2003, §8.2) */
  get etaHeavy(): boolean {
    return this.etaNnz > 2 * (this.li.length + this.ui.length) + 4 * this.m;
  }
}
