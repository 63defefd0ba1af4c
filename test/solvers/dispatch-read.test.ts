// svc_auto's reader (src/ops/dispatch-read.ts): how a request's numbers, units, percentages, option
// words and names become a solver's inputs, and what it refuses. The end-to-end table is
// test/solvers/auto-table.test.ts; these are the rules one by one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDescriptors } from '../../src/ops/dispatch.ts';
import { checkNamedRival, normalize, readQuery, tokenize } from '../../src/ops/dispatch-read.ts';
import { SvcError } from '../../src/core/errors.ts';

const ds = new Map((await loadDescriptors()).map((d) => [d.name, d]));
const read = (solver: string, q: string) => Object.fromEntries(Object.entries(readQuery(q, ds.get(solver)!).applied).map(([k, a]) => [k, a.value]));
const refusal = (solver: string, q: string): { reason: string; message: string } => {
  try { readQuery(q, ds.get(solver)!); } catch (e) {
    assert.ok(e instanceof SvcError, String(e));
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(e.status, 400);
    assert.equal(e.issues?.[0]?.path, 'query');
    return { reason: e.details!.reason as string, message: e.message };
  }
  assert.fail(`'${q}' was not refused`);
};
const nums = (q: string) => tokenize(normalize(q)).filter((t) => t.k === 'n').map((t) => t.v);

test('numbers: signs, separators, exponents, 2 × 10^5, fractions, number words, k suffix', () => {
  assert.deepEqual(nums('x = -1.2, 1,000,000 and 1e-8'), [-1.2, 1000000, 1e-8]);
  assert.deepEqual(nums('2 × 10^5 paths, 10^-3, 3x10^2'), [2e5, 1e-3, 300]);
  assert.deepEqual(nums('beta = 8/3'), [8 / 3]);
  assert.deepEqual(nums('six months, twenty-five steps, a million paths, two hundred cells, 2.5 million'), [6, 25, 1e6, 200, 2.5e6]);
  assert.deepEqual(nums('200k paths and 10-20 range'), [200000, 10, 20]);
  assert.deepEqual(nums('(−1.2, 1)'), [-1.2, 1]);
});

test('units convert exactly to the field unit: 60 cm is the same double as 0.6, 6 months 0.5, 90 days 90/365', () => {
  assert.deepEqual(read('acoustic', 'tube 60 cm long'), { L: 0.6 });
  assert.deepEqual(read('acoustic', 'pipe of length 2500 mm, speed of sound 1.2 km/s'), { L: 2.5, c: 1200 });
  assert.deepEqual(read('quant', 'call expiring in 6 months'), { type: 'call', T: 0.5 });
  assert.deepEqual(read('quant', 'put with 90 days to expiry'), { type: 'put', T: 90 / 365 });
  assert.deepEqual(read('device', 'pn junction, Na = 1e16 cm^-3, Nd = 1e22 per cubic metre, 27 degC'), { dim: 1, Na: 1e22, Nd: 1e22, T: 27 + 273.15 });
  assert.deepEqual(read('fea', 'cantilever, E = 70 GPa, load 2.5 kN'), { E: 7e10, P: 2500 });
  assert.deepEqual(read('epi', 'SIR outbreak over 2 years'), { model: 'sir', days: 730 });
});

test('percentages go to fractions only; a unit of the wrong kind after "=" is refused', () => {
  assert.deepEqual(read('quant', 'volatility 25 %, rate 3 percent'), { sigma: 0.25, r: 0.03 });
  assert.deepEqual(read('quant', '30% volatility'), { sigma: 0.3 });
  assert.deepEqual(read('fracture', 'bar pulled to 0.2 % strain'), { mode: 'bar', strain: 0.002 });
  assert.equal(refusal('gauge', 'plaquette with beta = 20 %').reason, 'UNIT_MISMATCH');
  assert.equal(refusal('quant', 'european call, volatility = 25 m').reason, 'UNIT_MISMATCH');
});

