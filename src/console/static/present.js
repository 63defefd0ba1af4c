// What the console shows of each solver's result (issue 21 item 7): the headline figures a
// scientist looks at first, what the sealed value is and its unit in words (a solver's `unit` is
// a short symbol signed into the receipt, such as `T` or `epsilon`; here it is said what it
// means), and the plots of its series with labelled axes and units, one unit per y axis, plus
// phase portraits where the dynamics live in phase space (lorenz, lotka, action).
// Pure functions of a sealed response: unit-tested in Node (test/console/console-unit.test.ts).

/** Number in the console's style: up to 4 significant digits, exponent form when very large or small. */
export function fmt(x, digits = 4) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e6 || a < 1e-3) return sci(x, digits);
  return String(Number(x.toPrecision(digits)));
}

const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** 3.2×10⁵ */
export function sci(x, digits = 3) {
  if (x === 0) return '0';
  const e = Math.floor(Math.log10(Math.abs(x)));
  let m = Number((x / 10 ** e).toPrecision(digits));
  let ex = e;
  if (Math.abs(m) >= 10) { m /= 10; ex += 1; }
  const exp = String(ex).split('').map((c) => SUP[c]).join('');
  return `${m === 1 ? '' : m === -1 ? '−' : `${m}×`}10${exp}`;
}

const pct = (f) => `${fmt(100 * f, 3)} %`;
const int = (x) => Math.round(x).toLocaleString('en-US');
const num = (x) => typeof x === 'number' && Number.isFinite(x);

/**
 * Per solver:
 *   value:  [what the sealed value is, its unit in words, the unit printed after it (default: the sealed unit)]
 *   charts: [{ ys, yLabel, x?, xLabel?, title? }]: the series keys drawn on one y axis (one unit);
 *           x is the abscissa key (default: the first series key)
 *   phase:  [{ x, y, xLabel, yLabel, title }]: phase portraits (y against x, in time order)
 *   headline(result, response): [[label, text, note?]]: the figures that carry the answer
 */
