// svc_lattice: 2 to 5 nodes sampled at one shared instant t at staggered phases,
// node k at phi + 2 pi k / n (phi the clock phase at t). Each node has
//   R_k = S_k (1 + alpha sin(phi + 2 pi k / n)), S_k = 1 (normalised chain weights),
// and, when it names a domain and gives inputs, the value of that domain's default operator
// (evaluated through the dimensional gate).
//
// coherenceScore (docs/operators.md): the mean pairwise agreement of the node modulations,
//   C = 1 - (2 / (n (n - 1))) sum_{i<j} |R_i - R_j| / (|R_i| + |R_j|)
// (a pair of zeros counts as agreeing). Each term lies in [0, 1], so C does; C = 1 exactly
// when all R_k are equal; C is symmetric: it does not change when nodes are relabelled
// (it is a sum over unordered pairs). For the stagger itself, sum_k sin(phi + 2 pi k / n) = 0
// for n >= 2, so sum_k R_k = sum_k S_k: the lattice sum is phase-independent.
import { ALPHA, pulseAt } from '../core/clock.ts';
import { SvcError } from '../core/errors.ts';
import { evaluateWithUnits, getOperator, resolveDomain } from './catalog.ts';
import { bindInputs } from './gate.ts';

export const MIN_NODES = 2;
export const MAX_NODES = 5;

export interface LatticeNodeRequest { domain?: string; inputs?: Record<string, unknown> }

export interface LatticeNode {
  index: number;
  domain: string | null;
  operator: string | null;
  phase: number;
  phaseOffset: number;
  R_t: number;
  S: number;
  value: number | null;
  unit: string | null;
}

export interface LatticeOutcome {
  t: number;
  phase: number;
  svcond: number;
  nodes: LatticeNode[];
  coherenceScore: number;
  latticeSum: number;
  latticeEquation: string;
  chain: string[];
  precision: { errorPct: number; boundPct: number; reference: string; withinBound: boolean };
}

/** Mean pairwise agreement of the modulations, in [0, 1]; symmetric under relabelling. */
export function coherenceScore(R: number[]): number {
  const n = R.length;
  if (n < 2) return 1;
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const den = Math.abs(R[i]) + Math.abs(R[j]);
      sum += den === 0 ? 0 : Math.abs(R[i] - R[j]) / den;
      pairs++;
    }
  }
  const c = 1 - sum / pairs;
  return Math.min(1, Math.max(0, c));
}

export function runLattice(nodes: LatticeNodeRequest[], t: number): LatticeOutcome {
  const n = nodes.length;
  if (n < MIN_NODES || n > MAX_NODES) throw new SvcError('INVALID_INPUT', `a lattice has ${MIN_NODES} to ${MAX_NODES} nodes (${n} given)`, { issues: [{ path: 'nodes', message: `${MIN_NODES} to ${MAX_NODES} nodes` }] });
  const base = pulseAt(t, 1);
  const out: LatticeNode[] = [];
  const chain = new Set<string>(['KO42']);
  nodes.forEach((req, k) => {
    const offset = (2 * Math.PI * k) / n;
    const p = pulseAt(t, 1, offset);
    let domain: string | null = null;
    let operator: string | null = null;
    let value: number | null = null;
    let unit: string | null = null;
    if (req.domain !== undefined && req.domain !== '') {
      const d = resolveDomain(req.domain);
      if (!d) throw new SvcError('INVALID_INPUT', `nodes[${k}]: unknown domain '${req.domain}'`, { issues: [{ path: `nodes.${k}.domain`, message: 'not a catalogued domain' }] });
      domain = d.name;
      operator = d.defaultOperator;
      chain.add(operator);
    }
    const inputs = req.inputs ?? {};
    if (Object.keys(inputs).length) {
      if (!operator) throw new SvcError('DIMENSIONAL_GATE', `nodes[${k}]: inputs need a domain whose default operator reads them`, { details: { value: null, keys: Object.keys(inputs) } });
      const def = getOperator(operator)!;
      let bound: Record<string, number>;
      try {
        bound = bindInputs([def], inputs)[def.id];
      } catch (e) {
        if (e instanceof SvcError) throw new SvcError(e.code, `nodes[${k}]: ${e.message}`, { issues: e.issues?.map((i) => ({ ...i, path: `nodes.${k}.${i.path}` })), details: e.details });
        throw e;
      }
      value = evaluateWithUnits(def, bound);
      unit = def.output.unit;
    }
    out.push({ index: k, domain, operator, phase: p.phase, phaseOffset: offset, R_t: p.R_t, S: 1, value, unit });
  });
  const R = out.map((x) => x.R_t);
  const latticeSum = R.reduce((a, b) => a + b, 0);
  const latticeEquation = `R_lattice(t) = sum_{k=0}^{${n - 1}} S_k [1 + ${ALPHA} sin(${base.phase.toFixed(6)} + 2 pi k / ${n})] = ${latticeSum}`;
  // independent check: the staggered sines cancel, so the lattice sum equals the weight sum
  const weightSum = out.reduce((a, x) => a + x.S, 0);
  const errorPct = (Math.abs(latticeSum - weightSum) / weightSum) * 100;
  const precision = { errorPct, boundPct: 0.1, reference: 'sum_k R_k = sum_k S_k (staggered phases cancel)', withinBound: errorPct <= 0.1 };
  return { t, phase: base.phase, svcond: base.svcond, nodes: out, coherenceScore: coherenceScore(R), latticeSum, latticeEquation, chain: [...chain], precision };
}
