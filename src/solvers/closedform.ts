// closedform: the closed-form master field d²φ/dt² = mu2·φ + lambda·φ³ + F, solved exactly per
// branch, with an independent RK4 integration of the open form as a cross-check.
//
// Branches (after `compile.scale`, couplings and shaped operators are folded into mu2, lambda, F):
//   free            mu2 = lambda = F = 0           φ = φ0 + v0·t
//   uniform-accel   mu2 = lambda = 0, F ≠ 0        φ = φ0 + v0·t + F·t²/2
//   harmonic        mu2 < 0, lambda = F = 0        φ = φ0·cos ωt + (v0/ω)·sin ωt, ω = √(−mu2)
//   hyperbolic      mu2 > 0, lambda = F = 0        φ = φ0·cosh κt + (v0/κ)·sinh κt, κ = √mu2
//   driven          mu2 ≠ 0, F ≠ 0, lambda = 0     the above about the fixed point p = −F/mu2
//   duffing         lambda ≠ 0, F = 0              Jacobi elliptic functions (cn, dn or sn) whose
//                   modulus and frequency follow from the conserved energy (Byrd & Friedman,
//                   "Handbook of Elliptic Integrals", 2nd ed.; Lawden, "Elliptic Functions and
//                   Applications", ch. 3; DLMF §22.19(ii)), evaluated by the AGM (lib/elliptic.ts).
// KO42 perturbation (linear branches only): the master modulation multiplies the force,
//   φ'' = (mu2·φ + F)·(1 + ε·sin Ωt), ε = 1.29e-3 × (KO42 weight), Ω = 2π·1.287 rad/s,
// and the closed form carries its first-order term φ = φ⁽⁰⁾ + ε·φ⁽¹⁾, where φ⁽¹⁾'' − mu2·φ⁽¹⁾ =
// (mu2·φ⁽⁰⁾ + F)·sin Ωt, φ⁽¹⁾(0) = φ⁽¹⁾'(0) = 0 is solved exactly by undetermined coefficients on
// complex exponentials (with the secular t·e^{st} term at resonance, e.g. the parametric resonance
// ω = Ω/2), plus the homogeneous solution fixing the initial data (Nayfeh, "Perturbation Methods",
// §4.1). The RK4 cross-check integrates the full modulated equation, so the two agree to O(ε²).
// Stability: the closed form has none to meet; the RK4 step is chosen as 1/2000 of the fastest
// period (at most 2,000,000 steps), far inside RK4's stability interval |hω| < 2√2.
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { ellipF, ellipK, jacobi } from './lib/elliptic.ts';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffectRefusal } from './lib/no-effect.ts';

/** This solver's body has its own `operators` and `inputs`: the engine adds no common fields. */
export const noCommonFields = true;

export const KO42_ALPHA = 1.29e-3;
export const PULSE_HZ = 1.287;
const OMEGA_PULSE = 2 * Math.PI * PULSE_HZ;

const operatorObject = z.strictObject({
  id: z.string().min(1).max(80),
  /** the term this operator adds: phi (linear), phi^3 (cubic), const; phi^2, sqrt, exp are refused */
  shape: z.string().max(40).optional().describe('the term this operator adds: phi (to mu2), phi^3 (to lambda) or const (to F); phi^2, sqrt and exp are refused. Without shape the operator only joins the chain (KO42: sets the modulation weight)'),
  /** coefficient of the shaped term (default 1); for KO42 the scale of the modulation amplitude */
  weight: z.number().optional().describe('with shape: the coefficient of the term (default 1); on KO42 without shape: the scale of the modulation amplitude (default 1; linear branches only, once). Not on an operator that has neither'),
});

const coupling = z.strictObject({
  id: z.string().max(80).optional(),
  target: z.enum(['mu2', 'lambda', 'F']),
  value: z.number(),
});

