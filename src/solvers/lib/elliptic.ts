// Elliptic integrals and Jacobi elliptic functions, parameter convention m = k² (DLMF §19, §22).
//
// - agm(a, b): arithmetic-geometric mean (DLMF 19.8.1), quadratic convergence.
// - ellipK(m), ellipE(m): complete integrals through the AGM (DLMF 19.8.1, 19.8.6;
//   Abramowitz & Stegun 17.6).
// - carlsonRF, ellipF(phi, m): incomplete integral of the first kind through Carlson's symmetric
//   form, F(φ|m) = sin φ · R_F(cos²φ, 1 − m sin²φ, 1) (DLMF 19.25.5; Carlson, "Numerical
//   computation of real or complex elliptic integrals", Numer. Algorithms 10, 1995), with the
//   duplication algorithm of Press et al., Numerical Recipes 3rd ed. §6.12.
// - jacobi(u, m): sn, cn, dn by the descending AGM / Landen scheme (DLMF 22.20(ii); A&S 16.4),
//   after reducing u modulo the real period 4K(m).
//
// All functions take 0 ≤ m ≤ 1 (ellipK and ellipE also accept m < 0); anything else is a
// RangeError, which callers check for before calling.

const EPS = 1e-16;

/** Arithmetic-geometric mean of two non-negative numbers. */
export function agm(a: number, b: number): number {
  if (!(a >= 0 && b >= 0)) throw new RangeError(`agm needs non-negative arguments, got ${a}, ${b}`);
  for (let i = 0; i < 64; i++) {
    const an = 0.5 * (a + b);
    const bn = Math.sqrt(a * b);
    a = an; b = bn;
    if (Math.abs(a - b) <= EPS * a) break;
  }
  return 0.5 * (a + b);
}

/** Complete elliptic integral of the first kind K(m) = F(π/2 | m), m < 1; K(1) = +∞. */
export function ellipK(m: number): number {
  if (!(m <= 1)) throw new RangeError(`ellipK needs m <= 1, got ${m}`);
  if (m === 1) return Infinity;
  return Math.PI / (2 * agm(1, Math.sqrt(1 - m)));
}

/** Complete elliptic integral of the second kind E(m), m ≤ 1 (AGM with the c_n series). */
export function ellipE(m: number): number {
  if (!(m <= 1)) throw new RangeError(`ellipE needs m <= 1, got ${m}`);
  if (m === 1) return 1;
  let a = 1, b = Math.sqrt(1 - m);
  let c2 = m; // c_0² = a_0² − b_0² = m
  let sum = 0.5 * c2; // Σ 2^{n−1} c_n², n = 0 term
  let pow = 0.5;
  for (let i = 0; i < 64; i++) {
    const an = 0.5 * (a + b);
    const bn = Math.sqrt(a * b);
    const cn = 0.5 * (a - b);
    a = an; b = bn;
    pow *= 2;
    c2 = cn * cn;
    sum += pow * c2;
    if (Math.abs(cn) <= EPS * a) break;
  }
  return (Math.PI / (2 * a)) * (1 - sum);
}

/** Carlson's symmetric integral R_F(x, y, z), x, y, z ≥ 0, at most one of them zero. */
export function carlsonRF(x: number, y: number, z: number): number {
  if (!(x >= 0 && y >= 0 && z >= 0) || (x + y === 0 || x + z === 0 || y + z === 0)) {
    throw new RangeError(`carlsonRF needs non-negative arguments with at most one zero, got ${x}, ${y}, ${z}`);
  }
  // The truncation error of the final series is ~ ERRTOL^6 / (4 (1 − ERRTOL)) (NR §6.12).
  const ERRTOL = 0.0008;
  let xt = x, yt = y, zt = z;
  let ave = 0, dx = 0, dy = 0, dz = 0;
  for (let i = 0; i < 200; i++) {
    const sx = Math.sqrt(xt), sy = Math.sqrt(yt), sz = Math.sqrt(zt);
    const lambda = sx * (sy + sz) + sy * sz;
    xt = 0.25 * (xt + lambda);
    yt = 0.25 * (yt + lambda);
    zt = 0.25 * (zt + lambda);
    ave = (xt + yt + zt) / 3;
    dx = (ave - xt) / ave;
    dy = (ave - yt) / ave;
    dz = (ave - zt) / ave;
    if (Math.max(Math.abs(dx), Math.abs(dy), Math.abs(dz)) <= ERRTOL) break;
  }
  const e2 = dx * dy - dz * dz;
  const e3 = dx * dy * dz;
  return (1 + (e2 / 24 - 0.1 - (3 * e3) / 44) * e2 + e3 / 14) / Math.sqrt(ave);
}