test('names: field names, Greek letters, describe() phrases, lexicon synonyms, number-then-name, ordinals', () => {
  assert.deepEqual(read('gauge', 'β = 2 on a 16 × 16 lattice, 500 sweeps'), { beta: 2, L: 16, sweeps: 500 });
  assert.deepEqual(read('lorenz', 'σ=10, ρ=28, Δt = 0.005'), { sigma: 10, rho: 28, dt: 0.005 });
  assert.deepEqual(read('quant', 'strike price of 110 and spot 100'), { K: 110, S0: 100 });
  assert.deepEqual(read('zeta', 'zeros up to height 1000'), { T: 1000 });
  assert.deepEqual(read('acoustic', 'third harmonic'), { mode: 3 });
  assert.deepEqual(read('action', 'Yoshida 6th order'), { order: 6 });
  assert.deepEqual(read('schrodinger', 'second excited state of a box'), { n: 2, potential: 'box' });
  assert.deepEqual(read('schrodinger', 'third energy level, 2000 grid nodes'), { n: 2, N: 2000 });
  // one-letter names need "=" or ":" (so "a" and "I" stay English)
  assert.deepEqual(read('react', 'fitzhugh-nagumo with a = 0.7 and I = 0.2, a 64 x 64 grid'), { model: 'fitzhugh-nagumo', a: 0.7, I: 0.2, N: 64 });
  // two fields differing only by case are told apart by case
  assert.deepEqual(read('schrodinger', 'box with n = 3 and N = 500'), { potential: 'box', n: 3, N: 500 });
  // "200 steps of 1e-4": both
  assert.deepEqual(read('heat', 'rod, 200 steps of 1e-4'), { dim: 1, steps: 200, dt: 1e-4 });
  // a number right before another field's name belongs to that name
  assert.deepEqual(read('fracture', 'bar strain with 100 nodes'), { mode: 'bar', N: 100 });
});

test('options: enum values and phrases; dimensions; grids; finishing rules', () => {
  assert.deepEqual(read('acoustic', 'pipe closed at one end'), { ends: 'open-closed' });
  assert.deepEqual(read('heat', 'Crank-Nicolson on a 2-D plate, 32 x 32 grid'), { method: 'implicit', dim: 2, nx: 32, ny: 32 });
  assert.deepEqual(read('wave', 'a 1-D string'), { mode: 'wave1d' });
  assert.equal(refusal('gauge', 'lattice gauge theory in 3-D').reason, 'UNSUPPORTED_OPTION');
  assert.equal(refusal('flow', 'taylor green on a 64 x 32 grid').reason, 'UNSUPPORTED_OPTION');
  assert.deepEqual(read('quant', 'at-the-money put, spot 80'), { type: 'put', S0: 80, K: 80 });
  assert.deepEqual(read('epi', 'R0 of 2 with recovery rate 0.25'), { gamma: 0.25, beta: 0.5 });
  assert.deepEqual(read('buckling', 'aluminium strut'), { E: 69e9 });
});