const input = z.strictObject({
  mu2_eff: z.number().optional().describe('linear coefficient mu2 (default −1; inputs.mu2_eff when absent); couplings and phi-shaped operators add to it'),
  lambda_eff: z.number().optional().describe('cubic coefficient lambda (default 0; inputs.lambda_eff when absent); lambda ≠ 0 is the Duffing branch'),
  F_eff: z.number().optional().describe('constant force F (default 0; inputs.F_eff when absent)'),
  couplings: z.array(coupling).max(64).optional().describe('values added to mu2, lambda or F'),
  operators: z.array(operatorObject).max(32).optional().describe('operators {id, shape?, weight?}: with a shape they add a term; KO42 without shape sets the modulation weight; others only join the chain'),
  inputs: z.record(z.string(), z.number()).optional().describe('mu2_eff, lambda_eff, F_eff, phi0, dphi0, tEnd as numbers, merged under the top-level fields'),
  compile: z.strictObject({ scale: z.number().positive().max(1e12).default(1) }).optional().describe('{scale}: multiplies mu2, lambda and F after couplings and operators (default 1)'),
  phi0: z.number().optional().describe('initial value φ(0) (default 1)'),
  dphi0: z.number().optional().describe('initial rate φ\'(0) (default 0)'),
  tEnd: z.number().positive().max(1000).optional().describe('end time (default 10, at most 1000)'),
});

export type ClosedformInput = z.infer<typeof input>;

const DEFAULTS = { mu2_eff: -1, lambda_eff: 0, F_eff: 0, phi0: 1, dphi0: 0, tEnd: 10 };
const INPUT_KEYS = ['mu2_eff', 'lambda_eff', 'F_eff', 'phi0', 'dphi0', 'tEnd'] as const;
const REFUSED_SHAPES: Record<string, string> = {
  'phi^2': 'phi^2', 'phi**2': 'phi^2', 'phi2': 'phi^2', 'quadratic': 'phi^2', 'φ^2': 'phi^2', 'φ²': 'phi^2', 'phi²': 'phi^2',
  'sqrt': 'sqrt', 'sqrt(phi)': 'sqrt', 'sqrt(φ)': 'sqrt', '√phi': 'sqrt', '√φ': 'sqrt',
  'exp': 'exp', 'exp(phi)': 'exp', 'e^phi': 'exp', 'exp(φ)': 'exp', 'e^φ': 'exp',
};
const SHAPE_TARGET: Record<string, 'mu2' | 'lambda' | 'F'> = {
  'phi': 'mu2', 'φ': 'mu2', 'linear': 'mu2',
  'phi^3': 'lambda', 'phi**3': 'lambda', 'phi3': 'lambda', 'φ^3': 'lambda', 'φ³': 'lambda', 'phi³': 'lambda', 'cubic': 'lambda',
  'const': 'F', 'constant': 'F', '1': 'F', 'force': 'F',
};

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'closedform',
  domain: 'Closed-Form Master Field',
  method: 'closed-form-branch',
  methodDescription: 'analytic branch (compile, elliptic-function cn via AGM) plus KO42 perturbation',
  operators: ['KO42-tensioned'],
  unit: 'phi',
  summary: 'Exact solution of phi\'\' = mu2*phi + lambda*phi^3 + F per branch (free, uniform-accel, harmonic, hyperbolic, driven, Duffing via Jacobi elliptic functions), KO42 first-order perturbation, RK4 cross-check.',
  input,
  examples: [
    'Solve the Duffing equation phi\'\' = -phi - phi^3 exactly with Jacobi elliptic functions',
    'Closed-form solution of the master field with mu2 = -4 and phi0 = 1 at t = 3',
    'Exact field value for a hyperbolic branch mu2 = 0.5 starting at phi0 = 0.1',
    'Driven linear field with mu2 = -1 and constant forcing F = 2: what is phi at t_end = 5?',
    'Analytic solution of a double-well quartic oscillator phi\'\' = phi - phi^3 with phi0 = 0.5',
    'Uniformly accelerated field with F = 9.81 from rest, closed form versus RK4',
    'Compute phi(t) for the cubic oscillator using the cn function and the arithmetic-geometric mean',
    'Cross-check the closed-form master field against an RK4 integration of the open form',
    'Softening Duffing oscillator phi\'\' = -phi + 0.2 phi^3 below the barrier, exact sn solution',
  ],
  vocabulary: [
    'closed form', 'closed-form', 'exact solution', 'analytic', 'master field', 'duffing', 'cubic oscillator',
    'jacobi', 'elliptic function', 'cn', 'sn', 'dn', 'agm', 'arithmetic-geometric mean', 'mu2', 'lambda',
    'phi', 'field equation', 'branch', 'harmonic', 'hyperbolic', 'driven', 'uniform acceleration', 'double well',
    'anharmonic', 'quartic potential', 'ko42 perturbation',
  ],
};

