// svc_auto: the BM25 dispatcher routes plain-English requests to the right solver, refuses
// requests that match nothing, maps numeric inputs, and seals under the chosen solver's source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildIndex, classify, chooseSolver, loadDescriptors, mapInputs, numbersInQuery, terms, REFUSE_BELOW,
} from '../../src/ops/dispatch.ts';
import { stem } from '../../src/core/text.ts';
import { SvcError } from '../../src/core/errors.ts';

// Requests written the way users ask, not copied from the descriptors' examples. Rows whose
// solver module does not exist (yet) are skipped; at least 60 rows must be scored.
const TABLE: [string, string][] = [
  // acoustic
  ['what is the fundamental frequency of a 2 metre organ pipe open at both ends', 'acoustic'],
  ['resonance of a tube closed at one end, speed of sound 343 m/s', 'acoustic'],
  ['third harmonic of air column in a duct', 'acoustic'],
  // action
  ['integrate a kepler orbit with a symplectic integrator and check energy drift', 'action'],
  ['long term energy conservation of a pendulum with a high order yoshida scheme', 'action'],
  ['leapfrog vs rk4 for a planet on an eccentric orbit', 'action'],
  // buckling
  ['critical load at which a slender steel column buckles', 'buckling'],
  ['euler buckling of a pinned-pinned strut', 'buckling'],
  ['when will a fixed-free pole collapse under axial compression', 'buckling'],
  // climate
  ['shallow water waves on the ocean, gravity wave speed sqrt(gH)', 'climate'],
  ['simulate a hump of water spreading in a 1D shallow-water model of the atmosphere', 'climate'],
  ['geophysical fluid surface height after a few hundred steps', 'climate'],
  // closedform
  ['exact closed-form solution of a duffing oscillator with cubic term', 'closedform'],
  ['analytic solution for phi double dot equals mu squared phi plus lambda phi cubed', 'closedform'],
  ['jacobi elliptic cn solution of the nonlinear field equation', 'closedform'],
  // device
  ['built-in potential of a silicon pn junction with given doping', 'device'],
  ['electrostatic potential between two capacitor plates in a semiconductor', 'device'],
  ['poisson equation for the voltage inside a transistor channel', 'device'],
  // dock
  ['find how a drug binds in a protein pocket and its binding energy', 'dock'],
  ['best docking pose of my ligand', 'dock'],
  ['search rotations and translations of a small molecule to fit a receptor', 'dock'],
  // epi
  ['how many people get infected in a flu outbreak with R0 of 2.5', 'epi'],
  ['SEIR model of covid spread, when does the epidemic peak', 'epi'],
  ['final size of an epidemic with infection rate 0.3 and recovery rate 0.1', 'epi'],
  // evolve
  ['molecular dynamics of a lennard-jones liquid with velocity verlet', 'evolve'],
  ['simulate argon atoms in a periodic box and measure temperature and pressure', 'evolve'],
  ['energy drift of an NVE md run of 500 particles', 'evolve'],
  // fea
  ['finite element deflection of a cantilever beam under a tip load', 'fea'],
  ['plane stress FEM of a steel plate, how far does the end move', 'fea'],
  ['tip displacement of a loaded cantilever using quadrilateral elements', 'fea'],
  // flow
  ['incompressible navier-stokes taylor green vortex decay', 'flow'],
  ['stable fluids simulation of viscous flow in a periodic box', 'flow'],
  ['how fast does a vortex slow down due to viscosity', 'flow'],
  // gauge
  ['mean of cos theta over plaquettes for U(1) on a lattice at beta = 2', 'gauge'],
  ['lattice QED monte carlo on a 32x32 grid with heat bath', 'gauge'],
  ['simulate an abelian gauge field on a lattice and compare with bessel ratio', 'gauge'],
  // grid
  ['flows on every line of a 50 bus transmission system', 'grid'],
  ['which line in my electricity grid is most heavily loaded', 'grid'],
  ['dc load flow with a slack bus and line reactances', 'grid'],
  // heat
  ['temperature in a metal rod cooling over time with the heat equation', 'heat'],
  ['crank nicolson diffusion of heat in a 2D plate', 'heat'],
  ['how does a hot spot spread by thermal conduction, explicit FTCS scheme', 'heat'],
  // kalman
  ['track a noisy moving target with a kalman filter', 'kalman'],
  ['steady state error covariance of a state estimator from the riccati equation', 'kalman'],
  ['filter noisy sensor measurements to estimate position', 'kalman'],
  // lorenz
  ['lorenz attractor with sigma 10 rho 28', 'lorenz'],
  ['largest lyapunov exponent of a chaotic system', 'lorenz'],
  ['how fast do two almost identical weather-model runs drift apart in the lorenz system', 'lorenz'],
  // lotka
  ['foxes and rabbits predator prey cycles', 'lotka'],
  ['lotka volterra population oscillations of wolves and deer', 'lotka'],
  ['how do predator and prey populations evolve over time', 'lotka'],
  // ode
  ['integrate my own coupled differential equations for two species with parameters a and b', 'ode'],
  ['stiff initial value problem, solve with an implicit BDF method', 'ode'],
  ['solve_ivp style integration of three coupled rate equations with a zero-crossing event', 'ode'],
  ['fit a double exponential to my decay measurements and report standard errors', 'fit'],
  ['least-squares estimate of the rate constants from a titration curve', 'fit'],
  ['nonlinear regression with error bars on each parameter', 'fit'],
  ['curve fitting of spectroscopy data with a Lorentzian line shape', 'fit'],
  // lp
  ['minimise shipping cost over warehouses and stores, a linear program with supply constraints', 'lp'],
  ['integer program to choose which machines to buy under a budget', 'lp'],
  ['read my MPS file and report the optimal objective and the dual prices', 'lp'],
  ['mixed integer model for staff rostering, solved to a proven gap', 'lp'],
  // linsolve
  ['my finite element stiffness matrix K and load vector f: find the displacements u with K u = f', 'linsolve'],
  ['how ill-conditioned is my sparse coefficient matrix, and how many digits of x can I trust', 'linsolve'],
  ['conjugate gradient on a symmetric positive definite sparse system', 'linsolve'],
  ['backward error of the solution of a large sparse linear system', 'linsolve'],
  // multibody
  ['gravitational n-body simulation of three stars', 'multibody'],
  ['orbits of several planets interacting through gravity', 'multibody'],
  ['simulate a binary star system with two masses and positions', 'multibody'],
  // opt
  ['get to the bottom of the rosenbrock valley starting at (-1.2, 1)', 'opt'],
  ['find the global minimum of rastrigin in 10 dimensions', 'opt'],
  ['nelder mead optimisation of a test function', 'opt'],
  // protect
  ['my api is returning 503, what is the guard state', 'protect'],
  ['health check says the service is down, raise an alarm', 'protect'],
  ['uptime monitor liveness 0.3', 'protect'],
  // quant
  ['what is a european call struck at 105 worth today', 'quant'],
  ['black scholes value of a put, volatility 30%', 'quant'],
  ['monte carlo valuation of a stock option and its delta', 'quant'],
  // react
  ['gray-scott system with feed rate 0.04: do spots or stripes form', 'react'],
  ['turing patterns from two chemicals reacting and diffusing', 'react'],
  ['spiral waves in a fitzhugh-nagumo model of heart tissue', 'react'],
  // sat
  ['does a random 3-sat instance on 100 variables have any solution at all', 'sat'],
  ['boolean satisfiability with DPLL at clause ratio 4.26', 'sat'],
  ['find a truth assignment that satisfies all clauses of a cnf', 'sat'],
  // schrodinger
  ['first few energy eigenvalues for a quantum particle in a parabolic potential', 'schrodinger'],
  ['ground state energy of a particle in a box', 'schrodinger'],
  ['energy of the second bound level in a finite square potential well', 'schrodinger'],
  // solve
  ['trajectory of a ball falling through air with drag on earth', 'solve'],
  ['drop a 2 kg mass on mars and integrate its motion', 'solve'],
  ['free fall of an object in water with rk4', 'solve'],
  // tumor
  ['how fast does a tumour invade surrounding tissue, fisher-kpp front', 'tumor'],
  ['travelling wave speed of logistic growth with diffusion', 'tumor'],
  ['cancer cell growth front spreading', 'tumor'],
  // wave
  ['vibrating drum membrane modes with leapfrog', 'wave'],
  ['plucked string wave equation energy conservation', 'wave'],
  ['electromagnetic cavity resonance with a yee scheme', 'wave'],
  // zeta
  ['up to 1000, how many zeros of zeta are there on the line re(s) = 1/2', 'zeta'],
  ["numerically test riemann's conjecture for zeros below 500", 'zeta'],
  ['how often does zeta vanish along the critical line below 400', 'zeta'],
  // fracture
  ['peridynamic simulation of a plate with a notch being pulled apart', 'fracture'],
  ['when does a pre-cracked specimen fracture under tension', 'fracture'],
  ['mode I crack propagation stress', 'fracture'],
  // vaguer, more casual requests
  ['I blow across a bottle, what pitch do I hear', 'acoustic'],
  ['does my orbit integrator keep the hamiltonian bounded over a million steps', 'action'],
  ['how much weight can a wooden column hold before it bows sideways', 'buckling'],
  ['tsunami propagation speed in 4 km deep ocean', 'climate'],
  ['how long until a new virus infects half the town', 'epi'],
  ['simulate a gas of particles bouncing in a box with LJ potential', 'evolve'],
  ['stress and bending of a bracket under load using finite elements', 'fea'],
  ['simulate smoke swirling in a box', 'flow'],
  ['how does electricity split between parallel power lines', 'grid'],
  ['how long for my coffee to cool down through the mug wall', 'heat'],
  ['fuse GPS readings with a motion model', 'kalman'],
  ['chaotic convection rolls, strange attractor', 'lorenz'],
  ['why do lynx and snowshoe hare numbers rise and crash in turn', 'lotka'],
  ['earth moon sun gravitational motion', 'multibody'],
  ['tune parameters to minimise a cost, derivative free', 'opt'],
  ['is my website down', 'protect'],
  ['what should a 6 month put on apple cost', 'quant'],
  ['leopard spots pattern formation in chemistry', 'react'],
  ['can these logic constraints all be satisfied', 'sat'],
  ['hydrogen-like energy levels in a potential well, schrodinger equation', 'schrodinger'],
  ['how fast does a skydiver fall with air resistance', 'solve'],
  ['how quickly does an invasive species advance into new territory', 'tumor'],
  ['guitar string vibration', 'wave'],
  ['distribution of the nontrivial zeros of zeta', 'zeta'],
  ['docking score of an inhibitor in an enzyme active site', 'dock'],
  ['U(1) lattice simulation, wilson loops', 'gauge'],
  ['semiconductor diode depletion voltage', 'device'],
  ['fatigue crack in an aluminium sheet', 'fracture'],
  ['exact solution of a nonlinear oscillator without numerical integration', 'closedform'],
  ['transmission grid line overload after adding a generator', 'grid'],
];

