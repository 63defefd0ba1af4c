// The auto table (issue 18 item 4): plain-English requests written for this test — not the solvers'
// own examples (a test below keeps every row under 55 % word overlap with each example of its
// solver) — each with the solver it must reach and the inputs the request gives. Parameters are
// kept cheap (small grids, few steps) so the whole table runs in a test.
//
// `inputs` are what a person reading the request would send to the solver directly, written as
// plain numbers (0.6 for "60 cm", 0.25 for "25 %", 3 * (1 / 7) for "R0 of 3 … infectious period
// 7 days"); svc_auto must produce exactly these values.

export interface Row { q: string; solver: string; inputs: Record<string, unknown> }
export interface Refusal { q: string; reason: string; solver?: string }

export const ROWS: Row[] = [
  // acoustic
  { q: 'lowest resonance of a 1.5 m pipe open at both ends', solver: 'acoustic', inputs: { mode: 1, ends: 'open-open', L: 1.5 } },
  { q: 'third harmonic of a 60 cm tube closed at one end', solver: 'acoustic', inputs: { mode: 3, L: 0.6, ends: 'open-closed' } },
  { q: 'resonant frequency of mode 2 in a duct closed at both ends, length 3 m, speed of sound 340 m/s, 200 cells', solver: 'acoustic', inputs: { mode: 2, ends: 'closed-closed', L: 3, c: 340, N: 200 } },
  { q: 'what pitch does an 80 cm flute tube play when it is open at both ends', solver: 'acoustic', inputs: { L: 0.8, ends: 'open-open' } },
  { q: 'helium-filled organ pipe: sound speed 965 m/s, length 0.5 m, fundamental, open-open', solver: 'acoustic', inputs: { c: 965, L: 0.5, mode: 1, ends: 'open-open' } },
  { q: 'standing wave frequency of a 2 m air column with one end closed, 5th mode', solver: 'acoustic', inputs: { L: 2, ends: 'open-closed', mode: 5 } },
  // action
  { q: 'symplectic leapfrog for a harmonic oscillator, 2000 steps with dt 0.05', solver: 'action', inputs: { order: 2, system: 'oscillator', steps: 2000, dt: 0.05 } },
  { q: 'energy drift of an 8th order yoshida integrator on a kepler orbit with eccentricity 0.3, 1000 steps', solver: 'action', inputs: { order: 8, system: 'kepler', eccentricity: 0.3, steps: 1000 } },
  { q: 'pendulum released at 1.5 radians, fourth order symplectic scheme, step size 0.05, 4000 steps', solver: 'action', inputs: { system: 'pendulum', q0: 1.5, order: 4, dt: 0.05, steps: 4000 } },
  { q: 'kepler orbit of eccentricity 0.5 with sixth-order yoshida, 3000 steps, no comparison', solver: 'action', inputs: { system: 'kepler', eccentricity: 0.5, order: 6, steps: 3000, compare: false } },
  { q: 'long-time energy error of a symplectic oscillator integration with angular frequency 2, dt = 0.01, 5000 steps', solver: 'action', inputs: { system: 'oscillator', omega: 2, dt: 0.01, steps: 5000 } },
  { q: 'second-order leapfrog on a nonlinear pendulum with 1000 steps of 0.02', solver: 'action', inputs: { order: 2, system: 'pendulum', steps: 1000, dt: 0.02 } },
  // buckling
  { q: 'critical buckling load of a 2.5 m column pinned at both ends with EI = 4e5 N m^2', solver: 'buckling', inputs: { L: 2.5, ends: 'pinned-pinned', EI: 4e5 } },
  { q: 'euler load of a fixed-free steel pole 6 m tall, second moment of area 2e-6 m^4', solver: 'buckling', inputs: { ends: 'fixed-free', E: 207e9, L: 6, I: 2e-6 } },
  { q: 'axial force at which a 3 m aluminium strut clamped at both ends buckles, I = 5e-7 m^4', solver: 'buckling', inputs: { L: 3, E: 69e9, ends: 'fixed-fixed', I: 5e-7 } },
  { q: 'buckling of a fixed-pinned column, length 4 m, bending stiffness 1e6 N m^2, 40 elements', solver: 'buckling', inputs: { ends: 'fixed-pinned', L: 4, EI: 1e6, elements: 40 } },
  { q: 'cantilevered column 1.2 m long with flexural rigidity 2500 N m^2: critical load', solver: 'buckling', inputs: { ends: 'fixed-free', L: 1.2, EI: 2500 } },
  // issue 29: "fixed at one end" alone is the cantilever, not the default pinned-pinned (a load 4× too high)
  { q: 'critical load of a 2 m column fixed at one end with EI 1e5 N m^2', solver: 'buckling', inputs: { ends: 'fixed-free', L: 2, EI: 1e5 } },
  { q: 'a 4 m strut fixed at one end and pinned at the other, EI = 1e6 N m^2', solver: 'buckling', inputs: { ends: 'fixed-pinned', L: 4, EI: 1e6 } },
  // climate
  { q: 'Lax-Friedrichs shallow-water surface hump over 3 m deep water with 200 cells and 150 steps', solver: 'climate', inputs: { H: 3, N: 200, steps: 150 } },
  { q: '1-D shallow-water hump on a periodic domain with 100 cells and 80 steps, g = 1.62', solver: 'climate', inputs: { N: 100, steps: 80, g: 1.62 } },
  { q: 'geophysical surface wave with mean depth 0.5 m and time step 0.001 s over 100 steps', solver: 'climate', inputs: { H: 0.5, dt: 0.001, steps: 100 } },
  { q: 'lax-friedrichs shallow water on 300 cells for 200 steps', solver: 'climate', inputs: { N: 300, steps: 200 } },
  { q: 'a bump of sea surface in a 10 m deep shallow water channel, 120 steps', solver: 'climate', inputs: { H: 10, steps: 120 } },
  // closedform
  { q: 'closed-form duffing solution with mu2 = -1 and lambda = -0.5, phi(0) = 1, until t = 4', solver: 'closedform', inputs: { mu2_eff: -1, lambda_eff: -0.5, phi0: 1, tEnd: 4 } },
  { q: 'analytic master field solution with mu squared = -4, cubic coefficient 0.2, initial amplitude 0.5', solver: 'closedform', inputs: { mu2_eff: -4, lambda_eff: 0.2, phi0: 0.5 } },
  { q: 'jacobi elliptic closed form with lambda = -1, mu2 = -0.5, phi0 = 0.2 and dphi0 = 0.1', solver: 'closedform', inputs: { lambda_eff: -1, mu2_eff: -0.5, phi0: 0.2, dphi0: 0.1 } },
  { q: 'exact solution of a driven master field with F = 2 and mu2 = 0 up to t = 3', solver: 'closedform', inputs: { F_eff: 2, mu2_eff: 0, tEnd: 3 } },
  { q: "exact closed-form hyperbolic branch, mu2 = 1.5, phi(0) = 0.3, phi'(0) = 0", solver: 'closedform', inputs: { mu2_eff: 1.5, phi0: 0.3, dphi0: 0 } },
  // device
  { q: 'built-in potential of a pn junction with Na = 1e23 m^-3 and Nd = 5e21 m^-3', solver: 'device', inputs: { dim: 1, Na: 1e23, Nd: 5e21 } },
  { q: 'silicon diode at 350 K with acceptor density 1e22 m^-3 and donor density 1e22 m^-3', solver: 'device', inputs: { dim: 1, T: 350, Na: 1e22, Nd: 1e22 } },
  { q: 'p-n junction built-in voltage, Na = 1e16 cm^-3, Nd = 1e15 cm^-3', solver: 'device', inputs: { dim: 1, Na: 1e22, Nd: 1e21 } },
  { q: 'electrostatic potential between semiconductor capacitor plates at 3 V on a 32 x 32 grid', solver: 'device', inputs: { V: 3, nx: 32, ny: 32 } },
  { q: '2-D parallel plate device with plate separation 2 um, 10 V bias, jacobi preconditioner, 24 x 24 grid', solver: 'device', inputs: { dim: 2, Ly: 2e-6, V: 10, precond: 'jacobi', nx: 24, ny: 24 } },
  // dock
  { q: 'docking pose search with 5 restarts and 30 basin-hopping steps', solver: 'dock', inputs: { restarts: 5, iters: 30 } },
  { q: 'binding energy of the built-in test ligand with 8 random starts', solver: 'dock', inputs: { restarts: 8 } },
  { q: 'rigid ligand docking into the receptor pocket using 4 restarts of 40 iterations, seed 7', solver: 'dock', inputs: { restarts: 4, iters: 40, seed: 7 } },
  { q: 'protein ligand docking score from 3 starts', solver: 'dock', inputs: { restarts: 3 } },
  { q: 'multi-start molecular docking, 6 restarts, 30 hops', solver: 'dock', inputs: { restarts: 6, iters: 30 } },
  // epi
  { q: 'SIR epidemic with beta 0.5, gamma 0.2, population 50,000 and 10 initially infected', solver: 'epi', inputs: { model: 'sir', beta: 0.5, gamma: 0.2, N: 50000, I0: 10 } },
  { q: 'SEIR outbreak with R0 of 3, infectious period 7 days, latent period 4 days, in a city of 2 million', solver: 'epi', inputs: { model: 'seir', gamma: 1 / 7, beta: 3 * (1 / 7), sigma: 1 / 4, N: 2e6 } },
  { q: 'flu epidemic in a town of 20000 people starting from 5 cases, transmission rate 0.35 per day, recovery rate 0.15 per day, 150 days', solver: 'epi', inputs: { N: 20000, I0: 5, beta: 0.35, gamma: 0.15, days: 150 } },
  { q: 'when does the outbreak peak if the reproduction number is 1.8 and the recovery time is 10 days', solver: 'epi', inputs: { beta: 1.8 * (1 / 10), gamma: 1 / 10 } },
  { q: 'susceptible-exposed-infected-recovered epidemic, incubation rate 0.25, beta 0.6, gamma 0.2', solver: 'epi', inputs: { model: 'seir', sigma: 0.25, beta: 0.6, gamma: 0.2 } },
  { q: 'final size of an SIR epidemic with a 30% daily infection rate over 2 years', solver: 'epi', inputs: { model: 'sir', beta: 0.3, days: 730 } },
  // evolve
  { q: 'lennard-jones liquid md with 32 atoms, 200 steps, 50 equilibration steps', solver: 'evolve', inputs: { preset: 'lj-liquid', N: 32, steps: 200, equilibrate: 50 } },
  { q: 'velocity verlet NVE run of a dilute LJ gas, 64 particles at temperature 2, 100 steps, equilibration 0', solver: 'evolve', inputs: { preset: 'lj-gas', N: 64, T0: 2, steps: 100, equilibrate: 0 } },
  { q: 'molecular dynamics of an fcc crystal of 108 atoms at density 1.1 and temperature 0.2, 100 steps, equilibrate 20', solver: 'evolve', inputs: { preset: 'crystal', N: 108, rho: 1.1, T0: 0.2, steps: 100, equilibrate: 20 } },
  { q: 'bead-spring polymer molecular dynamics, 40 beads, bond stiffness 50, 100 steps, 20 equilibration steps', solver: 'evolve', inputs: { preset: 'polymer', N: 40, kBond: 50, steps: 100, equilibrate: 20 } },
  { q: 'argon liquid md with cutoff 2.0, time step 0.002, 48 atoms, 150 steps, 30 equilibration steps', solver: 'evolve', inputs: { preset: 'lj-liquid', rc: 2, dtSim: 0.002, N: 48, steps: 150, equilibrate: 30 } },
  { q: 'FENE polymer chain molecular dynamics of 30 beads over 100 steps, equilibration 100', solver: 'evolve', inputs: { preset: 'polymer', bond: 'fene', N: 30, steps: 100, equilibrate: 100 } },
  // fea
  { q: 'cantilever tip deflection with finite elements, 40 x 10 mesh, tip load 2 kN, length 3 m, depth 0.3 m', solver: 'fea', inputs: { nx: 40, ny: 10, P: 2000, Lx: 3, Ly: 0.3 } },
  { q: 'plane stress FEM of an aluminium cantilever 1 m long and 0.1 m deep, 20 x 4 elements, load 500 N', solver: 'fea', inputs: { model: 'plane-stress', E: 69e9, Lx: 1, Ly: 0.1, nx: 20, ny: 4, P: 500 } },
  { q: 'how far does the free end of a steel cantilever beam move under a 10 kN point load, 24 x 6 quadrilateral mesh', solver: 'fea', inputs: { E: 207e9, P: 10000, nx: 24, ny: 6 } },
  { q: 'finite element bending of a cantilever with Young modulus 70 GPa, 32 x 8 mesh, jacobi preconditioner', solver: 'fea', inputs: { E: 7e10, nx: 32, ny: 8, precond: 'jacobi' } },
  { q: 'tip displacement of a cantilever, length 2 m, depth 0.5 m, 16 x 4 elements', solver: 'fea', inputs: { Lx: 2, Ly: 0.5, nx: 16, ny: 4 } },
  // fit
  { q: 'fit y = a*exp(-b*x) to the points (0, 5.1), (1, 3.0), (2, 1.9), (3, 1.2), (4, 0.7) from a = 5, b = 0.5', solver: 'fit', inputs: { model: 'a*exp(-b*x)', data: { x: [0, 1, 2, 3, 4], y: [5.1, 3.0, 1.9, 1.2, 0.7] }, p0: { a: 5, b: 0.5 } } },
  { q: 'least squares: fit the model c*x^k to the data x = [1, 2, 3, 4, 5, 6], y = [2.1, 7.9, 18.2, 31.8, 50.3, 71.9] starting at c = 1, k = 1', solver: 'fit', inputs: { model: 'c*x^k', data: { x: [1, 2, 3, 4, 5, 6], y: [2.1, 7.9, 18.2, 31.8, 50.3, 71.9] }, p0: { c: 1, k: 1 } } },
  { q: 'nonlinear regression: fitting Vm*x/(K + x) to (0.5, 1.2), (1, 2.0), (2, 2.9), (4, 3.6), (8, 4.1), (16, 4.4) with Vm = 4 and K = 1', solver: 'fit', inputs: { model: 'Vm*x/(K + x)', data: { x: [0.5, 1, 2, 4, 8, 16], y: [1.2, 2.0, 2.9, 3.6, 4.1, 4.4] }, p0: { Vm: 4, K: 1 } } },
  { q: 'error bars for a straight line: fit m*x + q to (1, 3.1), (2, 4.9), (3, 7.2), (4, 8.8), (5, 11.1) from m = 1, q = 0', solver: 'fit', inputs: { model: 'm*x + q', data: { x: [1, 2, 3, 4, 5], y: [3.1, 4.9, 7.2, 8.8, 11.1] }, p0: { m: 1, q: 0 } } },
  // flow
  { q: 'how quickly does a taylor-green flow lose its kinetic energy at viscosity 0.02 on a 32 x 32 grid, 20 steps', solver: 'flow', inputs: { visc: 0.02, N: 32, steps: 20 } },
  { q: 'stable fluids simulation, 24 cells per side, 15 steps of 0.05', solver: 'flow', inputs: { N: 24, steps: 15, dt: 0.05 } },
  { q: 'incompressible navier-stokes in a periodic box, kinematic viscosity 0.1 m^2/s, resolution 40, 10 steps', solver: 'flow', inputs: { visc: 0.1, N: 40, steps: 10 } },
  { q: 'how fast does a periodic fluid vortex lose energy with nu = 0.01, 16 x 16 grid, 30 steps', solver: 'flow', inputs: { visc: 0.01, N: 16, steps: 30 } },
  { q: 'viscous flow decay with time step 0.01 and 25 steps on a 32 grid', solver: 'flow', inputs: { dt: 0.01, steps: 25, N: 32 } },
  // fracture
  { q: 'peridynamic notched plate pulled to 0.2 % strain with 5 load steps', solver: 'fracture', inputs: { mode: '2d', strain: 0.002, loadSteps: 5 } },
  { q: 'fracture of a bar with 200 nodes stretched to 0.15% strain', solver: 'fracture', inputs: { mode: 'bar', N: 200, strain: 0.0015 } },
  { q: 'mode-I crack growth in a plate with a notch depth of 0.4, 32 x 16 nodes, 4 load steps', solver: 'fracture', inputs: { mode: '2d', notchFrac: 0.4, nx: 32, ny: 16, loadSteps: 4 } },
  { q: 'peridynamic bar with critical stretch 0.002 under strain 0.003, 100 nodes', solver: 'fracture', inputs: { s0: 0.002, mode: 'bar', strain: 0.003, N: 100 } },
  { q: '1-D peridynamic fracture bar, Young modulus 200 GPa, 150 nodes', solver: 'fracture', inputs: { mode: 'bar', E: 2e11, N: 150 } },
  // gauge
  { q: 'U(1) lattice gauge plaquette at beta = 2 on an 8 x 8 lattice with 200 sweeps', solver: 'gauge', inputs: { beta: 2, L: 8, sweeps: 200 } },
  { q: 'compact QED monte carlo, metropolis, L = 6, coupling 1, 300 sweeps, 50 thermalisation sweeps', solver: 'gauge', inputs: { method: 'metropolis', L: 6, beta: 1, sweeps: 300, therm: 50 } },
  { q: 'mean plaquette of 2-D U(1) gauge theory with β = 3.5 on a 10x10 lattice, 150 sweeps', solver: 'gauge', inputs: { beta: 3.5, L: 10, sweeps: 150 } },
  { q: 'heat-bath update of an abelian lattice gauge field, inverse coupling 0.5, lattice side 12, 100 measurement sweeps', solver: 'gauge', inputs: { method: 'heat-bath', beta: 0.5, L: 12, sweeps: 100 } },
  { q: 'lattice QED plaquette at beta 1.2, 8x8, 100 sweeps, seed 11', solver: 'gauge', inputs: { beta: 1.2, L: 8, sweeps: 100, seed: 11 } },
  // grid
  { q: 'angles and branch flows of a 12-bus dc network with 4 chords', solver: 'grid', inputs: { N: 12, chords: 4 } },
  { q: 'line flows in a synthetic 50 bus transmission grid, mean reactance 0.05', solver: 'grid', inputs: { N: 50, reactance: 0.05 } },
  { q: 'most loaded line of a 25-bus dc load flow with seed 3', solver: 'grid', inputs: { N: 25, seed: 3 } },
  { q: 'dc power flow for 8 buses with no extra lines', solver: 'grid', inputs: { N: 8, chords: 0 } },
  { q: 'bus angles of a 100 bus ring network with 30 chords and line reactance 0.2', solver: 'grid', inputs: { N: 100, chords: 30, reactance: 0.2 } },
  // heat
  { q: 'heat equation in a rod, crank-nicolson, 32 intervals, 200 steps', solver: 'heat', inputs: { dim: 1, method: 'implicit', nx: 32, steps: 200 } },
  { q: 'explicit FTCS heat diffusion on a unit square, 16 x 16 grid, 100 steps of 1e-4', solver: 'heat', inputs: { method: 'explicit', dim: 2, nx: 16, ny: 16, steps: 100, dt: 1e-4 } },
  { q: 'cooling of the third sine mode in a 1-D bar with diffusivity 0.1, 300 steps', solver: 'heat', inputs: { mode: 3, dim: 1, alpha: 0.1, steps: 300 } },
  { q: 'ADI heat diffusion on a 2-D plate with kx = 2, ky = 1, 24 x 24 grid, 50 steps', solver: 'heat', inputs: { method: 'implicit', dim: 2, kx: 2, ky: 1, nx: 24, ny: 24, steps: 50 } },
  { q: 'thermal diffusion in a wire, time step 2e-5 s, 500 steps, 48 intervals', solver: 'heat', inputs: { dim: 1, dt: 2e-5, steps: 500, nx: 48 } },
  { q: 'temperature of a hot mode in a square plate with thermal diffusivity 2 m^2/s, dt 1e-5, 100 steps, 20x20', solver: 'heat', inputs: { dim: 2, alpha: 2, dt: 1e-5, steps: 100, nx: 20, ny: 20 } },
  // kalman
  { q: 'kalman filter tracking a random walk, process noise 0.5, measurement noise 4, 200 steps', solver: 'kalman', inputs: { F: 1, H: 1, Q: 0.5, R: 4, steps: 200 } },
  { q: 'scalar kalman estimator: transition F = 0.9, observation H = 1, process noise Q = 1, measurement noise R = 2', solver: 'kalman', inputs: { H: 1, F: 0.9, Q: 1, R: 2 } },
  { q: 'kalman state estimation of a constant-velocity target over 300 steps with seed 5', solver: 'kalman', inputs: { steps: 300, seed: 5 } },
  { q: 'kalman filtering of a noisy random walk with sensor noise variance 9 and process variance 0.1', solver: 'kalman', inputs: { F: 1, H: 1, R: 9, Q: 0.1 } },
  { q: 'riccati steady state covariance of a kalman tracker, 1000 filter steps', solver: 'kalman', inputs: { steps: 1000 } },
  // lorenz
  { q: 'largest lyapunov exponent of the lorenz system with rho = 28, 20000 steps', solver: 'lorenz', inputs: { rho: 28, steps: 20000 } },
  { q: 'lorenz attractor with σ = 16, ρ = 45.92, β = 4, dt 0.005, 10000 steps', solver: 'lorenz', inputs: { sigma: 16, rho: 45.92, beta: 4, dt: 0.005, steps: 10000 } },
  { q: 'chaotic lorenz butterfly at rayleigh number 35 and prandtl number 12, 5000 steps', solver: 'lorenz', inputs: { rho: 35, sigma: 12, steps: 5000 } },
  { q: 'phase volume contraction of lorenz with beta = 8/3 and sigma 10, 8000 steps', solver: 'lorenz', inputs: { beta: 8 / 3, sigma: 10, steps: 8000 } },
  { q: 'twin lorenz trajectories with initial separation 1e-9, 6000 steps', solver: 'lorenz', inputs: { delta: 1e-9, steps: 6000 } },
  // lotka
  { q: 'volterra system starting from 30 prey and 4 predators, prey growth rate 1.2 and predation rate 0.5', solver: 'lotka', inputs: { alpha: 1.2, beta: 0.5, x0: 30, y0: 4 } },
  { q: 'foxes and rabbits: 20 rabbits, 5 foxes, final time 30, symplectic', solver: 'lotka', inputs: { x0: 20, y0: 5, tMax: 30, method: 'symplectic' } },
  { q: 'predator-prey invariant drift with dt 0.005 over 40 time units', solver: 'lotka', inputs: { dt: 0.005, tMax: 40 } },
  { q: 'wolves and deer cycles with alpha = 0.8, beta = 0.3, gamma = 0.6, delta = 0.2', solver: 'lotka', inputs: { alpha: 0.8, beta: 0.3, gamma: 0.6, delta: 0.2 } },
  { q: 'population cycles of hares and lynx, predator death rate 0.5, rk4, 60 time units', solver: 'lotka', inputs: { gamma: 0.5, method: 'rk4', tMax: 60 } },
  // ode
  { q: "integrate y' = -0.5*y with y(0) = 2 from t = 0 to 4", solver: 'ode', inputs: { equations: { y: '-0.5*y' }, y0: { y: 2 }, tSpan: [0, 4] } },
  { q: "solve the initial value problem x' = v, v' = -x with x(0) = 1, v(0) = 0 until t = 6", solver: 'ode', inputs: { equations: { x: 'v', v: '-x' }, y0: { x: 1, v: 0 }, tSpan: [0, 6] } },
  { q: 'ode dP/dt = r*P*(1 - P/K) with r = 0.8, K = 100, P(0) = 5, from t = 0 to 20', solver: 'ode', inputs: { equations: { P: 'r*P*(1 - P/K)' }, params: { r: 0.8, K: 100 }, y0: { P: 5 }, tSpan: [0, 20] } },
  { q: "stiff equation u' = -1000*(u - cos(t)) with u(0) = 0 to t = 1 using Radau", solver: 'ode', inputs: { equations: { u: '-1000*(u - cos(t))' }, y0: { u: 0 }, tSpan: [0, 1], method: 'Radau' } },
  { q: "damped oscillator x' = v, v' = -x - 0.2*v, x(0) = 1, v(0) = 0, t from 0 to 10 with DOP853", solver: 'ode', inputs: { equations: { x: 'v', v: '-x - 0.2*v' }, y0: { x: 1, v: 0 }, tSpan: [0, 10], method: 'DOP853' } },
  { q: 'differential equation dN/dt = -k*N, k = 0.3, N(0) = 1000, until t = 5, relative tolerance 1e-8', solver: 'ode', inputs: { equations: { N: '-k*N' }, params: { k: 0.3 }, y0: { N: 1000 }, tSpan: [0, 5], rtol: 1e-8 } },
  // opt
  { q: 'nelder-mead search for the rosenbrock valley floor in 3 dimensions', solver: 'opt', inputs: { fn: 'rosenbrock', dim: 3, method: 'nelder-mead' } },
  { q: 'minimise the sphere function in 3-D from a random start, seed 4', solver: 'opt', inputs: { fn: 'sphere', dim: 3, seed: 4 } },
  { q: 'optimise the beale function by gradient descent, 5000 iterations', solver: 'opt', inputs: { fn: 'beale', method: 'gradient', maxIter: 5000 } },
  { q: 'minimize (x - 3)^2 + (y + 1)^2 from x = 0, y = 0', solver: 'opt', inputs: { objective: '(x - 3)^2 + (y + 1)^2', x0: { x: 0, y: 0 } } },
  { q: 'minimise x^2 + 2*y^2 - x*y starting at (1, 1) with L-BFGS-B subject to x >= 0.5', solver: 'opt', inputs: { objective: 'x^2 + 2*y^2 - x*y', x0: { x: 1, y: 1 }, method: 'l-bfgs-b', bounds: { x: [0.5, null] } } },
  { q: 'optimization of the sphere function in 8 dimensions, start value 2, 3000 iterations', solver: 'opt', inputs: { fn: 'sphere', dim: 8, start: 2, maxIter: 3000 } },
  // protect
  { q: 'guard state for an endpoint returning 503 at unix time 1700000000', solver: 'protect', inputs: { status: 503, t: 1700000000 } },
  { q: 'protection guard power when the health signal is down, timestamp 1750000000', solver: 'protect', inputs: { health: 'down', t: 1750000000 } },
  { q: 'liveness 0.35 guard power at unix time 1600000000 with phase 0.5', solver: 'protect', inputs: { liveness: 0.35, t: 1600000000, phase: 0.5 } },
  { q: 'uptime check of my api, status 200 at unix time 1690000000', solver: 'protect', inputs: { status: 200, t: 1690000000 } },
  { q: 'service degraded, guard power at timestamp 1710000000', solver: 'protect', inputs: { health: 'slow', t: 1710000000 } },
  // quant
  { q: 'value of a european call with strike 95, spot 100, volatility 30 %, 6 months to expiry, 20000 paths', solver: 'quant', inputs: { type: 'call', K: 95, S0: 100, sigma: 0.3, T: 0.5, paths: 20000 } },
  { q: 'put premium, stock at 50, strike 55, risk-free rate 2%, vol 40%, maturity 2 years, 10000 paths', solver: 'quant', inputs: { type: 'put', S0: 50, K: 55, r: 0.02, sigma: 0.4, T: 2, paths: 10000 } },
  { q: 'black-scholes monte carlo delta of an at-the-money call with spot 120 and 50000 paths', solver: 'quant', inputs: { type: 'call', S0: 120, K: 120, paths: 50000 } },
  { q: 'what is a 3 month put struck at 90 worth if the stock trades at 100 with 20 % volatility', solver: 'quant', inputs: { T: 0.25, type: 'put', K: 90, S0: 100, sigma: 0.2 } },
  { q: 'option pricing by simulation: call, S0 = 80, K = 85, r = 0.01, sigma = 0.15, T = 0.75, 40000 paths', solver: 'quant', inputs: { type: 'call', S0: 80, K: 85, r: 0.01, sigma: 0.15, T: 0.75, paths: 40000 } },
  { q: 'fair value of puts on an index level of 4000 with strike 3800, one year, implied vol 18%', solver: 'quant', inputs: { type: 'put', S0: 4000, K: 3800, T: 1, sigma: 0.18 } },
  { q: 'call option with 90 days to expiry, strike 102, spot 100', solver: 'quant', inputs: { type: 'call', T: 90 / 365, K: 102, S0: 100 } },
  // react
  { q: 'gray-scott spots with feed rate 0.03 and kill rate 0.062 on a 48 x 48 grid, 200 steps', solver: 'react', inputs: { model: 'gray-scott', F: 0.03, k: 0.062, N: 48, steps: 200 } },
  { q: 'fitzhugh-nagumo excitable medium, 32 x 32, 300 steps, stimulus current 0.5', solver: 'react', inputs: { model: 'fitzhugh-nagumo', N: 32, steps: 300, I: 0.5 } },
  { q: 'turing pattern from reaction-diffusion, F = 0.055, k = 0.062, 40x40, 150 steps', solver: 'react', inputs: { F: 0.055, k: 0.062, N: 40, steps: 150 } },
  { q: 'gray scott system, Du = 2e-5, Dv = 1e-5, 32 cells per side, 100 steps', solver: 'react', inputs: { model: 'gray-scott', Du: 2e-5, Dv: 1e-5, N: 32, steps: 100 } },
  { q: 'fhn reaction-diffusion model with a = 0.75, b = 0.8, epsilon = 0.1 on a 24 x 24 grid for 200 steps', solver: 'react', inputs: { model: 'fitzhugh-nagumo', a: 0.75, b: 0.8, epsilon: 0.1, N: 24, steps: 200 } },
  // linsolve (issue 31): without a matrix, the documented example is solved
  { q: 'solve the linear system', solver: 'linsolve', inputs: {} },
  { q: 'sparse linear equations A x = b with gmres', solver: 'linsolve', inputs: { method: 'gmres' } },
  { q: 'backward error and condition estimate of a sparse direct solve', solver: 'linsolve', inputs: {} },
  { q: 'bicgstab on a sparse system of linear equations', solver: 'linsolve', inputs: { method: 'bicgstab' } },
  // sat
  { q: 'random 3-SAT with 40 variables at clause ratio 4.26', solver: 'sat', inputs: { n: 40, alpha: 4.26 } },
  { q: 'can a random boolean formula over 30 variables with 120 clauses be satisfied', solver: 'sat', inputs: { n: 30, m: 120 } },
  { q: 'dpll on a random cnf, 60 variables, ratio 3.5, seed 9', solver: 'sat', inputs: { method: 'dpll', n: 60, alpha: 3.5, seed: 9 } },
  { q: 'boolean satisfiability of a random 3-cnf with 25 vars and alpha = 5', solver: 'sat', inputs: { n: 25, alpha: 5 } },
  { q: 'satisfiability check of 200 random clauses over 50 boolean variables', solver: 'sat', inputs: { m: 200, n: 50 } },
  { q: 'is this formula satisfiable: p cnf 3 4 1 2 0 -1 2 0 1 -2 0 -1 -3 0', solver: 'sat', inputs: { cnf: 'p cnf 3 4\n1 2 0 -1 2 0 1 -2 0 -1 -3 0\n' } },
  // schrodinger
  // issue 29: an ordinal level and its number in parentheses agree
  { q: 'energy of the fourth level (n 3) of the quantum harmonic oscillator', solver: 'schrodinger', inputs: { potential: 'harmonic', n: 3 } },
  { q: 'ground state energy of a quantum particle in a box of width 2', solver: 'schrodinger', inputs: { n: 0, potential: 'box', L: 2 } },
  { q: 'second excited state of a quantum harmonic oscillator potential, 3000 grid nodes', solver: 'schrodinger', inputs: { n: 2, potential: 'harmonic', N: 3000 } },
  { q: 'third energy level of a finite square well of depth 25 and width 2', solver: 'schrodinger', inputs: { n: 2, potential: 'finite-well', V0: 25, L: 2 } },
  { q: 'quantum particle in an infinite square well, level n = 4', solver: 'schrodinger', inputs: { potential: 'box', n: 4 } },
  { q: 'lowest energy eigenvalue of a parabolic potential with 1000 nodes', solver: 'schrodinger', inputs: { n: 0, potential: 'harmonic', N: 1000 } },
  { q: 'energy of level n = 1 in a finite potential well of depth 8 and width 1.5', solver: 'schrodinger', inputs: { n: 1, potential: 'finite-well', V0: 8, L: 1.5 } },
  // solve
  { q: 'drop a 3 kg ball on the moon from 50 m for 4 s', solver: 'solve', inputs: { mass: 3, location: 'moon', position: 50, tMax: 4 } },
  { q: 'free fall of a 0.5 kg object in water for 2 s', solver: 'solve', inputs: { referenceMode: 'free-fall', mass: 0.5, medium: 'water', tMax: 2 } },
  { q: 'skydiver of mass 80 kg falling through air on earth for 5 s', solver: 'solve', inputs: { mass: 80, medium: 'air', location: 'earth', tMax: 5 } },
  { q: 'small-angle pendulum trajectory on jupiter for 3 s', solver: 'solve', inputs: { referenceMode: 'shm', location: 'jupiter', tMax: 3 } },
  { q: 'a 1 kg mass dropped in vacuum on mars, duration 2 s, time step 0.005 s', solver: 'solve', inputs: { mass: 1, medium: 'vacuum', location: 'mars', tMax: 2, dt: 0.005 } },
  // tumor
  { q: 'fisher-kpp tumour front with diffusivity 0.2 and growth rate 1.5 for 30 s', solver: 'tumor', inputs: { D: 0.2, r: 1.5, tMax: 30 } },
  { q: 'invasion speed of a logistic growth front, D = 1, r = 2, domain length 100 m, 500 nodes', solver: 'tumor', inputs: { D: 1, r: 2, L: 100, N: 500 } },
  { q: 'cancer spreading front, motility 0.05 m^2/s, proliferation rate 2 1/s, 40 s', solver: 'tumor', inputs: { D: 0.05, r: 2, tMax: 40 } },
  { q: 'travelling wave of the fisher equation with 1000 grid nodes and simulated time 80 s', solver: 'tumor', inputs: { N: 1000, tMax: 80 } },
  { q: 'how fast does an invasive tumor spread with diffusion 0.1 and growth rate 1, domain 150 m', solver: 'tumor', inputs: { D: 0.1, r: 1, L: 150 } },
  // wave
  { q: 'vibrating membrane on a 32 x 32 grid, 200 steps, courant 0.7', solver: 'wave', inputs: { mode: 'membrane', nx: 32, ny: 32, steps: 200, courant: 0.7 } },
  { q: 'leapfrog wave on a plucked string, second mode, 48 intervals, 300 steps', solver: 'wave', inputs: { mode: 'wave1d', mode_k: 2, nx: 48, steps: 300 } },
  { q: '2-D TE cavity with the yee scheme, 24 x 24, 150 steps, permittivity 2', solver: 'wave', inputs: { mode: 'maxwell', nx: 24, ny: 24, steps: 150, eps: 2 } },
  { q: 'drum mode kx = 2, ky = 3 on a 40 x 40 grid, wave speed 2 m/s, 250 steps', solver: 'wave', inputs: { mode: 'membrane', kx: 2, ky: 3, nx: 40, ny: 40, c: 2, steps: 250 } },
  { q: 'energy of a 1-D string wave with speed 3 and 64 intervals over 400 steps', solver: 'wave', inputs: { mode: 'wave1d', c: 3, nx: 64, steps: 400 } },
  { q: 'leapfrog electromagnetic wave in a square cavity, cfl 0.5, 32x32 grid, 100 steps', solver: 'wave', inputs: { mode: 'maxwell', courant: 0.5, nx: 32, ny: 32, steps: 100 } },
  // zeta
  { q: 'tally the critical-line zeros of riemann zeta with imaginary part up to 600', solver: 'zeta', inputs: { T: 600 } },
  { q: 'does the zero count of zeta below height 250 agree with theory', solver: 'zeta', inputs: { T: 250 } },
  { q: 'riemann hypothesis check: zeros with imaginary part less than 1200', solver: 'zeta', inputs: { T: 1200 } },
  { q: 'zeta zero count up to T = 80 with scan step 0.5', solver: 'zeta', inputs: { T: 80, dt: 0.5 } },
  { q: 'gram points and sign changes of hardy Z below t = 150', solver: 'zeta', inputs: { T: 150 } },
];