interface Coefficients { mu: number; lam: number; F: number; phi0: number; v0: number; tEnd: number; }

function resolveCoefficients(inp: ClosedformInput): { c: Coefficients; scale: number; epsilon: number; chain: string[]; koWeightAt: number | null } {
  const extra = inp.inputs ?? {};
  const accepted = new Set<string>(INPUT_KEYS);
  const unknown = Object.keys(extra).filter((k) => !accepted.has(k));
  if (unknown.length) {
    throw refuse('INVALID_INPUT', `unknown inputs key(s) ${unknown.join(', ')}; accepted: ${INPUT_KEYS.join(', ')}`,
      { unknown, accepted: [...INPUT_KEYS] });
  }
  // top-level fields win over `inputs`, which win over the defaults
  const pick = (k: (typeof INPUT_KEYS)[number]): number => (inp[k] ?? extra[k] ?? DEFAULTS[k]);
  const tEnd = pick('tEnd');
  if (!(tEnd > 0 && tEnd <= 1000)) throw refuse('INVALID_INPUT', `tEnd must lie in (0, 1000], got ${tEnd}`);
  let mu = pick('mu2_eff'), lam = pick('lambda_eff'), F = pick('F_eff');
  for (const c of inp.couplings ?? []) {
    if (c.target === 'mu2') mu += c.value; else if (c.target === 'lambda') lam += c.value; else F += c.value;
  }
  let koWeight = 1;
  /** index of the KO42 operator whose weight sets the modulation, when one is given */
  let koWeightAt: number | null = null;
  const chain: string[] = [];
  for (const [i, op] of (inp.operators ?? []).entries()) {
    chain.push(op.id);
    const id = op.id.toUpperCase();
    if (op.shape === undefined) {
      if (id === 'KO42' || id === 'KO42-TENSIONED') {
        if (op.weight !== undefined) {
          if (koWeightAt !== null) throw noEffectRefusal(`operators.${i}.weight`, `beside operators.${koWeightAt}.weight: the KO42 modulation has one weight; send it once`);
          koWeightAt = i;
          koWeight = op.weight;
        }
      } else if (op.weight !== undefined) {
        // an operator without a shape only joins the chain; a weight there would change nothing
        throw noEffectRefusal(`operators.${i}.weight`, `without a shape: operator ${op.id} only joins the chain (give shape phi, phi^3 or const to add a term, or drop the weight)`);
      }
      continue;
    }
    const shape = op.shape.trim().toLowerCase().replace(/\s+/g, '');
    const refused = REFUSED_SHAPES[shape];
    if (refused) {
      throw refuse('SHAPE_REFUSED', `operator ${op.id}: shape ${refused} is refused; the closed form covers only phi, phi^3 and constant terms`,
        { operator: op.id, shape: refused, refused: ['phi^2', 'sqrt', 'exp'] });
    }
    const target = SHAPE_TARGET[shape];
    if (!target) {
      throw refuse('INVALID_INPUT', `operator ${op.id}: unknown shape '${op.shape}'; accepted: phi, phi^3, const (refused: phi^2, sqrt, exp)`);
    }
    const w = op.weight ?? 1;
    if (target === 'mu2') mu += w; else if (target === 'lambda') lam += w; else F += w;
  }
  const scale = inp.compile?.scale ?? 1;
  const c: Coefficients = { mu: scale * mu, lam: scale * lam, F: scale * F, phi0: pick('phi0'), v0: pick('dphi0'), tEnd };
  if (![c.mu, c.lam, c.F].every(Number.isFinite)) throw refuse('INVALID_INPUT', 'coefficients overflow after compile.scale');
  return { c, scale, epsilon: KO42_ALPHA * koWeight, chain, koWeightAt };
}

/** φ(t), φ'(t) of a branch */
type Evaluator = (t: number, out: Float64Array) => void;

interface BranchSolution {
  branch: string;
  /** φ⁽⁰⁾ and, for linear branches, φ⁽⁰⁾ + ε·φ⁽¹⁾ */
  unperturbed: Evaluator;
  full: Evaluator;
  modulated: boolean;
  /** fastest angular rate of the motion, for the RK4 step */
  rate: number;
  details: Record<string, unknown>;
}