// A second set, written later for the audit of issue 5 by someone who had read only the solvers'
// one-line summaries (not their examples or vocabulary), at least two per solver.
const HELD_OUT: [string, string][] = [
  ['how much is a call option worth if the stock trades at 120 and the strike is 100, expiring in six months', 'quant'],
  ['value a put on an index with 25% implied vol', 'quant'],
  ['I want the premium and hedge ratio for an at-the-money option', 'quant'],
  ['option price by simulating many random stock paths', 'quant'],
  ['compact QED on a two dimensional lattice, what is the plaquette at coupling 1', 'gauge'],
  ['measure the average plaquette in a U(1) lattice Monte Carlo', 'gauge'],
  ['two-dimensional lattice gauge Monte Carlo on 24x24 sites, heat-bath algorithm', 'gauge'],
  ['decide whether a random CNF instance with 60 variables has a solution', 'sat'],
  ['3-SAT near the hardness threshold, how many branching decisions does DPLL make', 'sat'],
  ['generate random boolean clauses and check satisfiability', 'sat'],
  ["count zeros of Riemann's zeta below t = 1500", 'zeta'],
  ['verify the number of nontrivial zeros up to height 300 against the Riemann-von Mangoldt formula', 'zeta'],
  ["where does Hardy's Z(t) cross zero between 15 and 200", 'zeta'],
  ['solve the DC load flow for a 100-bus test system', 'grid'],
  ['line flows and bus angles in a high-voltage transmission network', 'grid'],
  ['find the most loaded transmission line given generator outputs and demands', 'grid'],
  ["minimize Beale's function with gradient descent", 'opt'],
  ['how many iterations does the simplex method need on the banana function', 'opt'],
  ['find the lowest point of a bumpy multimodal function in 5 dimensions', 'opt'],
  ['predict where a small molecule sits in a binding site and how strongly it binds', 'dock'],
  ['rigid ligand pose optimization with Lennard-Jones and Coulomb scoring', 'dock'],
  ['run a docking search with 50 restarts', 'dock'],
  ['resonance of a 1 m tube stopped at one end, lowest mode', 'acoustic'],
  ['what note does a flute tube of length 60 cm play', 'acoustic'],
  ['standing sound waves in an open-open duct, mode 3', 'acoustic'],
  ['symplectic leapfrog for a pendulum, compare with RK4 energy error', 'action'],
  ['Yoshida 6th order integrator on an elliptical orbit', 'action'],
  ['Euler critical load for a fixed-fixed column', 'buckling'],
  ['at what compressive force does a thin rod buckle', 'buckling'],
  ['gravity waves in a 1D shallow water model', 'climate'],
  ['a bump in sea surface height splitting into two waves', 'climate'],
  ['Duffing oscillator in closed form via elliptic functions', 'closedform'],
  ['analytic phi(t) for a cubic nonlinear oscillator', 'closedform'],
  ['potential inside a parallel plate capacitor', 'device'],
  ['built-in voltage of a p-n junction with Na = 1e22 and Nd = 1e21', 'device'],
  ['SIR epidemic with beta 0.4 and gamma 0.1, peak day', 'epi'],
  ['how many people eventually catch measles in a town', 'epi'],
  ['velocity verlet molecular dynamics of 256 lennard jones atoms', 'evolve'],
  ['temperature and pressure of a simulated argon liquid', 'evolve'],
  ['finite element bending of a cantilever beam', 'fea'],
  ['how much does a steel beam fixed at one end deflect under a point load at the free end', 'fea'],
  ['a Taylor-Green flow pattern in a viscous liquid: how fast does it slow down', 'flow'],
  ['2D incompressible fluid simulation on a periodic grid', 'flow'],
  ['peridynamic fracture of a notched plate under tensile strain', 'fracture'],
  ['at what strain does a bar break', 'fracture'],
  ['heat diffusion in a square plate with ADI', 'heat'],
  ['how does temperature decay in a rod with cold ends', 'heat'],
  ['Kalman filter steady state variance for a random walk with noisy measurements', 'kalman'],
  ['estimate a hidden state from noisy observations', 'kalman'],
  ['Lorenz system Lyapunov exponent', 'lorenz'],
  ['chaotic butterfly attractor with rho = 28', 'lorenz'],
  ['predator prey model with rabbits and foxes', 'lotka'],
  ['Lotka-Volterra conserved quantity', 'lotka'],
  ['three body problem with gravity', 'multibody'],
  ['numerically solve my ODE system y1\' = -0.04 y1 + 1e4 y2 y3 with Radau', 'ode'],
  ['initial value problem for a stiff Van der Pol oscillator', 'ode'],
  ['simulate planets orbiting a star with n-body', 'multibody'],
  ['service health guard, status 503 and liveness 0.2', 'protect'],
  ['is my endpoint degraded? guard state for liveness 0.4', 'protect'],
  ['Gray-Scott with F = 0.035, k = 0.065, what pattern appears', 'react'],
  ['two reacting chemicals that diffuse and form spots', 'react'],
  ['third energy level for a quantum particle trapped between infinitely high walls', 'schrodinger'],
  ['eigenvalues of the 1D schrodinger equation for a harmonic potential', 'schrodinger'],
  ['ball dropped from 100 m with air drag on Mars', 'solve'],
  ['pendulum trajectory with RK4', 'solve'],
  ['Fisher-KPP front speed for tumor growth', 'tumor'],
  ['how fast does a cancer spread into tissue with diffusion 0.1 and growth rate 1', 'tumor'],
  ['vibrating square membrane energy with leapfrog', 'wave'],
  ['standing waves on a string', 'wave'],
];