/** Incomplete elliptic integral of the first kind F(φ | m) for any real φ, 0 ≤ m ≤ 1. */
export function ellipF(phi: number, m: number): number {
  checkParameter(m);
  if (m === 1 && Math.abs(phi) >= Math.PI / 2) {
    if (Math.abs(phi) === Math.PI / 2) return Math.sign(phi) * Infinity;
    throw new RangeError('ellipF with m = 1 is infinite beyond |phi| = pi/2');
  }
  // F(φ + jπ | m) = F(φ | m) + 2jK(m) (DLMF 19.2.10)
  const j = Math.round(phi / Math.PI);
  const red = phi - j * Math.PI;
  const s = Math.sin(red), c = Math.cos(red);
  const base = s === 0 ? 0 : s * carlsonRF(c * c, 1 - m * s * s, 1);
  return j === 0 ? base : base + 2 * j * ellipK(m);
}

export interface JacobiValues { sn: number; cn: number; dn: number; }

/**
 * Jacobi elliptic functions sn(u|m), cn(u|m), dn(u|m) for real u and 0 ≤ m ≤ 1.
 * Writes into `out` when given (no allocation in loops).
 */
export function jacobi(u: number, m: number, out: JacobiValues = { sn: 0, cn: 0, dn: 0 }): JacobiValues {
  checkParameter(m);
  if (!Number.isFinite(u)) throw new RangeError(`jacobi needs a finite argument, got ${u}`);
  if (m < 1e-300) {
    out.sn = Math.sin(u); out.cn = Math.cos(u); out.dn = 1;
    return out;
  }
  if (m === 1) {
    const ch = Math.cosh(u);
    out.sn = Math.tanh(u); out.cn = 1 / ch; out.dn = 1 / ch;
    return out;
  }
  // Reduce u into [−2K, 2K]: sn and cn have real period 4K, dn has 2K.
  const K = ellipK(m);
  const period = 4 * K;
  let ur = u;
  if (Math.abs(ur) > 2 * K) ur = u - period * Math.round(u / period);
  // Descending AGM (DLMF 22.20.1-22.20.3): a_0 = 1, b_0 = √(1−m), c_0 = √m.
  const a = AGM_A, c = AGM_C;
  a[0] = 1; c[0] = Math.sqrt(m);
  let b = Math.sqrt(1 - m);
  let n = 0;
  while (Math.abs(c[n]) > EPS * a[n] && n < AGM_MAX - 1) {
    const an = 0.5 * (a[n] + b);
    c[n + 1] = 0.5 * (a[n] - b);
    b = Math.sqrt(a[n] * b);
    n++;
    a[n] = an;
  }
  // φ_N = 2^N a_N u, then φ_{n−1} = (φ_n + asin((c_n / a_n) sin φ_n)) / 2
  let phi = Math.pow(2, n) * a[n] * ur;
  for (let i = n; i > 0; i--) phi = 0.5 * (phi + Math.asin((c[i] / a[i]) * Math.sin(phi)));
  const sn = Math.sin(phi);
  out.sn = sn;
  out.cn = Math.cos(phi);
  out.dn = Math.sqrt(Math.max(0, 1 - m * sn * sn)); // dn > 0 for real u and m < 1
  return out;
}

const AGM_MAX = 64;
const AGM_A = new Float64Array(AGM_MAX);
const AGM_C = new Float64Array(AGM_MAX);

function checkParameter(m: number): void {
  if (!(m >= 0 && m <= 1)) throw new RangeError(`elliptic parameter m must lie in [0, 1], got ${m}`);
}