// ---- linear branches -------------------------------------------------------------------------

/** fundamental solutions c(t), s(t) of y'' = mu·y with c(0)=1, c'(0)=0, s(0)=0, s'(0)=1 */
function fundamental(mu: number, t: number, out: Float64Array): void {
  if (mu < 0) {
    const w = Math.sqrt(-mu), cw = Math.cos(w * t), sw = Math.sin(w * t);
    out[0] = cw; out[1] = -w * sw; out[2] = sw / w; out[3] = cw;
  } else if (mu > 0) {
    const k = Math.sqrt(mu), ch = Math.cosh(k * t), sh = Math.sinh(k * t);
    out[0] = ch; out[1] = k * sh; out[2] = sh / k; out[3] = ch;
  } else {
    out[0] = 1; out[1] = 0; out[2] = t; out[3] = 1;
  }
}

/** A forcing term D·e^{σt} (complex D, σ) and its particular response of y'' − mu·y. */
interface ExpTerm { dr: number; di: number; sr: number; si: number; resonant: boolean; qr: number; qi: number; }

function linearBranch(c: Coefficients, epsilon: number): BranchSolution {
  const { mu, F, phi0, v0 } = c;
  const p = mu !== 0 ? -F / mu : 0;
  let branch: string;
  if (mu === 0) branch = F === 0 ? 'free' : 'uniform-accel';
  else if (F !== 0) branch = 'driven';
  else branch = mu < 0 ? 'harmonic' : 'hyperbolic';

  const fund = new Float64Array(4);
  const unperturbed: Evaluator = (t, out) => {
    if (mu === 0) {
      out[0] = phi0 + v0 * t + 0.5 * F * t * t;
      out[1] = v0 + F * t;
      return;
    }
    fundamental(mu, t, fund);
    const A = phi0 - p;
    out[0] = p + A * fund[0] + v0 * fund[2];
    out[1] = A * fund[1] + v0 * fund[3];
  };

  // g(t) = mu·φ⁽⁰⁾ + F written as Σ C·e^{s t}
  const base: { cr: number; ci: number; sr: number; si: number }[] = [];
  if (mu < 0) {
    const w = Math.sqrt(-mu), A = phi0 - p, B = v0 / w;
    base.push({ cr: (mu * A) / 2, ci: (-mu * B) / 2, sr: 0, si: w });
    base.push({ cr: (mu * A) / 2, ci: (mu * B) / 2, sr: 0, si: -w });
  } else if (mu > 0) {
    const k = Math.sqrt(mu), A = phi0 - p, B = v0 / k;
    base.push({ cr: (mu * (A + B)) / 2, ci: 0, sr: k, si: 0 });
    base.push({ cr: (mu * (A - B)) / 2, ci: 0, sr: -k, si: 0 });
  } else if (F !== 0) {
    base.push({ cr: F, ci: 0, sr: 0, si: 0 });
  }
  // times sin Ωt = (−i/2)·e^{iΩt} + (i/2)·e^{−iΩt}
  const W = OMEGA_PULSE;
  const tol = 1e-9 * Math.max(Math.abs(mu), W * W);
  const terms: ExpTerm[] = [];
  let resonance = false;
  for (const b of base) {
    for (const sign of [1, -1]) {
      // D = C·(∓i/2): (cr + i ci)(−sign·i/2) = (sign·ci/2) + i(−sign·cr/2)
      const dr = (sign * b.ci) / 2, di = (-sign * b.cr) / 2;
      const sr = b.sr, si = b.si + sign * W;
      const s2r = sr * sr - si * si - mu, s2i = 2 * sr * si;
      const resonant = Math.hypot(s2r, s2i) <= tol;
      let qr: number, qi: number;
      if (resonant) {
        // y_p = D·t·e^{σt} / (2σ): store D / (2σ)
        resonance = true;
        // D/(2σ) = D·conj(σ)/(2|σ|²)
        const den = 2 * (sr * sr + si * si);
        qr = (dr * sr + di * si) / den; qi = (di * sr - dr * si) / den;
      } else {
        // y_p = D·e^{σt} / (σ² − mu)
        const den = s2r * s2r + s2i * s2i;
        qr = (dr * s2r + di * s2i) / den; qi = (di * s2r - dr * s2i) / den;
      }
      if (dr !== 0 || di !== 0) terms.push({ dr, di, sr, si, resonant, qr, qi });
    }
  }
  const particular = (t: number, out: Float64Array) => {
    let y = 0, yp = 0;
    for (const term of terms) {
      const mag = Math.exp(term.sr * t), er = mag * Math.cos(term.si * t), ei = mag * Math.sin(term.si * t);
      // Q·e^{σt}
      const zr = term.qr * er - term.qi * ei, zi = term.qr * ei + term.qi * er;
      if (term.resonant) {
        // y = t·Q·e^{σt}, y' = Q·e^{σt}·(1 + σt)
        y += t * zr;
        yp += zr * (1 + term.sr * t) - zi * (term.si * t);
      } else {
        y += zr;
        yp += zr * term.sr - zi * term.si;
      }
    }
    out[0] = y; out[1] = yp;
  };
  const p0 = new Float64Array(2);
  particular(0, p0);
  const Y0 = p0[0], Y1 = p0[1];
  const tmp = new Float64Array(2), base0 = new Float64Array(2);
  const full: Evaluator = (t, out) => {
    unperturbed(t, base0);
    if (epsilon === 0 || terms.length === 0) { out[0] = base0[0]; out[1] = base0[1]; return; }
    particular(t, tmp);
    fundamental(mu, t, fund);
    const y1 = tmp[0] - Y0 * fund[0] - Y1 * fund[2];
    const y1p = tmp[1] - Y0 * fund[1] - Y1 * fund[3];
    out[0] = base0[0] + epsilon * y1;
    out[1] = base0[1] + epsilon * y1p;
  };
  const rate = Math.max(Math.sqrt(Math.abs(mu)), epsilon !== 0 ? W : 0);
  const details: Record<string, unknown> = {};
  if (branch === 'driven') { details.drivenKind = mu < 0 ? 'harmonic' : 'hyperbolic'; details.fixedPoint = p; }
  if (mu < 0) details.omega = Math.sqrt(-mu);
  if (mu > 0) details.growthRate = Math.sqrt(mu);
  details.ko42 = { applied: epsilon !== 0, epsilon, Omega: W, order: 'first', resonance };
  return { branch, unperturbed, full, modulated: epsilon !== 0, rate, details };
}

