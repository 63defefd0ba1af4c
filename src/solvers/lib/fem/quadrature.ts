// Quadrature on simplices and lines.
// Simplices: Grundmann & Möller, "Invariant integration formulas for the n-simplex by
// combinatorial methods", SIAM J. Numer. Anal. 15(2), 1978, Theorem 4: for s ≥ 0 the rule of
// degree d = 2s + 1 on the n-simplex T is
//   ∫_T f ≈ n!·|T| Σ_{i=0}^{s} (−1)^i 2^{−2s} (d + n − 2i)^d / (i!·(d + n − i)!) Σ_{|β| = s − i} f(λ_β),
//   λ_β,j = (2β_j + 1)/(d + n − 2i), β ∈ ℕ^{n+1}
// (some weights are negative; exact for polynomials of degree ≤ d). Lines: Gauss-Legendre.

export interface Rule { /** barycentric points, (n+1) each */ points: number[][]; /** weights summing to 1 (times the simplex measure) */ weights: number[] }

function compositions(total: number, parts: number): number[][] {
  if (parts === 1) return [[total]];
  const out: number[][] = [];
  for (let k = total; k >= 0; k--) for (const rest of compositions(total - k, parts - 1)) out.push([k, ...rest]);
  return out;
}
const fact = (k: number): number => (k <= 1 ? 1 : k * fact(k - 1));

const cache = new Map<string, Rule>();

/** Degree-(2s+1) rule on the n-simplex; weights are fractions of the simplex measure. */
export function simplexRule(n: number, s: number): Rule {
  const key = `${n}:${s}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const d = 2 * s + 1;
  const points: number[][] = [], weights: number[] = [];
  for (let i = 0; i <= s; i++) {
    const w = fact(n) * ((i % 2 ? -1 : 1) * 2 ** (-2 * s) * (d + n - 2 * i) ** d) / (fact(i) * fact(d + n - i));
    for (const beta of compositions(s - i, n + 1)) {
      points.push(beta.map((b) => (2 * b + 1) / (d + n - 2 * i)));
      weights.push(w);
    }
  }
  const r = { points, weights };
  cache.set(key, r);
  return r;
}

/** Gauss-Legendre on [0, 1]: points t and weights (sum 1). */
export function lineRule(points: 2 | 3 | 4): { t: number[]; w: number[] } {
  if (points === 2) { const a = 0.5 / Math.sqrt(3); return { t: [0.5 - a, 0.5 + a], w: [0.5, 0.5] }; }
  if (points === 3) { const a = 0.5 * Math.sqrt(0.6); return { t: [0.5 - a, 0.5, 0.5 + a], w: [5 / 18, 8 / 18, 5 / 18] }; }
  const a = Math.sqrt(3 / 7 - (2 / 7) * Math.sqrt(6 / 5)), b = Math.sqrt(3 / 7 + (2 / 7) * Math.sqrt(6 / 5));
  const wa = (18 + Math.sqrt(30)) / 36, wb = (18 - Math.sqrt(30)) / 36;
  return { t: [0.5 - 0.5 * b, 0.5 - 0.5 * a, 0.5 + 0.5 * a, 0.5 + 0.5 * b], w: [wb / 2, wa / 2, wa / 2, wb / 2] };
}