export const PRESENT = {
  heat: {
    value: ['Amplitude of the initial sine mode at the end', 'temperature, in units of the initial amplitude (1)'],
    charts: [{ ys: ['amplitude', 'reference'], yLabel: 'mode amplitude (T)', xLabel: 'time t (s)' }],
    headline: (r) => [
      num(r.decayRate) && ['Decay rate', `${fmt(r.decayRate)} per second`, 'α π² (kx² + ky²): the mode decays as exp(−rate·t)'],
      num(r.amplitude) && num(r.referenceAmplitude) && ['Amplitude at t', `${fmt(r.amplitude, 6)} (exact ${fmt(r.referenceAmplitude, 6)})`, `t = ${fmt(r.t)} s`],
    ],
  },
  wave: {
    value: ['Total energy at the end', 'energy of the field ½∫(u_t² + c²|∇u|²), model units'],
    charts: [
      { ys: ['energy'], yLabel: 'total energy (E)', xLabel: 'time t (s)' },
      { ys: ['amplitude'], yLabel: 'mode amplitude (initial amplitude 1)', xLabel: 'time t (s)' },
    ],
    headline: (r) => [
      r.frequency && num(r.frequency.measured) && ['Mode frequency', `${fmt(r.frequency.measured, 6)} rad/s (analytic ${fmt(r.frequency.analytic, 6)})`, `${r.frequency.method ?? ''}`],
      num(r.energyDrift) && ['Energy drift', fmt(r.energyDrift), 'relative, start to end (leapfrog conserves it)'],
    ],
  },
  flow: {
    value: ['Peak speed at the end', 'm/s'],
    charts: [{ ys: ['peakSpeed', 'reference'], yLabel: 'peak speed (m/s)', xLabel: 'time t (s)' }],
    headline: (r) => [num(r.decayFactor) && ['Decay factor', `${fmt(r.decayFactor, 6)} (Taylor-Green ${fmt(r.referenceDecayFactor, 6)})`]],
  },
  climate: {
    value: ['Peak surface height at the end', 'm (mean depth H)'],
    charts: [
      { ys: ['peakHeight'], yLabel: 'peak height (m)', xLabel: 'time t (s)' },
      { ys: ['frontShift'], yLabel: 'front displacement (m)', xLabel: 'time t (s)' },
    ],
    headline: (r) => [num(r.frontSpeed) && ['Front speed', `${fmt(r.frontSpeed)} m/s (√(gH) = ${fmt(r.waveSpeedReference)} m/s)`]],
  },
  react: {
    value: ['Mean concentration of u at the end', 'concentration, dimensionless (model units)'],
    charts: [{ ys: ['meanU'], yLabel: 'mean u (dimensionless)', xLabel: 'time t (model units)' }],
  },
  tumor: {
    value: ['Front speed', 'm/s (length and time in the units of D and r)'],
    charts: [{ ys: ['front'], yLabel: 'front position (m)', xLabel: 'time t (s)' }],
    headline: (r) => [num(r.frontSpeed) && ['Front speed', `${fmt(r.frontSpeed)} m/s (Fisher 2√(rD) = ${fmt(r.fisherSpeed)} m/s)`]],
  },
  acoustic: {
    value: ['Mode frequency', 'Hz'],
    charts: [
      { ys: ['f', 'fRef'], yLabel: 'frequency (Hz)', xLabel: 'mode number n' },
      { ys: ['errorPct'], yLabel: 'error against the analytic frequency (%)', xLabel: 'mode number n' },
    ],
  },
  schrodinger: {
    value: ['Energy of the level', 'in natural units (ħ = m = 1)'],
    charts: [{ ys: ['E', 'Eref'], yLabel: 'energy E (natural units)', xLabel: 'level n' }],
  },
  device: {
    value: ['Potential at the probe', 'V'],
    charts: [{ ys: ['phi', 'exact'], yLabel: 'potential φ (V)', xLabel: 'position y (m)' }],
  },
  fea: {
    value: ['Tip deflection', 'm'],
    charts: [{ ys: ['v'], yLabel: 'deflection v (m)', xLabel: 'position along the beam x (m)' }],
  },
  buckling: {
    value: ['Critical load', 'N'],
    charts: [{ ys: ['w'], yLabel: 'buckled shape w (arbitrary scale)', xLabel: 'position along the column x (m)' }],
  },
  fracture: {
    value: ['Peak stress', 'stress in Pa'],
    charts: [
      { ys: ['stress'], yLabel: 'stress (Pa)', xLabel: 'applied strain (dimensionless)' },
      { ys: ['brokenFraction'], yLabel: 'broken bonds (fraction)', xLabel: 'applied strain (dimensionless)' },
    ],
  },
  solve: {
    value: ['Energy at the end', 'J'],
    charts: [
      { ys: ['x', 'xRef'], yLabel: 'position (m)', xLabel: 'time t (s)' },
      { ys: ['v', 'vRef'], yLabel: 'velocity (m/s)', xLabel: 'time t (s)' },
      { ys: ['energy'], yLabel: 'energy (J)', xLabel: 'time t (s)' },
    ],
  },
  closedform: {
    value: ['φ at t_end', 'the field amplitude, dimensionless'],
    charts: [{ ys: ['phi', 'phiRk4'], yLabel: 'φ (dimensionless)', xLabel: 'time t (s)' }],
  },
  multibody: {
    value: ['Total energy at the end', 'J'],
    charts: [{ ys: ['energy'], yLabel: 'total energy (J)', xLabel: 'time t (s)' }],
    phase: [{ x: 'x0', y: 'y0', also: ['x1', 'y1'], xLabel: 'x (m)', yLabel: 'y (m)', title: 'Orbits in the plane' }],
  },
  evolve: {
    value: ['Potential energy per particle', 'Lennard-Jones energy units ε'],
    charts: [
      { ys: ['E', 'KE', 'PE'], yLabel: 'energy per particle (ε)', xLabel: 'time t (τ = σ√(m/ε))' },
      { ys: ['T'], yLabel: 'temperature (ε/k_B)', xLabel: 'time t (τ = σ√(m/ε))' },
    ],
  },
  action: {
    value: ['Energy at the end', 'model energy units'],
    charts: [{ ys: ['energy', 'energyRk4'], yLabel: 'energy (model units)', xLabel: 'time t (model units)' }],
    phase: [{ x: 'x', y: 'y', xLabel: 'x (model length)', yLabel: 'y (model length)', title: 'Orbit' }],
  },
  lorenz: {
    value: ['Phase-volume contraction rate', 'per unit of the model time (1/t): the check of the integrator, not the answer', 'per time unit'],
    charts: [
      { ys: ['lyapunov'], yLabel: 'running estimate of λ₁ (1/time)', xLabel: 'time t (dimensionless)', title: 'Largest Lyapunov exponent as the run goes on' },
      { ys: ['x', 'y', 'z'], yLabel: 'state x, y, z (dimensionless)', xLabel: 'time t (dimensionless)', title: 'The state against time' },
    ],
    phase: [{ x: 'x', y: 'z', xLabel: 'x (convection intensity)', yLabel: 'z (vertical temperature deviation)', title: 'The attractor in phase space (x, z)' }],
    headline: (r, resp) => {
      const lam = r.lyapunov;
      const sp = Array.isArray(r.lyapunovSpectrum) ? r.lyapunovSpectrum : null;
      return [
        num(lam) && ['Largest Lyapunov exponent λ₁', `${fmt(lam, 4)} per time unit`,
          lam > 0.01 ? `chaotic: nearby states separate e-fold every ${fmt(1 / lam, 3)} time units` : 'not chaotic: nearby states do not separate'],
        sp && ['Lyapunov spectrum', sp.map((x) => fmt(x, 4)).join(', ')],
        num(r.kaplanYorkeDimension) && ['Attractor dimension', fmt(r.kaplanYorkeDimension, 4), 'Kaplan-Yorke, from the spectrum'],
        num(resp.value) && num(r.divergence) && ['Phase-volume contraction rate (the sealed value)', `${fmt(resp.value, 6)} per time unit`, `its check: Liouville's divergence −(σ + 1 + β) = ${fmt(r.divergence, 6)}`],
      ];
    },
  },
  lotka: {
    value: ['First integral V at the end', 'dimensionless (V = δx − γ ln x + βy − α ln y)'],
    charts: [
      { ys: ['x', 'y'], yLabel: 'population (prey x, predators y)', xLabel: 'time t (dimensionless)' },
      { ys: ['V'], yLabel: 'first integral V', xLabel: 'time t (dimensionless)' },
    ],
    phase: [{ x: 'x', y: 'y', xLabel: 'prey x', yLabel: 'predators y', title: 'Phase portrait (a closed orbit: V is conserved)' }],
    headline: (r) => [
      num(r.period) && ['Period', `${fmt(r.period)} time units`, num(r.smallAmplitudePeriod) ? `small-amplitude limit 2π/√(αγ) = ${fmt(r.smallAmplitudePeriod)}` : undefined],
      r.equilibrium && ['Equilibrium', `x = ${fmt(r.equilibrium.x)}, y = ${fmt(r.equilibrium.y)}`],
    ],
  },
  epi: {
    value: ['Basic reproduction number R0', 'dimensionless: secondary infections per case in a susceptible population', ''],
    charts: [{ ys: ['S', 'I', 'R'], yLabel: 'people', xLabel: 'time (days)', title: 'Susceptible, infectious, recovered' }],
    headline: (r) => [
      num(r.finalSize) && ['Final size', `${pct(r.finalSize)} of the population infected${num(r.finalInfected) ? ` (${int(r.finalInfected)} people)` : ''}`,
        num(r.finalSizeReference) ? `final-size relation: ${pct(r.finalSizeReference)}` : undefined],
      num(r.peakInfected) && ['Peak', `${int(r.peakInfected)} infectious at once${num(r.peakInfectedFraction) ? ` (${pct(r.peakInfectedFraction)})` : ''}${num(r.peakDay) ? ` on day ${Math.round(r.peakDay)}` : ''}`],
      typeof r.epidemicOver === 'boolean' && ['Over by the last day?', r.epidemicOver ? 'yes' : `no: ${pct(r.stillInfectiousFraction)} still infectious`],
    ],
  },
  kalman: {
    value: ['Steady-state error variance', 'the trace of the error covariance, in state units squared'],
    charts: [
      { ys: ['traceP', 'squaredError'], yLabel: 'error variance (state units²)', xLabel: 'filter step k' },
      { ys: ['innovation'], yLabel: 'innovation (measurement units)', xLabel: 'filter step k' },
    ],
  },
  quant: {
    value: ['Option price', '$ (currency of S0 and K)'],
    headline: (r) => [
      num(r.price) && ['Price', `${fmt(r.price, 6)} ± ${fmt(r.stdErr, 2)} (Monte Carlo, 1 standard error)`, num(r.blackScholes) ? `Black-Scholes: ${fmt(r.blackScholes, 6)}` : undefined],
      num(r.delta) && ['Delta', `${fmt(r.delta, 4)} ± ${fmt(r.deltaStdErr, 2)}`, num(r.blackScholesDelta) ? `Black-Scholes: ${fmt(r.blackScholesDelta, 4)}` : undefined],
    ],
  },
  gauge: {
    value: ['Mean plaquette', '⟨cos θ_P⟩, dimensionless'],
    charts: [{ ys: ['plaquette'], yLabel: 'plaquette (dimensionless)', xLabel: 'sweep' }],
  },
  zeta: {
    value: ['Number of zeros up to height T', 'a count'],
    charts: [{ ys: ['Z'], yLabel: 'Z(t) (Riemann-Siegel)', xLabel: 'height t on the critical line' }],
  },
  grid: {
    value: ['Largest line flow', 'per unit of the system base'],
    charts: [
      { ys: ['theta'], yLabel: 'voltage angle (rad)', xLabel: 'bus' },
      { ys: ['injection'], yLabel: 'power injection (pu)', xLabel: 'bus' },
    ],
  },
  opt: {
    value: ['Best objective value', 'the objective\'s own units'],
    charts: [{ ys: ['f'], yLabel: 'best f so far', xLabel: 'iteration' }],
  },
  dock: {
    value: ['Best binding energy', 'Lennard-Jones energy units ε'],
    charts: [{ ys: ['energy'], yLabel: 'best energy of the start (ε)', xLabel: 'restart' }],
  },
  sat: { value: ['Decisions', 'a count of branching decisions'] },
  protect: { value: ['Guard power P', 'the guard power, dimensionless'] },
  ode: {
    value: ['First state at the end', 'the units of your equations'],
    charts: [{ ys: null, yLabel: 'state (your units)', xLabel: 't (your units)' }],
  },
  lp: { value: ['Optimal objective', "the objective in your model's own units"] },
  fit: { value: ['Residual sum of squares χ²', 'the squared units of your data, each residual divided by its σ when σ is given'] },
  linsolve: { value: ['Norm of the solution ‖x‖₂', 'the units of x: those of b divided by those of A'] },
};