const NONSENSE = [
  'hello there', 'what is the weather like tomorrow in paris', 'write me a poem about cats',
  'recipe for banana bread', 'who won the football match', 'translate this sentence into german',
];

const descriptors = await loadDescriptors();
const index = buildIndex(descriptors);
const present = new Set(index.names);

test('every solver module exporting descriptor and run is indexed (dispatcher and non-solvers excluded)', () => {
  assert.ok(present.size >= 20, `${present.size} solvers`);
  for (const n of ['quant', 'gauge', 'sat', 'zeta', 'grid', 'opt', 'dock']) assert.ok(present.has(n), n);
  for (const n of ['auto', 'dispatch', 'engine', 'types', 'worker']) assert.ok(!present.has(n), n);
  for (const d of descriptors) assert.ok(d.examples.length >= 6 && d.vocabulary.length > 0, `${d.name} descriptor`);
});

/** Share of the requests that chooseSolver dispatches to the right solver; a refusal counts as a miss. */
function routed(rows: [string, string][]): { accuracy: number; misses: string[] } {
  const misses: string[] = [];
  for (const [q, want] of rows) {
    let got: string;
    try { got = chooseSolver(index, q).solver; } catch { got = `refused, top ${classify(index, q).ranking[0].solver}`; }
    if (got !== want) misses.push(`${want} <- '${q}' (got ${got})`);
  }
  return { accuracy: 1 - misses.length / rows.length, misses };
}