// ---- Duffing ---------------------------------------------------------------------------------

function duffingBranch(c: Coefficients): BranchSolution {
  const { mu, lam, F, phi0: x0, v0 } = c;
  if (F !== 0) {
    throw refuse('INVALID_INPUT', 'lambda != 0 with F != 0 (a biased Duffing field) has no Jacobi cn/sn/dn closed form; set F_eff = 0 or lambda_eff = 0');
  }
  // x'' + a·x + b·x³ = 0, energy E = v²/2 + a·x²/2 + b·x⁴/4
  const a = -mu, b = -lam;
  const E = 0.5 * v0 * v0 + 0.5 * a * x0 * x0 + 0.25 * b * x0 ** 4;
  const details: Record<string, unknown> = { energy: E, a, b };
  if (x0 === 0 && v0 === 0) {
    const zero: Evaluator = (_t, out) => { out[0] = 0; out[1] = 0; };
    return { branch: 'duffing', unperturbed: zero, full: zero, modulated: false, rate: Math.sqrt(Math.abs(a)), details: { ...details, function: 'equilibrium' } };
  }
  let fn: 'cn' | 'dn' | 'sn';
  let A: number, omega: number, m: number;
  if (b > 0) {
    const D = Math.sqrt(a * a + 4 * b * E);
    const A2 = a >= 0 ? (4 * E) / (a + D) : (-a + D) / b;
    A = Math.sqrt(A2);
    if (a >= 0 || E > 0) {
      // x = A·cn(ωt + u0 | m): ω² = a + b·A², m = b·A² / (2ω²)   (hardening; or over the double-well hump)
      fn = 'cn';
      omega = Math.sqrt(a + b * A2);
      m = (b * A2) / (2 * omega * omega);
    } else {
      // inside one well of the double well: x = ±A·dn(ωt + u0 | m), ω² = b·A²/2, m = 2 − 2(−a)/(b·A²)
      fn = 'dn';
      omega = Math.sqrt(0.5 * b * A2);
      m = 2 - (2 * -a) / (b * A2);
    }
  } else {
    // b < 0: softening. Bounded only for a > 0 inside the barrier x² < a/|b| with E below its top.
    const bb = -b;
    const barrierE = a > 0 ? (a * a) / (4 * bb) : 0;
    if (!(a > 0) || !(E < barrierE) || !(x0 * x0 < a / bb)) {
      throw refuse('INVALID_INPUT',
        a > 0
          ? `softening Duffing field above its barrier (energy ${E} >= ${barrierE} or |phi0| beyond sqrt(mu2/lambda)): the solution escapes to infinity in finite time; no bounded elliptic solution`
          : 'mu2 >= 0 with lambda > 0: every non-zero solution escapes to infinity in finite time; no bounded elliptic solution',
        { energy: E, barrierEnergy: a > 0 ? barrierE : null });
    }
    // x = A·sn(ωt + u0 | m): ω² = a − |b|A²/2, m = |b|A² / (2ω²)
    fn = 'sn';
    const A2 = (4 * E) / (a + Math.sqrt(a * a - 4 * bb * E));
    A = Math.sqrt(A2);
    omega = Math.sqrt(a - 0.5 * bb * A2);
    m = (bb * A2) / (2 * omega * omega);
  }
  m = Math.min(1, Math.max(0, m));
  const K = ellipK(m);
  const clamp1 = (x: number) => Math.max(-1, Math.min(1, x));
  let u0: number;
  let sign = 1;
  if (fn === 'cn') {
    // cn(u0) = x0/A with u0 in [0, 2K]; v = −Aω·sn·dn ≤ 0 there, so v0 > 0 takes −u0
    u0 = ellipF(Math.acos(clamp1(x0 / A)), m);
    if (v0 > 0) u0 = -u0;
  } else if (fn === 'dn') {
    sign = x0 < 0 ? -1 : 1;
    const sn2 = m > 0 ? Math.max(0, Math.min(1, (1 - (x0 / A) ** 2) / m)) : 0;
    u0 = ellipF(Math.asin(Math.sqrt(sn2)), m);
    // x' = −sign·A·ω·m·sn·cn < 0·sign for u0 in (0, K)
    if (v0 * sign > 0) u0 = -u0;
  } else {
    u0 = ellipF(Math.asin(clamp1(x0 / A)), m);
    if (v0 < 0) u0 = 2 * K - u0;
  }
  if (![A, omega, u0, m].every(Number.isFinite)) {
    throw refuse('INVALID_INPUT', 'the Duffing parameters over- or underflow double precision (the elliptic modulus, amplitude or phase is not finite); rescale the problem');
  }
  const jv = { sn: 0, cn: 0, dn: 0 };
  const evalFn: Evaluator = (t, out) => {
    const u = omega * t + u0;
    jacobi(u, m, jv);
    if (fn === 'cn') { out[0] = A * jv.cn; out[1] = -A * omega * jv.sn * jv.dn; }
    else if (fn === 'dn') { out[0] = sign * A * jv.dn; out[1] = -sign * A * omega * m * jv.sn * jv.cn; }
    else { out[0] = A * jv.sn; out[1] = A * omega * jv.cn * jv.dn; }
  };
  const period = Number.isFinite(K) ? (fn === 'dn' ? 2 * K : 4 * K) / omega : null;
  details.elliptic = { function: fn, amplitude: A, omega, m, K: Number.isFinite(K) ? K : null, u0, period, case: b > 0 ? (a >= 0 ? 'hardening' : 'double-well') : 'softening' };
  details.ko42 = { applied: false, reason: 'the KO42 first-order perturbation is defined on the linear branches only' };
  return { branch: 'duffing', unperturbed: evalFn, full: evalFn, modulated: false, rate: omega, details };
}