/** Requests that name something the chosen solver cannot take: each is a 400 with this reason. */
export const REFUSALS: Refusal[] = [
  { q: 'price a put with barrier 120', reason: 'UNSUPPORTED_OPTION', solver: 'quant' },
  { q: 'price a european put with a ceiling of 120, strike 100', reason: 'UNMAPPED_QUANTITY', solver: 'quant' },
  { q: 'value an American put option, strike 100, spot 90', reason: 'UNSUPPORTED_OPTION', solver: 'quant' },
  { q: 'black scholes call price with a dividend yield of 2 %', reason: 'UNSUPPORTED_OPTION', solver: 'quant' },
  { q: 'price a call option with a binomial tree', reason: 'UNSUPPORTED_OPTION', solver: 'quant' },
  { q: 'call option with strike 100 and strike 110', reason: 'CONFLICTING_VALUES', solver: 'quant' },
  { q: 'is this CNF formula satisfiable', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'sat' },
  { q: 'random 5-SAT instance over 40 variables, decide it', reason: 'UNSUPPORTED_OPTION', solver: 'sat' },
  { q: 'AC power flow with voltage magnitudes on a 30 bus network', reason: 'UNSUPPORTED_OPTION', solver: 'grid' },
  { q: 'run a dc load flow on my own transmission network', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'grid' },
  { q: 'gravitational n-body orbits of three stars', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'multibody' },
  { q: 'what are the shadow prices of the blending constraints in my refinery LP', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'lp' },
  { q: 'schedule nurses to shifts as an integer programming model', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'lp' },
  { q: 'mixed integer linear programming with an LP file', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'lp' },
  { q: 'integrate my system of coupled ordinary differential equations with an implicit BDF method', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'ode' },
  { q: 'energy levels of the hydrogen atom from the schrodinger equation', reason: 'UNSUPPORTED_OPTION', solver: 'schrodinger' },
  { q: 'SU(3) lattice gauge theory plaquette at beta 6', reason: 'UNSUPPORTED_OPTION', solver: 'gauge' },
  { q: 'three-dimensional heat diffusion in a cube with FTCS', reason: 'UNSUPPORTED_OPTION', solver: 'heat' },
  { q: 'list the first 100 nontrivial zeta zeros', reason: 'UNSUPPORTED_OPTION', solver: 'zeta' },
  { q: 'lotka volterra predator prey model with carrying capacity 500', reason: 'UNMAPPED_QUANTITY', solver: 'lotka' },
  { q: 'lorenz attractor lyapunov exponent with a forward euler integrator', reason: 'UNSUPPORTED_OPTION', solver: 'lorenz' },
  { q: 'dock my inhibitor molecule into the kinase pocket', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'dock' },
  { q: 'SIR epidemic with a vaccination rate of 1 % per day', reason: 'UNMAPPED_QUANTITY', solver: 'epi' },
  { q: 'molecular dynamics of my xyz configuration', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'evolve' },
  { q: 'heat equation in a 2 m long rod with crank-nicolson', reason: 'UNMAPPED_QUANTITY', solver: 'heat' },
  { q: 'how does a gaussian temperature bump diffuse in a rod with insulated ends', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'heat' },
  { q: 'minimize my own cost function with BFGS', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'opt' },
  { q: 'Poisson on this mesh', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'fea' },
  { q: 'factor my own sparse matrix and give x', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'linsolve' },
  { q: 'kalman filter covariance for my tracking system', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'kalman' },
  { q: 'fit a saturating exponential to my lab measurements and give error bars on the rate', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'fit' },
  { q: 'nonlinear least squares regression of a power law to these data', reason: 'NEEDS_STRUCTURED_INPUT', solver: 'fit' },
  // the words score lorenz first ("initial condition"), but the request names heat: refused, not answered by lorenz
  { q: 'heat equation with initial condition x*(1-x)', reason: 'AMBIGUOUS_SOLVER' },
];
