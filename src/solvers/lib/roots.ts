// Scalar root finding on a bracket [a, b] with f(a)·f(b) <= 0.
// - bisection: halves the bracket; always converges, one bit per evaluation.
// - brent: Brent's method (R. P. Brent, "Algorithms for Minimization without Derivatives",
//   Prentice-Hall 1973, ch. 4; the `zeroin` form as in Press et al., Numerical Recipes 3rd ed.
//   §9.3): inverse quadratic interpolation and secant steps, safeguarded by bisection, so it never
//   does worse than bisection and converges superlinearly near a simple root.
// Both stop when the bracket is narrower than 2·(xtol + rtol·|x|) or f hits exactly zero.

export interface RootOptions {
  /** absolute tolerance on x (default 1e-14) */
  xtol?: number;
  /** relative tolerance on x (default 4 * machine epsilon) */
  rtol?: number;
  /** iteration cap (default 200) */
  maxIter?: number;
}

export interface RootResult {
  root: number;
  /** f(root) */
  fRoot: number;
  iterations: number;
  /** function evaluations, including the two at the ends of the bracket */
  evaluations: number;
  converged: boolean;
}

const EPS = 2.220446049250313e-16;

function checkBracket(fa: number, fb: number, a: number, b: number): void {
  if (!Number.isFinite(fa) || !Number.isFinite(fb)) throw new RangeError(`f is not finite at the bracket [${a}, ${b}]`);
  if (fa * fb > 0) throw new RangeError(`root not bracketed: f(${a}) = ${fa} and f(${b}) = ${fb} have the same sign`);
}

export function bisection(f: (x: number) => number, a: number, b: number, opts: RootOptions = {}): RootResult {
  const xtol = opts.xtol ?? 1e-14, rtol = opts.rtol ?? 4 * EPS, maxIter = opts.maxIter ?? 200;
  let fa = f(a);
  const fb = f(b);
  let evaluations = 2;
  checkBracket(fa, fb, a, b);
  if (fa === 0) return { root: a, fRoot: 0, iterations: 0, evaluations, converged: true };
  if (fb === 0) return { root: b, fRoot: 0, iterations: 0, evaluations, converged: true };
  let lo = a, hi = b;
  for (let it = 1; it <= maxIter; it++) {
    const mid = lo + 0.5 * (hi - lo);
    const fm = f(mid);
    evaluations++;
    if (fm === 0 || Math.abs(hi - lo) * 0.5 <= xtol + rtol * Math.abs(mid)) {
      return { root: mid, fRoot: fm, iterations: it, evaluations, converged: true };
    }
    if ((fm < 0) === (fa < 0)) { lo = mid; fa = fm; } else { hi = mid; }
  }
  const mid = lo + 0.5 * (hi - lo);
  return { root: mid, fRoot: f(mid), iterations: maxIter, evaluations: evaluations + 1, converged: false };
}

export function brent(f: (x: number) => number, a0: number, b0: number, opts: RootOptions = {}): RootResult {
  const xtol = opts.xtol ?? 1e-14, rtol = opts.rtol ?? 4 * EPS, maxIter = opts.maxIter ?? 200;
  let a = a0, b = b0;
  let fa = f(a), fb = f(b);
  let evaluations = 2;
  checkBracket(fa, fb, a, b);
  if (fa === 0) return { root: a, fRoot: 0, iterations: 0, evaluations, converged: true };
  if (fb === 0) return { root: b, fRoot: 0, iterations: 0, evaluations, converged: true };
  let c = a, fc = fa;
  let d = b - a, e = d;
  for (let it = 1; it <= maxIter; it++) {
    if ((fb > 0) === (fc > 0)) { c = a; fc = fa; d = b - a; e = d; }
    if (Math.abs(fc) < Math.abs(fb)) {
      // keep b the best estimate, c the other end of the bracket
      a = b; b = c; c = a;
      fa = fb; fb = fc; fc = fa;
    }
    const tol1 = 2 * rtol * Math.abs(b) + 0.5 * xtol;
    const xm = 0.5 * (c - b);
    if (Math.abs(xm) <= tol1 || fb === 0) {
      return { root: b, fRoot: fb, iterations: it, evaluations, converged: true };
    }
    if (Math.abs(e) >= tol1 && Math.abs(fa) > Math.abs(fb)) {
      let p: number, q: number;
      const s = fb / fa;
      if (a === c) {
        // secant step
        p = 2 * xm * s;
        q = 1 - s;
      } else {
        // inverse quadratic interpolation
        const qq = fa / fc, r = fb / fc;
        p = s * (2 * xm * qq * (qq - r) - (b - a) * (r - 1));
        q = (qq - 1) * (r - 1) * (s - 1);
      }
      if (p > 0) q = -q; else p = -p;
      const min1 = 3 * xm * q - Math.abs(tol1 * q);
      const min2 = Math.abs(e * q);
      if (2 * p < Math.min(min1, min2)) {
        e = d;
        d = p / q;
      } else {
        d = xm; e = d; // interpolation rejected: bisect
      }
    } else {
      d = xm; e = d;
    }
    a = b; fa = fb;
    b += Math.abs(d) > tol1 ? d : (xm > 0 ? tol1 : -tol1);
    fb = f(b);
    evaluations++;
    if (!Number.isFinite(fb)) throw new RangeError(`f is not finite at x = ${b}`);
  }
  return { root: b, fRoot: fb, iterations: maxIter, evaluations, converged: false };
}