test('acceptance: at least 90 % of the plain-English requests route to the right solver', () => {
  const rows = TABLE.filter(([, want]) => present.has(want));
  assert.ok(rows.length >= 60, `${rows.length} rows scored`);
  const covered = new Set(rows.map(([, w]) => w));
  for (const n of present) if (n !== 'auto') assert.ok(covered.has(n), `no request in the table for ${n}`);
  const { accuracy, misses } = routed(rows);
  assert.ok(accuracy >= 0.9, `accuracy ${(100 * accuracy).toFixed(1)} %; misses:\n${misses.join('\n')}`);
});

test('acceptance, held out: the requests written without the descriptors in view also route at least 90 % right', () => {
  const rows = HELD_OUT.filter(([, want]) => present.has(want));
  assert.ok(rows.length >= 60, `${rows.length} rows scored`);
  const perSolver = new Map<string, number>();
  for (const [, w] of rows) perSolver.set(w, (perSolver.get(w) ?? 0) + 1);
  for (const n of ['quant', 'gauge', 'sat', 'zeta', 'grid', 'opt', 'dock']) assert.ok((perSolver.get(n) ?? 0) >= 3, `${n}: fewer than 3 requests`);
  const { accuracy, misses } = routed(rows);
  assert.ok(accuracy >= 0.9, `accuracy ${(100 * accuracy).toFixed(1)} %; misses:\n${misses.join('\n')}`);
});

