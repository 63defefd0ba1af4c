// The glossary (issue 29 item 5): every unit symbol of the solver descriptors and every term of the
// seal, served in /docs (the "Glossary" section of the OpenAPI description) and kept word for word
// in docs/glossary.md (test/api/glossary.test.ts checks both, and that every descriptor's unit is
// listed).

/** unit symbol → what the sealed `value` is in that unit, and which solvers use it */
export const UNIT_GLOSSARY: [string, string][] = [
  ['Hz', 'hertz: a frequency (acoustic: the resonant frequency of the mode)'],
  ['E', 'an energy in the problem\'s own units: the conserved energy of an orbit, oscillator or pendulum (action), the discrete wave energy (wave), a bound-state energy in natural units ħ = m = ω = 1 (schrodinger)'],
  ['N', 'newton: the critical (Euler) buckling load (buckling)'],
  ['h', 'a water surface height, metres (climate: the peak surface height at the end)'],
  ['phi', 'the field value φ of the closed-form solution of φ\'\' = μ²φ + λφ³ + F (closedform; dimensionless)'],
  ['V', 'volt: an electrostatic potential (device)'],
  ['epsilon', 'an energy in units of the Lennard-Jones well depth ε (evolve: the mean potential energy per atom; dock: the best binding energy found)'],
  ['R0', 'the basic reproduction number, dimensionless (epi)'],
  ['m', 'metre: a displacement (fea: the tip deflection)'],
  ['m/s', 'metres per second: a speed (flow: the peak speed at the end)'],
  ['sigma', 'a stress, in the units of E (fracture: the peak stress of the peridynamic model)'],
  ['plaq', 'the mean plaquette ⟨cos θ_P⟩ of the lattice gauge field, dimensionless, in [−1, 1] (gauge)'],
  ['pu', 'per unit: a power-system quantity divided by its base (grid: bus voltages and flows on the case\'s MVA base)'],
  ['T', 'temperature-like, dimensionless (heat: the amplitude of the decaying temperature mode; lotka: the conserved first integral V = δx − γ ln x + βy − α ln y); not tesla, and not the maturity T of quant or the height T of zeta'],
  ['err', 'an estimation error (kalman: the trace of the steady-state a-posteriori error covariance P on a simulated system; on your measurements, the mean normalised innovation squared)'],
  ['1/t', 'per unit of time: a rate (lorenz: the phase-volume contraction rate, −(σ + 1 + β))'],
  ['J', 'joule: an energy (multibody: the total energy at the end; solve: the energy of the trajectory)'],
  ['y', 'the first state of your own ODE system at the final time, in your units (ode)'],
  ['f', 'the objective value at the minimiser, in your objective\'s units (opt)'],
  ['P', 'the guard power of protect, dimensionless in [0, 1]'],
  ['$', 'a price in the currency of S0 and K (quant: the option price)'],
  ['c', 'a concentration, dimensionless (react: the mean concentration of u); tumor: the measured front speed (length per unit time, checked against 2·√(r·D))'],
  ['decisions', 'the number of branching decisions the CDCL solver made (sat); the answer itself is result.satisfiable'],
  ['zeros', 'a count of Riemann zeta zeros on the critical line up to height T (zeta)'],
  ['objective', 'the optimal objective value c·x of your linear or integer program, in its own units (lp)'],
  ['chi2', 'the residual sum of squares χ² of your fit: Σ rᵢ², each residual divided by its σ when σ is given (fit)'],
  ['1', 'dimensionless, or in the units of your data: the 2-norm ‖x‖₂ of the solution of your linear system A·x = b (linsolve)'],
];

/** the seal's terms */
export const TERM_GLOSSARY: [string, string][] = [
  ['precision.errorPct', 'the answer\'s relative error in percent. Either the distance to an independent reference (an analytic solution, a closed form, a known optimum: "distance to the reference") or the method\'s own estimate of its error (a re-solve at tighter tolerances, a Richardson twin on a finer grid, a certificate such as a KKT residual: "the method\'s own error estimate"); precision.reference says which. It is not an uncertainty interval: the MCP text and the console name it, never a bare ±'],
  ['precision.boundPct', 'the largest errorPct the solver promises (0.1 % unless the solver or the caller sets another); withinBound is errorPct <= boundPct. A result outside its bound is refused (422 PRECISION_REFUSED) unless acceptOutOfBound: true'],
  ['Monte Carlo standard error', 'result.stdErr of a stochastic solver (quant): the sample standard deviation of the estimator over √(number of samples). It is given apart from errorPct; quant\'s bound is three standard errors (at least 0.1 %)'],
  ['details.retryWith', 'in a 422 PRECISION_REFUSED, or a 400 INVALID_INPUT whose issues name a setting of yours (grid, step, tolerance, iterations, paths) that cannot meet the bound: the inputs the method\'s error model predicts to meet it (a finer grid, tighter tolerances, more paths, more iterations), merged over your own body; the question stays the same'],
  ['KO42', 'the seed\'s first operator, in every solver\'s operator chain: it leaves physical values unchanged and contributes the pulse (R_t, phase, svcond) to the seal. Operator ids (KO42, WM1, BLACK_SCHOLES, CS75, …) name entries of the operator catalog (GET /api/operators)'],
  ['svcond', 'the pulse counter: floor(t / 0.777), t in unix seconds; one svcond is 0.777 s. Accepted as zeqond (the spec\'s spelling) by verify'],
  ['phase', '2π·frac(1.287·t), in [0, 2π)'],
  ['R_t', 'the master sum at instant t: S·(1 + 0.00129·sin(phase)), S the sum of the chain\'s operator weights (1 when normalised)'],
  ['masterSum', 'svcState.masterSum: the R_t of the seal\'s instant, as the seal carries it'],
  ['svcState', 'the pulse state of a seal: masterSum (R_t), operators (the operator chain), svcond'],
  ['svcProof', 'HMAC-SHA-256 over the operator ids, R_t, svcond and keyPrefix (svc-proof/v1) or over the receipt digest (v2): check it with svc_verify / POST /api/svc/verify'],
  ['keyPrefix', 'svc_ak_ plus the first 8 characters of the key that sealed the answer'],
  ['receipt', 'the sealed answer as stored: id, version, issuedAt, folder, chain entry (seq, hash); its digest is logged in the transparency log'],
  ['ZID', 'a machine\'s id: Z and 26 Crockford base32 characters (a ULID)'],
  ['recovery equation', 'a small random linear equation with its solution (and a salt), shown once when a machine is made: POST /api/machines/recover with it revokes every key and returns a new one. Recovery does not rotate it: the same equation and salt still recover the machine afterwards, so keep them secret (outside any repository)'],
  ['tokens', 'compute tokens: a sealed solver call costs 1 (worker time past the first second is charged too); tokens.remaining is what is left today'],
];

export function glossaryMarkdown(): string {
  const rows = (xs: [string, string][]) => xs.map(([k, v]) => `| \`${k}\` | ${v.replace(/\|/g, '\\|')} |`).join('\n');
  return `## Glossary\n\n### Units of the sealed value\n\nEach solver seals one \`value\` with a \`unit\` symbol:\n\n| unit | meaning |\n|---|---|\n${rows(UNIT_GLOSSARY)}\n\n### Terms of the seal and the answer\n\n| term | meaning |\n|---|---|\n${rows(TERM_GLOSSARY)}\n`;
}