test('refusals: a quantity no field takes, an option the solver lacks, the user\'s own problem, two values for one field', () => {
  const barrier = refusal('quant', 'price a put with barrier 120');
  assert.equal(barrier.reason, 'UNSUPPORTED_OPTION');
  assert.match(barrier.message, /barrier/);
  const ceiling = refusal('quant', 'a put with a ceiling of 120');
  assert.equal(ceiling.reason, 'UNMAPPED_QUANTITY');
  assert.match(ceiling.message, /120 \(after 'ceiling'\)/);
  assert.equal(refusal('sat', 'is this CNF satisfiable').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('sat', 'solve my own formula').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('grid', 'AC power flow of the IEEE 14 bus case').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('multibody', 'three stars orbiting each other').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('ode', 'integrate my equations').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('ode', "x'' = -x with x(0) = 1").reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('ode', "y' = -k*y with y(0) = 1").reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('quant', 'call, strike 100, strike 110').reason, 'CONFLICTING_VALUES');
  assert.equal(refusal('heat', 'heat equation solved by the lattice boltzmann method').reason, 'UNSUPPORTED_OPTION');
  assert.equal(refusal('lorenz', 'lorenz system with forward euler').reason, 'UNSUPPORTED_OPTION');
  // the analytic heat and wave problems are sine modes with zero walls: other shapes are the user's own problem
  assert.equal(refusal('heat', 'heat equation with insulated ends').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('wave', 'string plucked at the middle').reason, 'NEEDS_STRUCTURED_INPUT');
  // "my objective" / "my system" without it, but read when given
  assert.equal(refusal('opt', 'minimize my cost function').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.equal(refusal('kalman', 'kalman filter for my tracking system').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.deepEqual(read('kalman', 'kalman filter for my tracking system with F = 1, H = 1, Q = 0.1, R = 1'), { F: 1, H: 1, Q: 0.1, R: 1 });
});

test('a close runner-up named in the request and unused by the chosen solver makes it ambiguous', () => {
  const q = 'heat equation with initial condition x*(1-x)';
  const r = readQuery(q, ds.get('lorenz')!);
  assert.ok(r.unusedWords.includes('heat'));
  assert.throws(() => checkNamedRival(r, 'lorenz', [{ solver: 'lorenz', score: 19.5 }, { solver: 'heat', score: 17.1 }]), (e: unknown) => e instanceof SvcError && e.details?.reason === 'AMBIGUOUS_SOLVER');
  // a far one is not a rival
  checkNamedRival(readQuery('how do predator and prey populations evolve over time', ds.get('lotka')!), 'lotka', [{ solver: 'lotka', score: 15.1 }, { solver: 'evolve', score: 5.2 }]);
});

test('labels are not quantities: 3-SAT, U(1), COVID-19, RK4 and a dimension with no setting pass; unused words are reported', () => {
  assert.deepEqual(read('sat', 'random 3-SAT with 50 variables'), { n: 50 });
  assert.deepEqual(read('gauge', 'U(1) gauge theory'), {});
  assert.deepEqual(read('epi', 'COVID-19 outbreak with beta 0.3'), { beta: 0.3 });
  const r = readQuery('european call for my grandmother, strike 100', ds.get('quant')!);
  assert.deepEqual(r.unusedWords, ['grandmother']);
  assert.equal(r.applied.K.words, 'strike 100');
});

test('solver-specific readers: ODE right-hand sides with initial values, parameters and span; an objective with its start point and bounds; an inline DIMACS CNF', () => {
  assert.deepEqual(read('ode', "dx/dt = -a*x + y, y' = -y, x(0) = 1, y(0) = 2, a = 0.5, from t = 0 to 3 with BDF"), {
    equations: { x: '-a*x + y', y: '-y' }, y0: { x: 1, y: 2 }, params: { a: 0.5 }, tSpan: [0, 3], method: 'BDF',
  });
  assert.deepEqual(read('opt', 'minimise (x-1)^2 + (y-2)^2 + z^2 from (0, 0, 1) subject to 0 <= y <= 1'), {
    objective: '(x-1)^2 + (y-2)^2 + z^2', x0: { x: 0, y: 0, z: 1 }, bounds: { y: [0, 1] },
  });
  assert.deepEqual(read('opt', 'minimise the rastrigin function in 5 dimensions'), { fn: 'rastrigin', dim: 5 });
  assert.equal(refusal('opt', 'minimise x^2 + y^2').reason, 'NEEDS_STRUCTURED_INPUT');
  assert.deepEqual(read('sat', 'decide p cnf 2 3 1 2 0 -1 0 -2 0 with cdcl'), { cnf: 'p cnf 2 3\n1 2 0 -1 0 -2 0\n', method: 'cdcl' });
  assert.equal(refusal('sat', 'solve this CNF').reason, 'NEEDS_STRUCTURED_INPUT');
});