// ---- RK4 cross-check of the open form --------------------------------------------------------

function rk4CrossCheck(c: Coefficients, epsilon: number, modulated: boolean, rate: number,
  samples: number, onSample: (i: number, phi: number) => void, progress: (f: number) => void) {
  const { mu, lam, F, tEnd } = c;
  const eps = modulated ? epsilon : 0;
  const W = OMEGA_PULSE;
  const f = (t: number, y: Float64Array, out: Float64Array) => {
    const x = y[0];
    out[0] = y[1];
    out[1] = (mu * x + lam * x * x * x + F) * (eps !== 0 ? 1 + eps * Math.sin(W * t) : 1);
  };
  // 2000 steps per fastest period, at least 400 steps over the run, at most 2,000,000
  const hWanted = Math.min(tEnd / 400, rate > 0 ? (2 * Math.PI) / (rate * 2000) : Infinity);
  const perSample = Math.max(1, Math.ceil(tEnd / hWanted / (samples - 1)));
  const stepsCap = 2_000_000;
  const stepsPer = Math.min(perSample, Math.floor(stepsCap / (samples - 1)));
  const steps = stepsPer * (samples - 1);
  const h = tEnd / steps;
  const y = Float64Array.of(c.phi0, c.v0);
  const ws = rk4Workspace(2);
  onSample(0, y[0]);
  for (let k = 1; k <= steps; k++) {
    rk4Step(f, (k - 1) * h, y, h, ws);
    if (k % stepsPer === 0) { onSample(k / stepsPer, y[0]); progress(k / steps); }
  }
  return { phi: y[0], dphi: y[1], steps, h, capped: perSample > stepsPer };
}

