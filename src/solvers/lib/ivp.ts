// Adaptive initial-value-problem integrators for y' = f(t, y), y(t0) = y0, with dense output,
// event location and automatic stiffness switching. The step-size controllers and the Newton
// iterations follow the classical codes (and SciPy's solve_ivp, which implements the same
// algorithms), so that the methods can be compared one to one:
//
// - RK45: Dormand & Prince 5(4) (J. Comput. Appl. Math. 6, 19, 1980), 7 stages with FSAL,
//   local extrapolation, error estimator of order 4; continuous extension of order 4 (Shampine,
//   Math. Comp. 46, 135, 1986; Hairer, Nørsett & Wanner, "Solving ODEs I", 2nd ed., §II.4-II.6).
//   Stability: explicit, real-axis stability boundary ≈ 3.3 (h·|λ| ≤ 3.3 for λ < 0).
// - DOP853: Dormand-Prince 8(5,3) (Hairer, Nørsett & Wanner I, §II.10 and the code dop853.f):
//   12 stages + FSAL, the combined 5th/3rd-order error estimate of dop853, and the 7th-order
//   dense output using 3 extra stages. Real-axis stability boundary ≈ 6.
// - Radau: Radau IIA of order 5 (3 stages, L-stable; Hairer & Wanner, "Solving ODEs II", 2nd ed.,
//   §IV.8 and the code radau5.f): simplified Newton iterations with the 3×3 collocation system
//   transformed by the eigen-decomposition of A⁻¹ into one real and one complex n×n system
//   ((γ/h)·I − J, ((α ± iβ)/h)·I − J), convergence-rate monitoring, the embedded error
//   estimate filtered through ((γ/h)·I − J)⁻¹ (IV.8.19-8.20), and Gustafsson's predictive step
//   controller (IV.8.25). Dense output: the collocation polynomial.
// - BDF: variable-order (1-5) numerical differentiation formulas of Shampine & Reichelt ("The
//   MATLAB ODE suite", SIAM J. Sci. Comput. 18, 1, 1997; κ coefficients of ode15s), in the
//   quasi-constant step-size form: backward differences D^j y kept on an equally spaced grid and
//   rescaled when the step changes (the R·U transformation of §2.2 there); order raised or
//   lowered after order+1 steps at constant size by comparing the error estimates at k−1, k, k+1.
//   Dense output: the interpolating polynomial in backward differences.
// - Stiffness detection for 'auto' (Hairer, Nørsett & Wanner I, §IV.10 (10.3); dopri5.f): after
//   each accepted explicit step, h·λ ≈ h·‖k_s − k_{s−1}‖/‖y_s − y_{s−1}‖ from the last two stages
//   (both at c = 1); 15 consecutive steps with h·λ above the stability boundary (3.25 for RK45,
//   6.1 for DOP853) switch to Radau. Radau hands back to the explicit method after 15
//   consecutive steps with h·‖J‖∞ < 2 (‖J‖∞ ≥ spectral radius, so the explicit method would be
//   stable at the step Radau is taking).
// Error norms are the root mean square of e_i/(atol_i + rtol·|y_i|) (Hairer I, (4.11)).
// Events: after each step, sign changes of g(t, y) between the step's ends are located by
// Brent's method (lib/roots.ts) on the dense output.
import { luAlloc, luFactor, luSolve, complexLuAlloc, complexLuFactor, complexLuSolve, type LuFactor, type ComplexLuFactor } from './lu.ts';
import { brent } from './roots.ts';

export type IvpMethod = 'RK45' | 'DOP853' | 'Radau' | 'BDF';

export interface IvpSystem {
  n: number;
  /** dy = f(t, y) */
  f(t: number, y: Float64Array, dy: Float64Array): void;
  /** J[i*n+j] = ∂f_i/∂y_j; finite differences when absent */
  jac?(t: number, y: Float64Array, J: Float64Array): void;
}

export interface IvpStats {
  nfev: number;
  njev: number;
  nlu: number;
  steps: number;
  rejected: number;
}

export interface IvpEvent {
  g(t: number, y: Float64Array): number;
  terminal: boolean;
  /** −1: falling zeros only, +1: rising only, 0: both */
  direction: number;
}

export interface IvpEventHit { index: number; t: number; y: Float64Array }

export interface IvpSwitch { t: number; from: IvpMethod; to: IvpMethod }

export interface IvpOptions {
  method: IvpMethod | 'auto';
  rtol: number;
  atol: number | ArrayLike<number>;
  /** output times, non-decreasing, inside [t0, t1] */
  tEval?: ArrayLike<number>;
  events?: IvpEvent[];
  maxSteps?: number;
  maxNfev?: number;
  /** event occurrences kept (later ones are counted only) */
  maxEvents?: number;
  firstStep?: number;
  maxStep?: number;
  progress?(fraction: number): void;
}

export type IvpFailure = 'underflow' | 'nonfinite' | 'maxSteps' | 'maxNfev';

export interface IvpResult {
  ok: boolean;
  message: string;
  failure?: IvpFailure;
  tFail?: number;
  /** output times reached (a prefix of tEval) */
  tOut: Float64Array;
  /** per state, the values at tOut */
  yOut: Float64Array[];
  tEnd: number;
  yEnd: Float64Array;
  events: IvpEventHit[];
  eventCount: number;
  terminated: boolean;
  method: IvpMethod;
  switches: IvpSwitch[];
  stats: IvpStats;
}

const EPS = 2.220446049250313e-16;
const SAFETY = 0.9;
const MIN_FACTOR = 0.2;
const MAX_FACTOR = 10;

class IvpStop extends Error {
  readonly failure: IvpFailure;
  constructor(failure: IvpFailure, message: string) { super(message); this.failure = failure; }
}

/** Smallest step allowed at t: ten units in the last place (SciPy's rule). */
function minStepAt(t: number): number {
  const a = Math.abs(t);
  return a === 0 ? 10 * Number.MIN_VALUE : 10 * a * EPS;
}

/** The evaluation context shared by the steppers: counted f, Jacobian (analytic or forward
 * differences), tolerances. */
class Problem {
  readonly n: number;
  readonly atol: Float64Array;
  readonly stats: IvpStats = { nfev: 0, njev: 0, nlu: 0, steps: 0, rejected: 0 };
  readonly sys: IvpSystem;
  readonly rtol: number;
  readonly maxNfev: number;
  readonly maxStep: number;
  private fdY: Float64Array;
  private fdF: Float64Array;
  constructor(sys: IvpSystem, rtol: number, atol: number | ArrayLike<number>, maxNfev: number, maxStep: number) {
    this.sys = sys; this.rtol = rtol; this.maxNfev = maxNfev; this.maxStep = maxStep;
    this.n = sys.n;
    this.atol = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) this.atol[i] = typeof atol === 'number' ? atol : atol[i];
    this.fdY = new Float64Array(this.n);
    this.fdF = new Float64Array(this.n);
  }

  fun(t: number, y: Float64Array, out: Float64Array): void {
    if (++this.stats.nfev > this.maxNfev) throw new IvpStop('maxNfev', `evaluation cap reached (${this.maxNfev} evaluations of f)`);
    this.sys.f(t, y, out);
  }

  /** J = ∂f/∂y at (t, y); f0 = f(t, y) is needed only for the finite-difference fallback (null:
   * evaluated here). */
  jac(t: number, y: Float64Array, f0: Float64Array | null, J: Float64Array): void {
    this.stats.njev++;
    if (this.sys.jac) { this.sys.jac(t, y, J); return; }
    if (!f0) { f0 = new Float64Array(this.n); this.fun(t, y, f0); }
    // forward differences, column by column; the increment is √eps times the component's
    // magnitude, floored at atol/rtol (below which the component counts as noise), and made
    // exactly representable so that the divided difference has no extra rounding
    const n = this.n, yy = this.fdY, ff = this.fdF;
    yy.set(y);
    for (let j = 0; j < n; j++) {
      const typ = Math.max(Math.abs(y[j]), this.atol[j] / this.rtol);
      const tmp = y[j] + Math.sqrt(EPS) * (typ > 0 ? typ : 1);
      const dj = tmp - y[j];
      yy[j] = tmp;
      this.fun(t, yy, ff);
      yy[j] = y[j];
      for (let i = 0; i < n; i++) J[i * n + j] = (ff[i] - f0[i]) / dj;
    }
  }

  /** RMS of x_i / scale_i over `count` entries (x may be longer: scale repeats every n) */
  rms(x: Float64Array, scale: Float64Array, count = this.n): number {
    const n = this.n;
    let s = 0;
    for (let k = 0; k < count; k++) { const v = x[k] / scale[k % n]; s += v * v; }
    return Math.sqrt(s / count);
  }
}