test('the tables are not copied from the descriptors: no request shares more than half its words with an example of its solver', () => {
  const words = (t: string) => new Set(terms(t).filter((x) => !x.includes('_')));
  for (const [q, want] of [...TABLE, ...HELD_OUT]) {
    const d = descriptors.find((x) => x.name === want);
    if (!d) continue;
    const qw = words(q);
    for (const ex of d.examples) {
      const ew = words(ex);
      const shared = [...qw].filter((w) => ew.has(w)).length;
      const jaccard = shared / (qw.size + ew.size - shared);
      assert.ok(jaccard < 0.55, `'${q}' is a near copy of ${want}'s example '${ex}' (${jaccard.toFixed(2)})`);
    }
    assert.ok(!d.examples.some((ex) => ex.toLowerCase() === q.toLowerCase()));
  }
});

test('requests that match nothing are refused with 400 INVALID_INPUT and the top candidates', () => {
  for (const q of NONSENSE) {
    assert.throws(() => chooseSolver(index, q), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, 'INVALID_INPUT');
      assert.equal(e.status, 400);
      const cands = e.details?.candidates as { solver: string; score: number }[];
      assert.equal(cands.length, 5);
      assert.ok(cands[0].score < REFUSE_BELOW);
      return true;
    }, q);
  }
  const ok = chooseSolver(index, 'price a european call option with strike 105');
  assert.equal(ok.solver, 'quant');
});

test('the ranking is deterministic, sorted, and carries scores', () => {
  const a = classify(index, 'lattice gauge plaquette at beta 2'), b = classify(index, 'lattice gauge plaquette at beta 2');
  assert.deepEqual(a, b);
  assert.equal(a.ranking[0].solver, 'gauge');
  for (let i = 1; i < a.ranking.length; i++) assert.ok(a.ranking[i - 1].score >= a.ranking[i].score);
  assert.ok(a.matchedTerms.includes('plaquette'));
});