export const run: SolverRun<ClosedformInput> = (inp, ctx) => {
  const { c, scale, epsilon, chain, koWeightAt } = resolveCoefficients(inp);
  if (c.lam !== 0 && koWeightAt !== null) {
    throw noEffectRefusal(`operators.${koWeightAt}.weight`, 'on the Duffing branch (lambda ≠ 0): the KO42 first-order perturbation is defined on the linear branches only');
  }
  const sol = c.lam !== 0 ? duffingBranch(c) : linearBranch(c, epsilon);
  const samples = 201;
  const tSeries: number[] = new Array(samples), phiSeries: number[] = new Array(samples), rkSeries: number[] = new Array(samples);
  const tmp = new Float64Array(2);
  let amplitude = 0;
  for (let i = 0; i < samples; i++) {
    const t = (i / (samples - 1)) * c.tEnd;
    sol.full(t, tmp);
    tSeries[i] = t; phiSeries[i] = tmp[0];
    amplitude = Math.max(amplitude, Math.abs(tmp[0]));
  }
  const end = new Float64Array(2), end0 = new Float64Array(2);
  sol.full(c.tEnd, end);
  sol.unperturbed(c.tEnd, end0);
  if (!Number.isFinite(end[0]) || !Number.isFinite(end[1]) || !Number.isFinite(amplitude)) {
    throw refuse('INVALID_INPUT', `phi(t_end) overflows double precision on the ${sol.branch} branch; shorten tEnd`, { branch: sol.branch });
  }
  const rk = rk4CrossCheck(c, epsilon, sol.modulated, sol.rate, samples, (i, phi) => { rkSeries[i] = phi; }, ctx.progress);
  const diff = Math.abs(end[0] - rk.phi);
  const scaleRef = Math.max(amplitude, Math.abs(end[0]), Number.MIN_VALUE);
  const errorPct = (100 * diff) / scaleRef;
  const out: SolverOutput = {
    value: end[0],
    result: {
      t_end: c.tEnd,
      branch: sol.branch,
      phi: end[0],
      dphi: end[1],
      coefficients: { mu2: c.mu, lambda: c.lam, F: c.F, scale },
      initial: { phi0: c.phi0, dphi0: c.v0 },
      unperturbedPhi: end0[0],
      ko42Correction: end[0] - end0[0],
      operatorChain: ['KO42-tensioned', ...chain.filter((id) => !/^KO42(-tensioned)?$/i.test(id))],
      rk4: { phi: rk.phi, dphi: rk.dphi, steps: rk.steps, h: rk.h, stepCapReached: rk.capped },
      crossCheckAbsDiff: diff,
      crossCheckScale: scaleRef,
      ...sol.details,
    },
    precision: precisionOf({
      errorPct,
      reference: 'RK4 cross-check of the open form (difference relative to max |phi| on [0, t_end])',
      referenceValue: rk.phi,
    }),
    series: { t: tSeries, phi: phiSeries, phiRk4: rkSeries },
    method: `closed-form-${sol.branch}`,
  };
  return out;
};