/** Hairer's starting step (Hairer, Nørsett & Wanner I, §II.4, p. 169), for a method whose error
 * estimator has order `order`. */
function initialStep(p: Problem, t0: number, y0: Float64Array, f0: Float64Array, tBound: number, order: number): number {
  const n = p.n;
  const interval = Math.abs(tBound - t0);
  if (n === 0 || interval === 0) return interval;
  const scale = new Float64Array(n);
  for (let i = 0; i < n; i++) scale[i] = p.atol[i] + Math.abs(y0[i]) * p.rtol;
  const d0 = p.rms(y0, scale), d1 = p.rms(f0, scale);
  let h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
  h0 = Math.min(h0, interval);
  const y1 = new Float64Array(n), f1 = new Float64Array(n);
  for (let i = 0; i < n; i++) y1[i] = y0[i] + h0 * f0[i];
  p.fun(t0 + h0, y1, f1);
  for (let i = 0; i < n; i++) f1[i] -= f0[i];
  const d2 = p.rms(f1, scale) / h0;
  const h1 = d1 <= 1e-15 && d2 <= 1e-15 ? Math.max(1e-6, h0 * 1e-3) : Math.pow(0.01 / Math.max(d1, d2), 1 / (order + 1));
  let h = Math.min(100 * h0, h1, interval, p.maxStep);
  if (!(h > 0)) h = Math.min(1e-6, interval);
  return h;
}

interface Stepper {
  readonly method: IvpMethod;
  t: number;
  y: Float64Array;
  /** f(t, y) at the current point (the explicit methods and Radau keep it; BDF does not) */
  f: Float64Array;
  tOld: number;
  /** the next step size to try */
  hAbs: number;
  /** one accepted step towards tBound (never past it); null on success, else why it failed */
  step(tBound: number): string | null;
  /** dense output on [tOld, t] */
  interp(tq: number, out: Float64Array): void;
  /** after a step: h·λ estimate (explicit) or h·‖J‖∞ (Radau) for the stiffness switch */
  stiffIndicator(): number;
}

// ---------------------------------------------------------------------------------------------
// Explicit embedded Runge-Kutta pairs

interface Tableau {
  method: 'RK45' | 'DOP853';
  stages: number;
  c: number[];
  a: number[][];
  b: number[];
  errorOrder: number;
  /** real-axis stability boundary used by the stiffness test */
  stiffLimit: number;
}