test('text processing: stop words and numbers dropped, stems merged, bigrams added', () => {
  assert.deepEqual(terms('The Heat Bath'), ['heat', 'heat_bath', 'bath']);
  assert.deepEqual(terms('optimise 100 functions'), ['optimize', 'function']);
  assert.equal(stem('zeros'), stem('zero'));
  assert.equal(stem('optimisation'), stem('optimization'));
  assert.equal(stem('running'), 'run');
  assert.equal(stem('boxes'), 'box');
});

test('numeric inputs are kept only for fields the chosen solver accepts', () => {
  const quant = descriptors.find((d) => d.name === 'quant')!;
  const { mapped, dropped } = mapInputs({ S0: 100, k: 95, sigma: 0.3, bogus: 1 }, quant);
  assert.deepEqual(mapped, { S0: 100, K: 95, sigma: 0.3 });
  assert.deepEqual(dropped, ['bogus']);
  assert.deepEqual(numbersInQuery('sat with n=50, alpha = 4.2 and m=1e2'), { n: 50, alpha: 4.2, m: 100 });
  assert.deepEqual(numbersInQuery('no pairs here 4.26'), {});
});

test('POST /api/svc/auto runs the chosen solver, seals under its own source and shows the ranking', async () => {
  const { testNode } = await import('../helpers.ts');
  const node = await testNode();
  try {
    const m = await node.machine();
    const r = await node.call('POST', '/api/svc/auto', {
      query: 'price a european put option with strike 110 and volatility 25%, paths=20000',
      inputs: { S0: 100, K: 110, sigma: 0.25, bogus: 3 },
    }, m.apiKey);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.solver, 'quant');
    assert.equal(r.body.unit, '$');
    assert.deepEqual(r.body.svcState.operators, ['KO42', 'BLACK_SCHOLES']);
    assert.ok(Number.isFinite(r.body.value));
    const d = r.body.result.dispatch;
    assert.equal(d.solver, 'quant');
    assert.equal(d.scores.length, 5);
    assert.equal(d.scores[0].solver, 'quant');
    assert.deepEqual(d.droppedInputs, ['bogus']);
    assert.deepEqual(d.mappedInputs, { paths: 20000, S0: 100, K: 110, sigma: 0.25 });
    assert.equal(r.body.result.paths, 20000);
    const v = await node.call('POST', '/api/svc/verify', {
      proof: r.body.svcProof, operatorIds: r.body.svcState.operators, R_t: r.body.svcState.masterSum,
      zeqond: r.body.svcState.svcond, keyPrefix: r.body.keyPrefix, value: r.body.value, unit: r.body.unit,
    }, m.apiKey);
    assert.equal(v.status, 200, v.text);
    assert.equal(v.body.valid, true);

    const refused = await node.call('POST', '/api/svc/auto', { query: 'write me a poem about cats' }, m.apiKey);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'INVALID_INPUT');
    assert.equal(refused.body.candidates.length, 5);

    // an input the chosen solver refuses is that solver's 400, never a 500
    const outOfRange = await node.call('POST', '/api/svc/auto', { query: 'is a random 3-sat formula satisfiable, n=500' }, m.apiKey);
    assert.equal(outOfRange.status, 400, outOfRange.text);
    assert.equal(outOfRange.body.code, 'INVALID_INPUT');
    const tooManyChords = await node.call('POST', '/api/svc/auto', { query: 'dc power flow on a small grid', inputs: { N: 5, chords: 6 } }, m.apiKey);
    assert.equal(tooManyChords.status, 400, tooManyChords.text);

    const noKey = await node.call('POST', '/api/svc/auto', { query: 'count zeros of the riemann zeta function' });
    assert.equal(noKey.status, 401);

    const viaTool = await node.tool('svc_auto', { query: 'how many zeros of the riemann zeta function lie below height 100' }, m.apiKey);
    assert.equal(viaTool.isError, false, JSON.stringify(viaTool.body));
    assert.equal(viaTool.body.solver, 'zeta');
    assert.equal(viaTool.body.value, 29);
  } finally {
    await node.close();
  }
});