/** Values the playground puts in a solver's form beyond the schema's defaults (shown, editable):
 * lorenz asks for 1000 points so that its phase portrait shows the attractor. */
export const FORM_PRESETS = { lorenz: { sample: 1000 } };

/** The value line: "Basic reproduction number R0: 3 (dimensionless …)", or the plain value and unit. */
export function valueLine(r) {
  const p = PRESENT[r.solver];
  const v = num(r.value) ? fmt(r.value, 6) : '—';
  if (!p?.value) return { label: 'Value', text: `${v} ${r.unit ?? ''}`.trim() };
  const [what, unit, shown] = p.value;
  return { label: what, text: `${v} ${shown ?? r.unit ?? ''}`.trim(), note: `sealed unit "${r.unit}": ${unit}` };
}

/** The headline rows [label, text, note?] of a sealed response (empty when none are defined). */
export function headlineOf(r) {
  const p = PRESENT[r.solver];
  if (!p?.headline || !r.result) return [];
  try {
    return p.headline(r.result, r).filter(Boolean).map(([label, text, note]) => ({ label, text, note }));
  } catch {
    return [];
  }
}

/** The charts of a response's series: [{ x, ys, xLabel, yLabel, title }], only with keys present. */
export function chartsOf(r) {
  const series = r.series;
  if (!series || typeof series !== 'object') return [];
  const keys = Object.keys(series).filter((k) => Array.isArray(series[k]) && series[k].length > 1 && series[k].every((v) => typeof v === 'number'));
  if (keys.length < 2) return [];
  const p = PRESENT[r.solver];
  const out = [];
  for (const c of p?.charts ?? []) {
    const x = c.x ?? keys[0];
    if (!keys.includes(x)) continue;
    const ys = (c.ys ?? keys.filter((k) => k !== x)).filter((k) => keys.includes(k) && k !== x);
    if (ys.length) out.push({ x, ys, xLabel: c.xLabel ?? x, yLabel: c.yLabel ?? ys.join(', '), title: c.title ?? '' });
  }
  // an unknown solver, or series no chart names: one chart of everything against the first key
  const drawn = new Set(out.flatMap((c) => [c.x, ...c.ys]));
  const rest = keys.slice(1).filter((k) => !drawn.has(k) && !(p?.phase ?? []).some((ph) => [ph.x, ph.y, ...(ph.also ?? [])].includes(k)));
  if (!out.length || (rest.length && !p?.charts)) out.push({ x: keys[0], ys: rest.length ? rest : keys.slice(1), xLabel: keys[0], yLabel: (rest.length ? rest : keys.slice(1)).join(', '), title: '' });
  return out;
}

/** The phase portraits of a response: [{ x, y, also?, xLabel, yLabel, title }] whose keys are present. */
export function phasesOf(r) {
  const p = PRESENT[r.solver];
  const series = r.series ?? {};
  return (p?.phase ?? []).filter((ph) => [ph.x, ph.y, ...(ph.also ?? [])].every((k) => Array.isArray(series[k]) && series[k].length > 2));
}