const RK45_TABLEAU: Tableau = {
  method: 'RK45',
  stages: 6,
  c: [0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1],
  a: [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
  ],
  b: [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
  errorOrder: 4,
  stiffLimit: 3.25,
};
/** b − b̂ of Dormand-Prince 5(4), the 7th (FSAL) stage included */
const RK45_E = [-71 / 57600, 0, 71 / 16695, -71 / 1920, 17253 / 339200, -22 / 525, 1 / 40];
/** Shampine's continuous extension: y(t_old + θh) = y_old + h·Σ_k K_k·Σ_m P[k][m]·θ^(m+1) */
const RK45_P = [
  [1.0, -2.8535800653862835, 3.0717434641059005, -1.1270175653862835],
  [0, 0, 0, 0],
  [0.0, 4.023133379230305, -6.249321565289, 2.675424484351598],
  [0.0, -3.7324019615885042, 10.068970589843675, -5.685526961588504],
  [0.0, 2.5548038301849423, -6.399112377351017, 3.5219323679207912],
  [0.0, -1.3744241142186024, 3.272657752246729, -1.7672812570757455],
  [0.0, 1.3824689317781436, -3.764937863556287, 2.382468931778144],
];

// Dormand-Prince 8(5,3): the coefficients of Hairer's dop853.f (Hairer, Nørsett & Wanner I,
// §II.10), rows 13-15 being the three extra stages of the 7th-order dense output.
const C853 = [0.0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726, 0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6, 0.8571428571428571, 1.0, 1.0, 0.1, 0.2, 0.7777777777777778];
const A853: number[][] = [
  [],
  [0.05260015195876773],
  [0.0197250569845379, 0.0591751709536137],
  [0.02958758547680685, 0.0, 0.08876275643042054],
  [0.2413651341592667, 0.0, -0.8845494793282861, 0.924834003261792],
  [0.037037037037037035, 0.0, 0.0, 0.17082860872947386, 0.12546768756682242],
  [0.037109375, 0.0, 0.0, 0.17025221101954405, 0.06021653898045596, -0.017578125],
  [0.03709200011850479, 0.0, 0.0, 0.17038392571223998, 0.10726203044637328, -0.015319437748624402, 0.008273789163814023],
  [0.6241109587160757, 0.0, 0.0, -3.3608926294469414, -0.868219346841726, 27.59209969944671, 20.154067550477894, -43.48988418106996],
  [0.47766253643826434, 0.0, 0.0, -2.4881146199716677, -0.590290826836843, 21.230051448181193, 15.279233632882423, -33.28821096898486, -0.020331201708508627],
  [-0.9371424300859873, 0.0, 0.0, 5.186372428844064, 1.0914373489967295, -8.149787010746927, -18.52006565999696, 22.739487099350505, 2.4936055526796523, -3.0467644718982196],
  [2.273310147516538, 0.0, 0.0, -10.53449546673725, -2.0008720582248625, -17.9589318631188, 27.94888452941996, -2.8589982771350235, -8.87285693353063, 12.360567175794303, 0.6433927460157636],
  [0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003, -5.801203960010585, 0.3111643669578199, -0.1521609496625161, 0.20136540080403034, 0.04471061572777259],
  [0.056167502283047954, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25350021021662483, -0.2462390374708025, -0.12419142326381637, 0.15329179827876568, 0.00820105229563469, 0.007567897660545699, -0.008298],
  [0.03183464816350214, 0.0, 0.0, 0.0, 0.0, 0.028300909672366776, 0.053541988307438566, -0.05492374857139099, 0.0, 0.0, -0.00010834732869724932, 0.0003825710908356584, -0.00034046500868740456, 0.1413124436746325],
  [-0.42889630158379194, 0.0, 0.0, 0.0, 0.0, -4.697621415361164, 7.683421196062599, 4.06898981839711, 0.3567271874552811, 0.0, 0.0, 0.0, -0.0013990241651590145, 2.9475147891527724, -9.15095847217987],
];
const E3_853 = [-0.18980075407240762, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003, -5.801203960010585, -0.4226823213237919, -0.1521609496625161, 0.20136540080403034, 0.02265179219836082, 0.0];
const E5_853 = [0.01312004499419488, 0.0, 0.0, 0.0, 0.0, -1.2251564463762044, -0.4957589496572502, 1.6643771824549864, -0.35032884874997366, 0.3341791187130175, 0.08192320648511571, -0.022355307863886294, 0.0];
const D853: number[][] = [
  [-8.428938276109013, 0.0, 0.0, 0.0, 0.0, 0.5667149535193777, -3.0689499459498917, 2.38466765651207, 2.117034582445028, -0.871391583777973, 2.2404374302607883, 0.6315787787694688, -0.08899033645133331, 18.148505520854727, -9.194632392478356, -4.436036387594894],
  [10.427508642579134, 0.0, 0.0, 0.0, 0.0, 242.28349177525817, 165.20045171727028, -374.5467547226902, -22.113666853125306, 7.733432668472264, -30.674084731089398, -9.332130526430229, 15.697238121770845, -31.139403219565178, -9.35292435884448, 35.81684148639408],
  [19.985053242002433, 0.0, 0.0, 0.0, 0.0, -387.0373087493518, -189.17813819516758, 527.8081592054236, -11.57390253995963, 6.8812326946963, -1.0006050966910838, 0.7777137798053443, -2.778205752353508, -60.19669523126412, 84.32040550667716, 11.99229113618279],
  [-25.69393346270375, 0.0, 0.0, 0.0, 0.0, -154.18974869023643, -231.5293791760455, 357.6391179106141, 93.40532418362432, -37.45832313645163, 104.0996495089623, 29.8402934266605, -43.53345659001114, 96.32455395918828, -39.17726167561544, -149.72683625798564],
];

const DOP853_TABLEAU: Tableau = {
  method: 'DOP853',
  stages: 12,
  c: C853.slice(0, 12),
  a: A853.slice(0, 12),
  b: A853[12],
  errorOrder: 7,
  stiffLimit: 6.1,
};

/** nonzero entries of a row, for the stage sums */
function sparseRow(row: number[]): { idx: Int32Array; val: Float64Array } {
  const idx: number[] = [], val: number[] = [];
  row.forEach((v, j) => { if (v !== 0) { idx.push(j); val.push(v); } });
  return { idx: Int32Array.from(idx), val: Float64Array.from(val) };
}

class RungeKutta implements Stepper {
  readonly method: 'RK45' | 'DOP853';
  t: number;
  y: Float64Array;
  f: Float64Array;
  tOld: number;
  hAbs: number;
  private yOld: Float64Array;
  private hTaken = 0;
  private readonly tab: Tableau;
  private readonly rows: { idx: Int32Array; val: Float64Array }[];
  /** K[0..stages] (the last one is f at the new point, FSAL); DOP853 adds 3 for dense output */
  private readonly K: Float64Array[];
  private readonly yNew: Float64Array;
  private readonly yStage: Float64Array;
  private readonly scale: Float64Array;
  private readonly err: Float64Array;
  private readonly err3: Float64Array;
  private denseReady = false;
  /** RK45: Q (4 rows of n); DOP853: F (7 rows of n) */
  private readonly dense: Float64Array[];
  private stiff = 0;
  private readonly p: Problem;

  constructor(p: Problem, t0: number, y0: Float64Array, f0: Float64Array | null, h0: number | null, tBound: number, method: 'RK45' | 'DOP853') {
    this.p = p;
    const n = p.n;
    this.method = method;
    this.tab = method === 'RK45' ? RK45_TABLEAU : DOP853_TABLEAU;
    this.rows = this.tab.a.map(sparseRow);
    const nK = this.tab.stages + 1 + (method === 'DOP853' ? 3 : 0);
    this.K = Array.from({ length: nK }, () => new Float64Array(n));
    this.dense = Array.from({ length: method === 'RK45' ? 4 : 7 }, () => new Float64Array(n));
    this.t = t0; this.tOld = t0;
    this.y = Float64Array.from(y0);
    this.yOld = Float64Array.from(y0);
    this.f = new Float64Array(n);
    if (f0) this.f.set(f0); else p.fun(t0, this.y, this.f);
    this.yNew = new Float64Array(n);
    this.yStage = new Float64Array(n);
    this.scale = new Float64Array(n);
    this.err = new Float64Array(n);
    this.err3 = new Float64Array(n);
    this.hAbs = h0 ?? initialStep(p, t0, this.y, this.f, tBound, this.tab.errorOrder);
  }

  stiffIndicator(): number { return this.stiff; }

  step(tBound: number): string | null {
    const p = this.p, n = p.n, tab = this.tab, K = this.K, S = tab.stages;
    const t = this.t, y = this.y, yNew = this.yNew, ys = this.yStage, scale = this.scale, rtol = p.rtol, atol = p.atol;
    const minStep = minStepAt(t);
    let hAbs = Math.min(Math.max(this.hAbs, minStep), p.maxStep);
    const exponent = -1 / (tab.errorOrder + 1);
    let rejected = false;
    let h = 0, tNew = 0;
    for (;;) {
      if (hAbs < minStep) return `step size underflow at t = ${t}`;
      tNew = t + hAbs;
      if (tNew > tBound) tNew = tBound;
      h = tNew - t;
      hAbs = h;
      K[0].set(this.f);
      for (let s = 1; s < S; s++) {
        const { idx, val } = this.rows[s];
        for (let i = 0; i < n; i++) {
          let acc = 0;
          for (let m = 0; m < idx.length; m++) acc += val[m] * K[idx[m]][i];
          ys[i] = y[i] + h * acc;
        }
        p.fun(t + tab.c[s] * h, ys, K[s]);
      }
      // ys now holds the last stage's argument (c = 1), kept for the stiffness test
      const b = tab.b;
      for (let i = 0; i < n; i++) {
        let acc = 0;
        for (let s = 0; s < S; s++) if (b[s] !== 0) acc += b[s] * K[s][i];
        yNew[i] = y[i] + h * acc;
      }
      p.fun(tNew, yNew, K[S]);
      for (let i = 0; i < n; i++) scale[i] = atol[i] + Math.max(Math.abs(y[i]), Math.abs(yNew[i])) * rtol;
      const errNorm = this.errorNorm(h);
      if (errNorm < 1) {
        let factor = errNorm === 0 ? MAX_FACTOR : Math.min(MAX_FACTOR, SAFETY * Math.pow(errNorm, exponent));
        if (rejected) factor = Math.min(1, factor);
        hAbs *= factor;
        break;
      }
      // a NaN error norm (non-finite stage) counts as a large error
      const f = SAFETY * Math.pow(errNorm, exponent);
      hAbs *= f > MIN_FACTOR ? f : MIN_FACTOR;
      rejected = true;
      p.stats.rejected++;
    }
    // stiffness test: h·‖K_S − K_{S−1}‖ / ‖y_new − y_{S−1}‖ (both stages at c = 1)
    let num = 0, den = 0;
    const kl = K[S], kp = K[S - 1];
    for (let i = 0; i < n; i++) { const a = kl[i] - kp[i], d = yNew[i] - ys[i]; num += a * a; den += d * d; }
    this.stiff = den > 0 ? h * Math.sqrt(num / den) : 0;
    this.tOld = t;
    this.yOld.set(y);
    this.y.set(yNew);
    this.f.set(K[S]);
    this.t = tNew;
    this.hTaken = h;
    this.hAbs = hAbs;
    this.denseReady = false;
    p.stats.steps++;
    return null;
  }

  private errorNorm(h: number): number {
    const n = this.p.n, K = this.K, scale = this.scale, err = this.err;
    if (this.method === 'RK45') {
      for (let i = 0; i < n; i++) {
        let acc = 0;
        for (let s = 0; s < 7; s++) if (RK45_E[s] !== 0) acc += RK45_E[s] * K[s][i];
        err[i] = h * acc;
      }
      return this.p.rms(err, scale);
    }
    // dop853: ‖err5‖² / √(‖err5‖² + 0.01·‖err3‖²) (Hairer's combined estimate)
    const e3 = this.err3;
    let s5 = 0, s3 = 0;
    for (let i = 0; i < n; i++) {
      let a5 = 0, a3 = 0;
      for (let s = 0; s < 13; s++) { const k = K[s][i]; a5 += E5_853[s] * k; a3 += E3_853[s] * k; }
      err[i] = a5 / scale[i]; e3[i] = a3 / scale[i];
      s5 += err[i] * err[i]; s3 += e3[i] * e3[i];
    }
    if (s5 === 0 && s3 === 0) return 0;
    return Math.abs(h) * s5 / Math.sqrt((s5 + 0.01 * s3) * n);
  }

  private prepareDense(): void {
    const n = this.p.n, K = this.K, h = this.hTaken;
    if (this.method === 'RK45') {
      for (let m = 0; m < 4; m++) {
        const q = this.dense[m];
        for (let i = 0; i < n; i++) {
          let acc = 0;
          for (let s = 0; s < 7; s++) { const c = RK45_P[s][m]; if (c !== 0) acc += c * K[s][i]; }
          q[i] = acc;
        }
      }
    } else {
      // three extra stages, then F[0..6] of dop853's contd8 representation
      const ys = this.yStage;
      for (let s = 13; s < 16; s++) {
        const row = A853[s];
        for (let i = 0; i < n; i++) {
          let acc = 0;
          for (let j = 0; j < s; j++) if (row[j] !== 0) acc += row[j] * K[j][i];
          ys[i] = this.yOld[i] + h * acc;
        }
        this.p.fun(this.tOld + C853[s] * h, ys, K[s]);
      }
      const F = this.dense, fOld = K[0], fNew = K[12];
      for (let i = 0; i < n; i++) {
        const dy = this.y[i] - this.yOld[i];
        F[0][i] = dy;
        F[1][i] = h * fOld[i] - dy;
        F[2][i] = 2 * dy - h * (fNew[i] + fOld[i]);
      }
      for (let r = 0; r < 4; r++) {
        const d = D853[r], out = F[3 + r];
        for (let i = 0; i < n; i++) {
          let acc = 0;
          for (let s = 0; s < 16; s++) if (d[s] !== 0) acc += d[s] * K[s][i];
          out[i] = h * acc;
        }
      }
    }
    this.denseReady = true;
  }

  interp(tq: number, out: Float64Array): void {
    const n = this.p.n, h = this.hTaken;
    if (h === 0 || tq === this.t) { out.set(this.y); return; }
    if (!this.denseReady) this.prepareDense();
    const x = (tq - this.tOld) / h;
    if (this.method === 'RK45') {
      const [q0, q1, q2, q3] = this.dense;
      for (let i = 0; i < n; i++) out[i] = this.yOld[i] + h * x * (q0[i] + x * (q1[i] + x * (q2[i] + x * q3[i])));
      return;
    }
    const F = this.dense, x1 = 1 - x;
    for (let i = 0; i < n; i++) {
      let v = F[6][i] * x;
      v = (v + F[5][i]) * x1;
      v = (v + F[4][i]) * x;
      v = (v + F[3][i]) * x1;
      v = (v + F[2][i]) * x;
      v = (v + F[1][i]) * x1;
      v = (v + F[0][i]) * x;
      out[i] = this.yOld[i] + v;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Radau IIA, order 5

const S6 = Math.sqrt(6);
const RADAU_C = [(4 - S6) / 10, (4 + S6) / 10, 1];
/** error-estimate weights (Hairer & Wanner II, (IV.8.19)), divided by h at use */
const RADAU_E = [(-13 - 7 * S6) / 3, (-13 + 7 * S6) / 3, -1 / 3];
/** eigenvalues of A⁻¹: the real γ and the complex pair α ± iβ */
const MU_REAL = 3 + Math.cbrt(9) - Math.cbrt(3);
const MU_C_RE = 3 + 0.5 * (Math.cbrt(3) - Math.cbrt(9));
const MU_C_IM = -0.5 * (Math.pow(3, 5 / 6) + Math.pow(3, 7 / 6));
/** A⁻¹ = T·diag(γ, α+iβ block)·T⁻¹ (real form) */
const RADAU_T = [
  [0.09443876248897524, -0.1412552950209542, 0.03002919410514742],
  [0.2502131229653333, 0.20412935229379994, -0.3829421127572619],
  [1, 1, 0],
];
const RADAU_TI = [
  [4.178718591551904, 0.32768282076106237, 0.5233764454994495],
  [-4.178718591551904, -0.32768282076106237, 0.47662355450055044],
  [0.5028726349457868, -2.571926949855605, 0.5960392048282249],
];
/** collocation polynomial: y(t_old + θh) = y_old + Σ_k Z_k·Σ_m P[k][m]·θ^(m+1) */
const RADAU_P = [
  [13 / 3 + 7 * S6 / 3, -23 / 3 - 22 * S6 / 3, 10 / 3 + 5 * S6],
  [13 / 3 - 7 * S6 / 3, -23 / 3 + 22 * S6 / 3, 10 / 3 - 5 * S6],
  [1 / 3, -8 / 3, 10 / 3],
];
const RADAU_NEWTON_MAXITER = 6;

function infNorm(J: Float64Array, n: number): number {
  let best = 0;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += Math.abs(J[i * n + j]);
    if (s > best) best = s;
  }
  return best;
}

class Radau implements Stepper {
  readonly method = 'Radau' as const;
  t: number;
  y: Float64Array;
  f: Float64Array;
  tOld: number;
  hAbs: number;
  private hAbsOld = NaN;
  private errNormOld = NaN;
  private readonly J: Float64Array;
  private jNorm = 0;
  private currentJac = true;
  private readonly luR: LuFactor;
  private readonly luC: ComplexLuFactor;
  private luH = NaN;
  private readonly mR: Float64Array;
  private readonly mCr: Float64Array;
  private readonly mCi: Float64Array;
  private readonly newtonTol: number;
  // work (3 blocks of n)
  private readonly Z: Float64Array;
  private readonly W: Float64Array;
  private readonly F: Float64Array;
  private readonly dW: Float64Array;
  private readonly zStart: Float64Array;
  private readonly tmp: Float64Array;
  private readonly scale: Float64Array;
  private readonly err: Float64Array;
  private readonly ze: Float64Array;
  private readonly yNew: Float64Array;
  // dense output of the last step: Q (3 blocks of n)
  private readonly Q: Float64Array;
  private readonly yOld: Float64Array;
  private hTaken = 0;
  private haveSol = false;
  private nIter = 0;
  private rate = NaN;
  private readonly p: Problem;

  constructor(p: Problem, t0: number, y0: Float64Array, f0: Float64Array | null, h0: number | null, tBound: number) {
    this.p = p;
    const n = p.n;
    this.t = t0; this.tOld = t0;
    this.y = Float64Array.from(y0);
    this.yOld = Float64Array.from(y0);
    this.f = new Float64Array(n);
    if (f0) this.f.set(f0); else p.fun(t0, this.y, this.f);
    this.hAbs = h0 ?? initialStep(p, t0, this.y, this.f, tBound, 3);
    this.newtonTol = Math.max(10 * EPS / p.rtol, Math.min(0.03, Math.sqrt(p.rtol)));
    this.J = new Float64Array(n * n);
    p.jac(t0, this.y, this.f, this.J);
    this.jNorm = infNorm(this.J, n);
    this.luR = luAlloc(n);
    this.luC = complexLuAlloc(n);
    this.mR = new Float64Array(n * n);
    this.mCr = new Float64Array(n * n);
    this.mCi = new Float64Array(n * n);
    this.Z = new Float64Array(3 * n);
    this.W = new Float64Array(3 * n);
    this.F = new Float64Array(3 * n);
    this.dW = new Float64Array(3 * n);
    this.zStart = new Float64Array(3 * n);
    this.tmp = new Float64Array(n);
    this.scale = new Float64Array(n);
    this.err = new Float64Array(n);
    this.ze = new Float64Array(n);
    this.yNew = new Float64Array(n);
    this.Q = new Float64Array(3 * n);
  }

  stiffIndicator(): number { return this.hTaken * this.jNorm; }

  private factor(h: number): void {
    const n = this.p.n, J = this.J, mR = this.mR, mCr = this.mCr, mCi = this.mCi;
    const gr = MU_REAL / h, cr = MU_C_RE / h, ci = MU_C_IM / h;
    for (let k = 0; k < n * n; k++) { mR[k] = -J[k]; mCr[k] = -J[k]; mCi[k] = 0; }
    for (let i = 0; i < n; i++) { mR[i * n + i] += gr; mCr[i * n + i] += cr; mCi[i * n + i] = ci; }
    luFactor(mR, this.luR);
    complexLuFactor(mCr, mCi, this.luC);
    this.p.stats.nlu += 2;
    this.luH = h;
  }

  /** simplified Newton on the transformed collocation system (Hairer & Wanner II, §IV.8) */
  private newton(t: number, h: number): boolean {
    const p = this.p, n = p.n, y = this.y, Z = this.Z, W = this.W, F = this.F, dW = this.dW, tmp = this.tmp, scale = this.scale;
    const mr = MU_REAL / h, mcr = MU_C_RE / h, mci = MU_C_IM / h;
    // W = T⁻¹·Z
    for (let i = 0; i < n; i++) {
      const z0 = Z[i], z1 = Z[n + i], z2 = Z[2 * n + i];
      W[i] = RADAU_TI[0][0] * z0 + RADAU_TI[0][1] * z1 + RADAU_TI[0][2] * z2;
      W[n + i] = RADAU_TI[1][0] * z0 + RADAU_TI[1][1] * z1 + RADAU_TI[1][2] * z2;
      W[2 * n + i] = RADAU_TI[2][0] * z0 + RADAU_TI[2][1] * z1 + RADAU_TI[2][2] * z2;
    }
    let dWNormOld = NaN;
    this.rate = NaN;
    const tol = this.newtonTol;
    for (let k = 0; k < RADAU_NEWTON_MAXITER; k++) {
      this.nIter = k + 1;
      let finite = true;
      for (let s = 0; s < 3; s++) {
        const off = s * n;
        for (let i = 0; i < n; i++) tmp[i] = y[i] + Z[off + i];
        const fs = F.subarray(off, off + n);
        p.fun(t + RADAU_C[s] * h, tmp, fs);
        for (let i = 0; i < n; i++) if (!Number.isFinite(fs[i])) { finite = false; break; }
        if (!finite) break;
      }
      if (!finite) return false;
      for (let i = 0; i < n; i++) {
        const f0 = F[i], f1 = F[n + i], f2 = F[2 * n + i];
        const w0 = W[i], w1 = W[n + i], w2 = W[2 * n + i];
        dW[i] = RADAU_TI[0][0] * f0 + RADAU_TI[0][1] * f1 + RADAU_TI[0][2] * f2 - mr * w0;
        dW[n + i] = RADAU_TI[1][0] * f0 + RADAU_TI[1][1] * f1 + RADAU_TI[1][2] * f2 - (mcr * w1 - mci * w2);
        dW[2 * n + i] = RADAU_TI[2][0] * f0 + RADAU_TI[2][1] * f1 + RADAU_TI[2][2] * f2 - (mcr * w2 + mci * w1);
      }
      luSolve(this.luR, dW.subarray(0, n));
      complexLuSolve(this.luC, dW.subarray(n, 2 * n), dW.subarray(2 * n, 3 * n));
      const dWNorm = p.rms(dW, scale, 3 * n);
      let rate = NaN;
      if (!Number.isNaN(dWNormOld)) rate = dWNorm / dWNormOld;
      this.rate = rate;
      if (!Number.isNaN(rate) && (rate >= 1 || Math.pow(rate, RADAU_NEWTON_MAXITER - k) / (1 - rate) * dWNorm > tol)) return false;
      if (!Number.isFinite(dWNorm)) return false;
      for (let i = 0; i < 3 * n; i++) W[i] += dW[i];
      // Z = T·W
      for (let i = 0; i < n; i++) {
        const w0 = W[i], w1 = W[n + i], w2 = W[2 * n + i];
        Z[i] = RADAU_T[0][0] * w0 + RADAU_T[0][1] * w1 + RADAU_T[0][2] * w2;
        Z[n + i] = RADAU_T[1][0] * w0 + RADAU_T[1][1] * w1 + RADAU_T[1][2] * w2;
        Z[2 * n + i] = w0 + w1;
      }
      if (dWNorm === 0 || (!Number.isNaN(rate) && rate / (1 - rate) * dWNorm < tol)) return true;
      dWNormOld = dWNorm;
    }
    return false;
  }

  /** Gustafsson's predictive controller (Hairer & Wanner II, (IV.8.25)) */
  private predictFactor(hAbs: number, errNorm: number): number {
    let mult = 1;
    if (!Number.isNaN(this.errNormOld) && !Number.isNaN(this.hAbsOld) && errNorm !== 0) {
      mult = hAbs / this.hAbsOld * Math.pow(this.errNormOld / errNorm, 0.25);
    }
    return Math.min(1, mult) * Math.pow(errNorm, -0.25);
  }

  step(tBound: number): string | null {
    const p = this.p, n = p.n, t = this.t, y = this.y, Z = this.Z, scale = this.scale, err = this.err, ze = this.ze, yNew = this.yNew;
    const rtol = p.rtol, atol = p.atol;
    const minStep = minStepAt(t);
    let hAbs = this.hAbs;
    if (hAbs > p.maxStep) { hAbs = p.maxStep; this.hAbsOld = NaN; this.errNormOld = NaN; }
    else if (hAbs < minStep) { hAbs = minStep; this.hAbsOld = NaN; this.errNormOld = NaN; }
    let rejected = false;
    let h = 0, tNew = 0, errNorm = 0, safety = SAFETY;
    for (;;) {
      if (hAbs < minStep) return `step size underflow at t = ${t}`;
      tNew = t + hAbs;
      if (tNew > tBound) tNew = tBound;
      h = tNew - t;
      hAbs = h;
      // starting values: the previous collocation polynomial, extrapolated (Hairer & Wanner II, IV.8)
      if (this.haveSol) {
        const Q = this.Q, yO = this.yOld, hp = this.hTaken;
        for (let s = 0; s < 3; s++) {
          const x = (t + RADAU_C[s] * h - this.tOld) / hp;
          const x2 = x * x, x3 = x2 * x;
          for (let i = 0; i < n; i++) Z[s * n + i] = yO[i] + Q[i] * x + Q[n + i] * x2 + Q[2 * n + i] * x3 - y[i];
        }
      } else Z.fill(0);
      for (let i = 0; i < n; i++) scale[i] = atol[i] + Math.abs(y[i]) * rtol;
      let converged = false;
      const zStart = this.zStart;
      zStart.set(Z);
      for (;;) {
        if (this.luH !== h) this.factor(h);
        Z.set(zStart);
        converged = this.newton(t, h);
        if (converged || this.currentJac) break;
        p.jac(t, y, this.f, this.J);
        this.jNorm = infNorm(this.J, n);
        this.currentJac = true;
        this.luH = NaN;
      }
      if (!converged) {
        hAbs *= 0.5;
        this.luH = NaN;
        rejected = true;
        p.stats.rejected++;
        continue;
      }
      for (let i = 0; i < n; i++) {
        yNew[i] = y[i] + Z[2 * n + i];
        ze[i] = (RADAU_E[0] * Z[i] + RADAU_E[1] * Z[n + i] + RADAU_E[2] * Z[2 * n + i]) / h;
        err[i] = this.f[i] + ze[i];
      }
      luSolve(this.luR, err);
      for (let i = 0; i < n; i++) scale[i] = atol[i] + Math.max(Math.abs(y[i]), Math.abs(yNew[i])) * rtol;
      errNorm = p.rms(err, scale);
      safety = SAFETY * (2 * RADAU_NEWTON_MAXITER + 1) / (2 * RADAU_NEWTON_MAXITER + this.nIter);
      if (rejected && !(errNorm <= 1)) {
        // the filtered estimate once more, from f at y + err (Hairer & Wanner II, IV.8, (8.20'))
        const tmp = this.tmp;
        for (let i = 0; i < n; i++) tmp[i] = y[i] + err[i];
        const fe = this.F.subarray(0, n);
        p.fun(t, tmp, fe);
        for (let i = 0; i < n; i++) err[i] = fe[i] + ze[i];
        luSolve(this.luR, err);
        errNorm = p.rms(err, scale);
      }
      if (!(errNorm <= 1)) {
        const fac = safety * this.predictFactor(hAbs, errNorm);
        hAbs *= fac > MIN_FACTOR ? fac : MIN_FACTOR;
        this.luH = NaN;
        rejected = true;
        p.stats.rejected++;
        continue;
      }
      break;
    }
    const recomputeJac = this.nIter > 2 && this.rate > 1e-3;
    let factor = Math.min(MAX_FACTOR, safety * this.predictFactor(hAbs, errNorm));
    if (!recomputeJac && factor < 1.2) factor = 1;
    // dense output of this step (Q = Zᵀ·P), before Z is reused
    const Q = this.Q;
    for (let i = 0; i < n; i++) {
      const z0 = Z[i], z1 = Z[n + i], z2 = Z[2 * n + i];
      Q[i] = RADAU_P[0][0] * z0 + RADAU_P[1][0] * z1 + RADAU_P[2][0] * z2;
      Q[n + i] = RADAU_P[0][1] * z0 + RADAU_P[1][1] * z1 + RADAU_P[2][1] * z2;
      Q[2 * n + i] = RADAU_P[0][2] * z0 + RADAU_P[1][2] * z1 + RADAU_P[2][2] * z2;
    }
    this.yOld.set(y);
    this.tOld = t;
    this.hTaken = h;
    this.haveSol = true;
    this.y.set(yNew);
    this.t = tNew;
    p.fun(tNew, this.y, this.f);
    if (recomputeJac) {
      p.jac(tNew, this.y, this.f, this.J);
      this.jNorm = infNorm(this.J, n);
      this.currentJac = true;
      this.luH = NaN;
    } else this.currentJac = false;
    this.hAbsOld = h;
    this.errNormOld = errNorm;
    this.hAbs = h * factor;
    p.stats.steps++;
    return null;
  }

  interp(tq: number, out: Float64Array): void {
    const n = this.p.n;
    if (this.hTaken === 0 || tq === this.t) { out.set(this.y); return; }
    const x = (tq - this.tOld) / this.hTaken, x2 = x * x, x3 = x2 * x, Q = this.Q, yO = this.yOld;
    for (let i = 0; i < n; i++) out[i] = yO[i] + Q[i] * x + Q[n + i] * x2 + Q[2 * n + i] * x3;
  }
}

// ---------------------------------------------------------------------------------------------
// Variable-order BDF / NDF (Shampine & Reichelt 1997)

const BDF_MAX_ORDER = 5;
const BDF_NEWTON_MAXITER = 4;
/** NDF κ of Shampine & Reichelt (Table 1; order 5 is a plain BDF) */
const BDF_KAPPA = [0, -0.185, -1 / 9, -0.0823, -0.0415, 0];
const BDF_GAMMA = [0, 1, 1 + 1 / 2, 1 + 1 / 2 + 1 / 3, 1 + 1 / 2 + 1 / 3 + 1 / 4, 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5];
const BDF_ALPHA = BDF_KAPPA.map((k, i) => (1 - k) * BDF_GAMMA[i]);
const BDF_ERROR_CONST = BDF_KAPPA.map((k, i) => k * BDF_GAMMA[i] + 1 / (i + 1));

/** R(order, factor)[i][j] = Π_{m=1..i} (m − 1 − factor·j)/m: the matrix that maps backward
 * differences at step h to differences at factor·h (Shampine & Reichelt, §2.2) */
function bdfR(order: number, factor: number): Float64Array {
  const m = order + 1;
  const R = new Float64Array(m * m);
  for (let j = 0; j < m; j++) R[j] = 1;
  for (let i = 1; i < m; i++) for (let j = 0; j < m; j++) R[i * m + j] = R[(i - 1) * m + j] * (i - 1 - factor * j) / i;
  return R;
}

class Bdf implements Stepper {
  readonly method = 'BDF' as const;
  t: number;
  y: Float64Array;
  f: Float64Array;
  tOld: number;
  hAbs: number;
  private order = 1;
  private nEqual = 0;
  /** backward differences D^0..D^(MAX+2), each n long */
  private readonly D: Float64Array[];
  private readonly J: Float64Array;
  private jNorm = 0;
  private readonly lu: LuFactor;
  private luC = NaN;
  private readonly m: Float64Array;
  private readonly newtonTol: number;
  private readonly yPred: Float64Array;
  private readonly psi: Float64Array;
  private readonly d: Float64Array;
  private readonly yN: Float64Array;
  private readonly fv: Float64Array;
  private readonly dy: Float64Array;
  private readonly scale: Float64Array;
  private readonly work: Float64Array[];
  private pendingOrder = 0;
  private pendingFactor = 1;
  private hTaken = 0;
  private denseOrder = 1;
  private nIter = 0;
  private readonly p: Problem;

  constructor(p: Problem, t0: number, y0: Float64Array, f0: Float64Array | null, h0: number | null, tBound: number) {
    this.p = p;
    const n = p.n;
    this.t = t0; this.tOld = t0;
    this.y = Float64Array.from(y0);
    this.f = new Float64Array(n);
    if (f0) this.f.set(f0); else p.fun(t0, this.y, this.f);
    this.hAbs = h0 ?? initialStep(p, t0, this.y, this.f, tBound, 1);
    this.newtonTol = Math.max(10 * EPS / p.rtol, Math.min(0.03, Math.sqrt(p.rtol)));
    this.D = Array.from({ length: BDF_MAX_ORDER + 3 }, () => new Float64Array(n));
    this.D[0].set(this.y);
    for (let i = 0; i < n; i++) this.D[1][i] = this.f[i] * this.hAbs;
    this.J = new Float64Array(n * n);
    p.jac(t0, this.y, this.f, this.J);
    this.jNorm = infNorm(this.J, n);
    this.lu = luAlloc(n);
    this.m = new Float64Array(n * n);
    this.yPred = new Float64Array(n);
    this.psi = new Float64Array(n);
    this.d = new Float64Array(n);
    this.yN = new Float64Array(n);
    this.fv = new Float64Array(n);
    this.dy = new Float64Array(n);
    this.scale = new Float64Array(n);
    this.work = Array.from({ length: BDF_MAX_ORDER + 1 }, () => new Float64Array(n));
  }

  stiffIndicator(): number { return this.hTaken * this.jNorm; }

  /** D[0..order] ← (R·U)ᵀ·D[0..order] for a step change by `factor` */
  private changeD(order: number, factor: number): void {
    const m = order + 1, n = this.p.n;
    const R = bdfR(order, factor), U = bdfR(order, 1);
    const RU = new Float64Array(m * m);
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) {
      let s = 0;
      for (let k = 0; k < m; k++) s += R[i * m + k] * U[k * m + j];
      RU[i * m + j] = s;
    }
    const D = this.D, w = this.work;
    for (let i = 0; i < m; i++) {
      const out = w[i];
      out.fill(0);
      for (let j = 0; j < m; j++) {
        const c = RU[j * m + i];
        if (c === 0) continue;
        const dj = D[j];
        for (let k = 0; k < n; k++) out[k] += c * dj[k];
      }
    }
    for (let i = 0; i < m; i++) D[i].set(w[i]);
  }

  private newton(tNew: number, c: number): boolean {
    const p = this.p, n = p.n, y = this.yN, d = this.d, fv = this.fv, dy = this.dy, psi = this.psi, scale = this.scale;
    y.set(this.yPred);
    d.fill(0);
    let dyNormOld = NaN;
    const tol = this.newtonTol;
    for (let k = 0; k < BDF_NEWTON_MAXITER; k++) {
      this.nIter = k + 1;
      p.fun(tNew, y, fv);
      for (let i = 0; i < n; i++) if (!Number.isFinite(fv[i])) return false;
      for (let i = 0; i < n; i++) dy[i] = c * fv[i] - psi[i] - d[i];
      luSolve(this.lu, dy);
      const dyNorm = p.rms(dy, scale);
      const rate = Number.isNaN(dyNormOld) ? NaN : dyNorm / dyNormOld;
      if (!Number.isNaN(rate) && (rate >= 1 || Math.pow(rate, BDF_NEWTON_MAXITER - k) / (1 - rate) * dyNorm > tol)) return false;
      if (!Number.isFinite(dyNorm)) return false;
      for (let i = 0; i < n; i++) { y[i] += dy[i]; d[i] += dy[i]; }
      if (dyNorm === 0 || (!Number.isNaN(rate) && rate / (1 - rate) * dyNorm < tol)) return true;
      dyNormOld = dyNorm;
    }
    return false;
  }

  step(tBound: number): string | null {
    const p = this.p, n = p.n, D = this.D, t = this.t, rtol = p.rtol, atol = p.atol, scale = this.scale;
    // the order/step change decided at the end of the previous step (deferred so that the dense
    // output of that step could still use its differences)
    if (this.pendingOrder !== 0) {
      this.order = this.pendingOrder;
      this.changeD(this.order, this.pendingFactor);
      this.hAbs *= this.pendingFactor;
      this.nEqual = 0;
      this.pendingFactor = 1;
      this.pendingOrder = 0;
    }
    const minStep = minStepAt(t);
    let hAbs = this.hAbs;
    if (hAbs > p.maxStep) { this.changeD(this.order, p.maxStep / hAbs); hAbs = p.maxStep; this.nEqual = 0; }
    else if (hAbs < minStep) { this.changeD(this.order, minStep / hAbs); hAbs = minStep; this.nEqual = 0; }
    const order = this.order;
    let currentJac = false;
    let h = 0, tNew = 0, errNorm = 0, safety = SAFETY;
    for (;;) {
      if (hAbs < minStep) { this.hAbs = hAbs; return `step size underflow at t = ${t}`; }
      tNew = t + hAbs;
      if (tNew > tBound) {
        tNew = tBound;
        this.changeD(order, (tNew - t) / hAbs);
        this.nEqual = 0;
      }
      h = tNew - t;
      hAbs = h;
      const yPred = this.yPred, psi = this.psi;
      yPred.fill(0); psi.fill(0);
      for (let j = 0; j <= order; j++) { const dj = D[j]; for (let i = 0; i < n; i++) yPred[i] += dj[i]; }
      for (let i = 0; i < n; i++) scale[i] = atol[i] + rtol * Math.abs(yPred[i]);
      for (let j = 1; j <= order; j++) { const g = BDF_GAMMA[j] / BDF_ALPHA[order], dj = D[j]; for (let i = 0; i < n; i++) psi[i] += g * dj[i]; }
      const c = h / BDF_ALPHA[order];
      let converged = false;
      for (;;) {
        if (this.luC !== c) {
          const M = this.m, J = this.J;
          for (let k = 0; k < n * n; k++) M[k] = -c * J[k];
          for (let i = 0; i < n; i++) M[i * n + i] += 1;
          luFactor(M, this.lu);
          p.stats.nlu++;
          this.luC = c;
        }
        converged = this.newton(tNew, c);
        if (converged || currentJac) break;
        p.jac(tNew, yPred, null, this.J);
        this.jNorm = infNorm(this.J, n);
        currentJac = true;
        this.luC = NaN;
      }
      if (!converged) {
        hAbs *= 0.5;
        this.changeD(order, 0.5);
        this.nEqual = 0;
        this.luC = NaN;
        p.stats.rejected++;
        continue;
      }
      safety = SAFETY * (2 * BDF_NEWTON_MAXITER + 1) / (2 * BDF_NEWTON_MAXITER + this.nIter);
      const yN = this.yN, d = this.d;
      for (let i = 0; i < n; i++) scale[i] = atol[i] + rtol * Math.abs(yN[i]);
      const ec = BDF_ERROR_CONST[order];
      let s = 0;
      for (let i = 0; i < n; i++) { const v = ec * d[i] / scale[i]; s += v * v; }
      errNorm = Math.sqrt(s / n);
      if (!(errNorm <= 1)) {
        const fac = safety * Math.pow(errNorm, -1 / (order + 1));
        const factor = fac > MIN_FACTOR ? fac : MIN_FACTOR;
        hAbs *= factor;
        this.changeD(order, factor);
        this.nEqual = 0;
        p.stats.rejected++;
        continue;
      }
      break;
    }
    this.nEqual++;
    this.tOld = t;
    this.t = tNew;
    this.y.set(this.yN);
    this.hAbs = hAbs;
    this.hTaken = h;
    this.denseOrder = order;
    // D^{j+1} y_n = D^j y_n − D^j y_{n−1}
    const d = this.d;
    const dk2 = D[order + 2], dk1 = D[order + 1];
    for (let i = 0; i < n; i++) { dk2[i] = d[i] - dk1[i]; dk1[i] = d[i]; }
    for (let j = order; j >= 0; j--) { const a = D[j], b = D[j + 1]; for (let i = 0; i < n; i++) a[i] += b[i]; }
    p.stats.steps++;
    if (this.nEqual < order + 1) return null;
    // order selection from the error estimates at k−1, k, k+1
    let em = Infinity, ep = Infinity;
    if (order > 1) {
      const c = BDF_ERROR_CONST[order - 1], dv = D[order];
      let s = 0;
      for (let i = 0; i < n; i++) { const v = c * dv[i] / scale[i]; s += v * v; }
      em = Math.sqrt(s / n);
    }
    if (order < BDF_MAX_ORDER) {
      const c = BDF_ERROR_CONST[order + 1], dv = D[order + 2];
      let s = 0;
      for (let i = 0; i < n; i++) { const v = c * dv[i] / scale[i]; s += v * v; }
      ep = Math.sqrt(s / n);
    }
    const fm = Math.pow(em, -1 / order), f0 = Math.pow(errNorm, -1 / (order + 1)), fp = Math.pow(ep, -1 / (order + 2));
    let delta = 0, best = f0;
    if (fm > best) { best = fm; delta = -1; }
    if (fp > best) { best = fp; delta = 1; }
    this.pendingOrder = order + delta;
    this.pendingFactor = Math.min(MAX_FACTOR, safety * best);
    this.luC = NaN;
    return null;
  }

  interp(tq: number, out: Float64Array): void {
    const n = this.p.n, D = this.D, h = this.hTaken, k = this.denseOrder;
    if (h === 0 || tq === this.t) { out.set(this.y); return; }
    out.set(D[0]);
    let prod = 1;
    for (let j = 1; j <= k; j++) {
      // x_m = (tq − (t − m·h)) / ((m + 1)·h), m = j − 1
      prod *= (tq - (this.t - (j - 1) * h)) / (j * h);
      const dj = D[j];
      for (let i = 0; i < n; i++) out[i] += dj[i] * prod;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Driver

function makeStepper(method: IvpMethod, p: Problem, t: number, y: Float64Array, f: Float64Array | null, h: number | null, tBound: number): Stepper {
  switch (method) {
    case 'RK45': case 'DOP853': return new RungeKutta(p, t, y, f, h, tBound, method);
    case 'Radau': return new Radau(p, t, y, f, h, tBound);
    case 'BDF': return new Bdf(p, t, y, f, h, tBound);
  }
}

/** consecutive stiff steps before 'auto' switches to Radau (Hairer's dopri5: 15) */
const STIFF_STEPS = 15;
/** consecutive non-stiff steps that reset the stiff count (dopri5: 6) */
const NONSTIFF_RESET = 6;
/** consecutive Radau steps with h·‖J‖∞ below this before handing back to the explicit method */
const NONSTIFF_LIMIT = 2;

/** Integrates y' = f(t, y) from t0 to t1 > t0. Never throws on numerical failure: the result
 * says ok: false with the failure, tFail and everything computed up to there. */
export function solveIvp(sys: IvpSystem, t0: number, t1: number, y0: ArrayLike<number>, opts: IvpOptions): IvpResult {
  const n = sys.n;
  const p = new Problem(sys, opts.rtol, opts.atol, opts.maxNfev ?? Infinity, opts.maxStep ?? Infinity);
  const maxSteps = opts.maxSteps ?? 1_000_000;
  const maxEvents = opts.maxEvents ?? 1000;
  const auto = opts.method === 'auto';
  const explicitAuto: 'RK45' | 'DOP853' = opts.rtol < 1e-8 ? 'DOP853' : 'RK45';
  const tEval = opts.tEval ?? [];
  const nEval = tEval.length;
  const tOut = new Float64Array(nEval);
  const yOut = Array.from({ length: n }, () => new Float64Array(nEval));
  let nOut = 0;
  const events = opts.events ?? [];
  const hits: IvpEventHit[] = [];
  let eventCount = 0;
  const switches: IvpSwitch[] = [];
  const yTmp = new Float64Array(n);
  const y0a = Float64Array.from(y0);

  const result = (ok: boolean, message: string, st: Stepper | null, tEnd: number, yEnd: Float64Array, extra: Partial<IvpResult> = {}): IvpResult => ({
    ok, message, tOut: tOut.slice(0, nOut), yOut: yOut.map((a) => a.slice(0, nOut)), tEnd, yEnd: Float64Array.from(yEnd),
    events: hits, eventCount, terminated: false, method: st ? st.method : (auto ? explicitAuto : opts.method as IvpMethod),
    switches, stats: { ...p.stats }, ...extra,
  });
  const record = (tq: number, yq: Float64Array): void => {
    tOut[nOut] = tq;
    for (let i = 0; i < n; i++) yOut[i][nOut] = yq[i];
    nOut++;
  };
  while (nOut < nEval && tEval[nOut] <= t0) record(tEval[nOut], y0a);
  if (t1 === t0) return result(true, 'the time span is empty', null, t0, y0a);

  let st: Stepper | null = null;
  try {
    st = makeStepper(auto ? explicitAuto : opts.method as IvpMethod, p, t0, y0a, null, opts.firstStep ?? null, t1);
    const gOld = new Float64Array(events.length);
    for (let e = 0; e < events.length; e++) gOld[e] = events[e].g(t0, y0a);
    let stiffCount = 0, nonstiffCount = 0;
    const progressEvery = 64;
    for (;;) {
      if (p.stats.steps >= maxSteps) {
        return result(false, `maxSteps (${maxSteps}) reached at t = ${st.t}`, st, st.t, st.y, { failure: 'maxSteps', tFail: st.t });
      }
      const fail = st.step(t1);
      if (fail) return result(false, fail, st, st.t, st.y, { failure: 'underflow', tFail: st.t });
      const t = st.t, y = st.y;
      for (let i = 0; i < n; i++) {
        if (!Number.isFinite(y[i])) return result(false, `the solution is not finite at t = ${t}`, st, t, y, { failure: 'nonfinite', tFail: t });
      }
      let tStop = t, terminal = false;
      if (events.length) {
        const found: { e: number; t: number }[] = [];
        for (let e = 0; e < events.length; e++) {
          const ev = events[e];
          const gNew = ev.g(t, y), g0 = gOld[e];
          gOld[e] = gNew;
          // a sign change over (tOld, t]; a zero at the left end was reported by the previous
          // step (or is the initial point, which is not an event)
          if (g0 === 0 || !(g0 < 0 ? gNew >= 0 : gNew <= 0)) continue;
          if (Number.isNaN(gNew)) continue;
          const dir = gNew > g0 ? 1 : -1;
          if (ev.direction !== 0 && ev.direction !== dir) continue;
          let root = t;
          if (gNew !== 0) {
            const stp = st;
            const fn = (x: number): number => { stp.interp(x, yTmp); return ev.g(x, yTmp); };
            try {
              root = brent(fn, st.tOld, t, { xtol: 2 * EPS * Math.max(Math.abs(st.tOld), Math.abs(t)), rtol: 4 * EPS, maxIter: 200 }).root;
            } catch {
              // the dense output at tOld can differ from y_old by rounding: the zero is then at tOld
              root = st.tOld;
            }
          }
          found.push({ e, t: root });
        }
        found.sort((a, b) => a.t - b.t || a.e - b.e);
        for (const fh of found) {
          eventCount++;
          const yh = new Float64Array(n);
          st.interp(fh.t, yh);
          if (hits.length < maxEvents) hits.push({ index: fh.e, t: fh.t, y: yh });
          if (events[fh.e].terminal) { terminal = true; tStop = fh.t; break; }
        }
      }
      while (nOut < nEval && tEval[nOut] <= tStop) {
        if (tEval[nOut] === t) record(t, y);
        else { st.interp(tEval[nOut], yTmp); record(tEval[nOut], yTmp); }
      }
      if (terminal) {
        st.interp(tStop, yTmp);
        return result(true, 'a terminal event occurred', st, tStop, yTmp, { terminated: true });
      }
      if (t >= t1) return result(true, 'the end of the time span was reached', st, t, y);
      if (opts.progress && p.stats.steps % progressEvery === 0) opts.progress((t - t0) / (t1 - t0));
      if (auto) {
        const ind = st.stiffIndicator();
        if (st.method !== 'Radau') {
          const limit = st.method === 'RK45' ? RK45_TABLEAU.stiffLimit : DOP853_TABLEAU.stiffLimit;
          if (ind > limit) {
            nonstiffCount = 0;
            if (++stiffCount >= STIFF_STEPS) {
              switches.push({ t, from: st.method, to: 'Radau' });
              st = makeStepper('Radau', p, t, y, st.f, st.hAbs, t1);
              stiffCount = 0; nonstiffCount = 0;
            }
          } else if (++nonstiffCount >= NONSTIFF_RESET) stiffCount = 0;
        } else {
          if (ind < NONSTIFF_LIMIT) {
            if (++nonstiffCount >= STIFF_STEPS) {
              switches.push({ t, from: 'Radau', to: explicitAuto });
              st = makeStepper(explicitAuto, p, t, y, st.f, null, t1);
              stiffCount = 0; nonstiffCount = 0;
            }
          } else nonstiffCount = 0;
        }
      }
    }
  } catch (e) {
    if (e instanceof IvpStop) {
      const tf = st ? st.t : t0;
      return result(false, `${e.message} at t = ${tf}`, st, tf, st ? st.y : y0a, { failure: e.failure, tFail: tf });
    }
    throw e;
  }
}
