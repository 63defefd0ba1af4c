// Symplectic integrators for separable Hamiltonians H(q, p) = |p|²/2 + V(q) (unit mass):
// the Störmer-Verlet / leapfrog map (kick-drift-kick; Hairer, Lubich & Wanner, "Geometric
// Numerical Integration", 2nd ed., §I.3 and §VI.3) and its symmetric compositions of order 4, 6
// and 8 (H. Yoshida, "Construction of higher order symplectic integrators", Phys. Lett. A 150
// (1990) 262-268: the triple jump for order 4, solution A for order 6, solution D for order 8).
//
// Each composition stage is one leapfrog step of length w_i·h; adjacent half kicks are fused, so a
// step of an s-stage method costs s force evaluations (the last kick's force is reused as the next
// step's first: "first same as last"). Stability: for the harmonic oscillator the map is stable
// while h·ω is below `harmonicStabilityLimit(order)` (2 for leapfrog; smaller for the
// compositions, whose negative substeps shrink the interval).

export type SymplecticOrder = 2 | 4 | 6 | 8;

const CBRT2 = Math.cbrt(2);

/** Yoshida's w_1..w_m (the outer weights); w_0 = 1 − 2 Σ w_k sits in the middle. */
const YOSHIDA_OUTER: Record<SymplecticOrder, readonly number[]> = {
  2: [],
  4: [1 / (2 - CBRT2)],
  // Yoshida (1990) Table 1, solution A
  6: [-1.17767998417887, 0.235573213359357, 0.784513610477560],
  // Yoshida (1990) Table 2, solution D
  8: [0.102799849391985, -1.96061023297549, 1.93813913762276, -0.158240635368243,
    -1.44485223686048, 0.253693336566229, 0.914844246229740],
};

/**
 * Stage weights of the symmetric composition, in application order:
 * [w_m, …, w_1, w_0, w_1, …, w_m]; they sum to 1. Order 2 is the single leapfrog stage [1].
 */
export function compositionWeights(order: SymplecticOrder): Float64Array {
  const outer = YOSHIDA_OUTER[order];
  if (!outer) throw new RangeError(`symplectic order must be 2, 4, 6 or 8, got ${order}`);
  if (outer.length === 0) return Float64Array.of(1);
  let sum = 0;
  for (const w of outer) sum += w;
  const w0 = 1 - 2 * sum;
  const m = outer.length;
  const out = new Float64Array(2 * m + 1);
  // Yoshida lists w_1..w_m from the centre outwards, so the sequence is w_m … w_1 w_0 w_1 … w_m.
  for (let k = 0; k < m; k++) {
    out[m - 1 - k] = outer[k];
    out[m + 1 + k] = outer[k];
  }
  out[m] = w0;
  return out;
}

/** Fused kick (s + 1) and drift (s) coefficients of the composed kick-drift-kick method. */
export interface SplittingScheme {
  order: SymplecticOrder;
  kick: Float64Array;
  drift: Float64Array;
}

export function splittingScheme(order: SymplecticOrder): SplittingScheme {
  const w = compositionWeights(order);
  const s = w.length;
  const kick = new Float64Array(s + 1);
  const drift = new Float64Array(s);
  for (let i = 0; i < s; i++) {
    drift[i] = w[i];
    kick[i] += 0.5 * w[i];
    kick[i + 1] += 0.5 * w[i];
  }
  return { order, kick, drift };
}

/** A separable system with unit mass: dq/dt = p, dp/dt = accel(q). */
export interface SeparableSystem {
  dim: number;
  /** writes −∇V(q) into `out` */
  accel(q: Float64Array, out: Float64Array): void;
}

export interface SymplecticWorkspace {
  /** acceleration at the current q; valid between steps once `primed` */
  a: Float64Array;
  primed: boolean;
}

export function symplecticWorkspace(dim: number): SymplecticWorkspace {
  return { a: new Float64Array(dim), primed: false };
}

/** One step of length h, in place on q and p. */
export function symplecticStep(sys: SeparableSystem, q: Float64Array, p: Float64Array, h: number,
  scheme: SplittingScheme, ws: SymplecticWorkspace): void {
  const n = sys.dim;
  const a = ws.a;
  const { kick, drift } = scheme;
  const s = drift.length;
  if (!ws.primed) { sys.accel(q, a); ws.primed = true; }
  for (let stage = 0; stage < s; stage++) {
    const ck = kick[stage] * h;
    for (let i = 0; i < n; i++) p[i] += ck * a[i];
    const cd = drift[stage] * h;
    for (let i = 0; i < n; i++) q[i] += cd * p[i];
    sys.accel(q, a);
  }
  const ck = kick[s] * h;
  for (let i = 0; i < n; i++) p[i] += ck * a[i];
}

/**
 * Integrates `steps` steps of size h; `observe(step, q, p)` runs after each step when given.
 * Returns the number of force evaluations.
 */
export function symplecticIntegrate(sys: SeparableSystem, q: Float64Array, p: Float64Array, h: number,
  steps: number, order: SymplecticOrder,
  observe?: (step: number, q: Float64Array, p: Float64Array) => void): number {
  const scheme = splittingScheme(order);
  const ws = symplecticWorkspace(sys.dim);
  for (let k = 1; k <= steps; k++) {
    symplecticStep(sys, q, p, h, scheme, ws);
    if (observe) observe(k, q, p);
  }
  return 1 + steps * scheme.drift.length;
}

/**
 * Trace of the one-step propagator of the composed method on q'' = −ω²q at x = h·ω.
 * The map has determinant 1, so it is stable exactly while |trace| < 2.
 */
export function harmonicPropagatorTrace(order: SymplecticOrder, x: number): number {
  const w = compositionWeights(order);
  // propagator acting on (q, p/ω); a leapfrog stage with τ = w·x:
  // [[1 − τ²/2, τ], [−τ(1 − τ²/4), 1 − τ²/2]]
  let m00 = 1, m01 = 0, m10 = 0, m11 = 1;
  for (let i = 0; i < w.length; i++) {
    const t = w[i] * x;
    const a = 1 - 0.5 * t * t, b = t, c = -t * (1 - 0.25 * t * t), d = a;
    const n00 = a * m00 + b * m10, n01 = a * m01 + b * m11;
    const n10 = c * m00 + d * m10, n11 = c * m01 + d * m11;
    m00 = n00; m01 = n01; m10 = n10; m11 = n11;
  }
  return m00 + m11;
}

const stabilityCache = new Map<SymplecticOrder, number>();

/**
 * Onset of the first instability band of the composed map on the harmonic oscillator: the map is
 * stable for every h·ω below it (scan, then bisect). Past it the higher compositions can re-enter
 * stability in narrow windows; the solvers treat the onset as the limit.
 */
export function harmonicStabilityLimit(order: SymplecticOrder): number {
  const cached = stabilityCache.get(order);
  if (cached !== undefined) return cached;
  const dx = 1e-3;
  let lo = 0, hi = 0;
  for (let x = dx; x < 10; x += dx) {
    if (Math.abs(harmonicPropagatorTrace(order, x)) >= 2) { hi = x; break; }
    lo = x;
  }
  for (let i = 0; i < 60; i++) {
    const mid = 0.5 * (lo + hi);
    if (Math.abs(harmonicPropagatorTrace(order, mid)) >= 2) hi = mid; else lo = mid;
  }
  stabilityCache.set(order, lo);
  return lo;
}
