// 1-norm condition estimate κ₁(A) = ‖A‖₁·‖A⁻¹‖₁ without forming A⁻¹: the block 1-norm estimator
// of Higham & Tisseur, "A block algorithm for matrix 1-norm estimation, with an application to
// 1-norm pseudospectra", SIAM J. Matrix Anal. Appl. 21(4), 2000, Algorithm 2.4 (t = 2 columns),
// which generalises Hager's method (Hager, "Condition estimates", SIAM J. Sci. Stat. Comput. 5,
// 1984) as refined by Higham (ACM TOMS 14, 1988, Alg. 4.1). It needs only solves with A and Aᵀ
// (about 4 to 10 of each). The result is a lower bound on ‖A⁻¹‖₁ that is almost always within a
// factor 3 of it; Higham's extra test vector x_i = (−1)^{i+1}(1 + (i−1)/(n−1)) is tried as well
// and the larger estimate kept. Columns of S parallel to earlier ones are replaced by seeded
// random ±1 vectors, so the estimate is deterministic.
import { createRng } from '../rng.ts';

export type Solve = (b: Float64Array) => Float64Array;

const norm1 = (v: Float64Array): number => { let s = 0; for (let i = 0; i < v.length; i++) s += Math.abs(v[i]); return s; };

/** Estimate of ‖A⁻¹‖₁ from solves with A (`solve`) and Aᵀ (`solveT`). */
export function inverseNorm1Estimate(n: number, solve: Solve, solveT: Solve, seed = 1, t = 2): { estimate: number; solves: number } {
  if (n === 1) { const y = solve(Float64Array.of(1)); return { estimate: Math.abs(y[0]), solves: 1 }; }
  t = Math.min(t, n);
  const rng = createRng(seed);
  const randomSign = (): Float64Array => { const v = new Float64Array(n); for (let i = 0; i < n; i++) v[i] = rng.nextU32() & 1 ? 1 : -1; return v; };
  let X: Float64Array[] = [];
  X.push(new Float64Array(n).fill(1 / n));
  for (let j = 1; j < t; j++) {
    let v = randomSign();
    for (let tries = 0; tries < 10 && parallel(v, X.map((x) => x.map((e) => Math.sign(e)))); tries++) v = randomSign();
    X.push(v.map((e) => e / n));
  }
  const hist = new Set<number>();
  let estOld = 0, est = 0, solves = 0;
  let S: Float64Array[] = [];
  let indBest = -1;
  for (let k = 1; k <= 5; k++) {
    const Y = X.map((x) => { solves++; return solve(x); });
    let jBest = 0; est = 0;
    Y.forEach((y, j) => { const v = norm1(y); if (v > est) { est = v; jBest = j; } });
    if (k >= 2 && est <= estOld) { est = estOld; break; }
    void jBest;
    estOld = est;
    const Sold = S;
    S = Y.map((y) => y.map((e) => (e >= 0 ? 1 : -1)));
    if (k >= 2 && S.every((s) => parallel(s, Sold))) break;
    for (let j = 0; j < S.length; j++) {
      for (let tries = 0; tries < 10 && (parallel(S[j], Sold) || parallel(S[j], S.slice(0, j))); tries++) S[j] = randomSign();
    }
    const Z = S.map((s) => { solves++; return solveT(s); });
    const h = new Float64Array(n);
    for (const z of Z) for (let i = 0; i < n; i++) { const a = Math.abs(z[i]); if (a > h[i]) h[i] = a; }
    let hmax = 0, imax = 0;
    for (let i = 0; i < n; i++) if (h[i] > hmax) { hmax = h[i]; imax = i; }
    if (k >= 2 && indBest >= 0 && hmax === h[indBest]) break;
    indBest = imax;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => h[b] - h[a] || a - b);
    if (k >= 2 && order.slice(0, t).every((i) => hist.has(i))) break;
    const chosen = order.filter((i) => !hist.has(i)).slice(0, t);
    if (!chosen.length) break;
    X = chosen.map((i) => { const e = new Float64Array(n); e[i] = 1; hist.add(i); return e; });
  }
  // Higham's alternating test vector
  const alt = new Float64Array(n);
  for (let i = 0; i < n; i++) alt[i] = (i % 2 ? -1 : 1) * (1 + i / (n - 1));
  const ya = solve(alt); solves++;
  const estAlt = (2 * norm1(ya)) / (3 * n);
  return { estimate: Math.max(est, estAlt), solves };
}

/** True when v equals ±(a column of M) as sign vectors (all entries ±1). */
function parallel(v: Float64Array, M: Float64Array[]): boolean {
  const n = v.length;
  for (const m of M) {
    let d = 0;
    for (let i = 0; i < n; i++) d += v[i] * m[i];
    if (Math.abs(d) === n) return true;
  }
  return false;
}
