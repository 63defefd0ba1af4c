// The NIST StRD nonlinear regression datasets (test/fixtures/strd/, provenance in its README):
// a reader of the .dat files (starting values, certified values, data) and each model written in
// the sandboxed expression language. Shared by test/solvers/fit-strd.test.ts and bench/fit.bench.ts.
import { readFileSync } from 'node:fs';

export interface StrdProblem {
  name: string;
  model: string;
  /** the response transform NIST states (Nelson fits log(y)) */
  logResponse?: boolean;
  params: string[];
  start1: number[];
  start2: number[];
  certified: number[];
  certifiedSd: number[];
  certifiedRss: number;
  /** predictor columns by name (x, or x1, x2 for Nelson) */
  x: Record<string, number[]>;
  y: number[];
  difficulty: 'lower' | 'average' | 'higher';
}

const GAUSS = 'b1*exp(-b2*x) + b3*exp(-(x-b4)^2/b5^2) + b6*exp(-(x-b7)^2/b8^2)';
const LANCZOS = 'b1*exp(-b2*x) + b3*exp(-b4*x) + b5*exp(-b6*x)';
const RAT_CUBIC = '(b1 + b2*x + b3*x^2 + b4*x^3)/(1 + b5*x + b6*x^2 + b7*x^3)';

/** name → [model, difficulty] (the models as NIST states them) */
export const STRD_MODELS: Record<string, [string, StrdProblem['difficulty']]> = {
  Misra1a: ['b1*(1-exp(-b2*x))', 'lower'],
  Chwirut2: ['exp(-b1*x)/(b2+b3*x)', 'lower'],
  Chwirut1: ['exp(-b1*x)/(b2+b3*x)', 'lower'],
  Lanczos3: [LANCZOS, 'lower'],
  Gauss1: [GAUSS, 'lower'],
  Gauss2: [GAUSS, 'lower'],
  DanWood: ['b1*x^b2', 'lower'],
  Misra1b: ['b1*(1-(1+b2*x/2)^(-2))', 'lower'],
  Kirby2: ['(b1 + b2*x + b3*x^2)/(1 + b4*x + b5*x^2)', 'average'],
  Hahn1: [RAT_CUBIC, 'average'],
  Nelson: ['b1 - b2*x1*exp(-b3*x2)', 'average'],
  MGH17: ['b1 + b2*exp(-x*b4) + b3*exp(-x*b5)', 'average'],
  Lanczos1: [LANCZOS, 'average'],
  Lanczos2: [LANCZOS, 'average'],
  Gauss3: [GAUSS, 'average'],
  Misra1c: ['b1*(1-(1+2*b2*x)^(-0.5))', 'average'],
  Misra1d: ['b1*b2*x*((1+b2*x)^(-1))', 'average'],
  Roszman1: ['b1 - b2*x - atan(b3/(x-b4))/pi', 'average'],
  ENSO: ['b1 + b2*cos(2*pi*x/12) + b3*sin(2*pi*x/12) + b5*cos(2*pi*x/b4) + b6*sin(2*pi*x/b4) + b8*cos(2*pi*x/b7) + b9*sin(2*pi*x/b7)', 'average'],
  MGH09: ['b1*(x^2+x*b2) / (x^2+x*b3+b4)', 'higher'],
  Thurber: [RAT_CUBIC, 'higher'],
  BoxBOD: ['b1*(1-exp(-b2*x))', 'higher'],
  Rat42: ['b1 / (1+exp(b2-b3*x))', 'higher'],
  MGH10: ['b1 * exp(b2/(x+b3))', 'higher'],
  Eckerle4: ['(b1/b2) * exp(-0.5*((x-b3)/b2)^2)', 'higher'],
  Rat43: ['b1 / ((1+exp(b2-b3*x))^(1/b4))', 'higher'],
  Bennett5: ['b1 * (b2+x)^(-1/b3)', 'higher'],
};

export const STRD_NAMES = Object.keys(STRD_MODELS);

export function readStrd(name: string): StrdProblem {
  const text = readFileSync(new URL(`../fixtures/strd/${name}.dat`, import.meta.url), 'utf8');
  const lines = text.split(/\r?\n/);
  const params: string[] = [], start1: number[] = [], start2: number[] = [], certified: number[] = [], certifiedSd: number[] = [];
  let rss = NaN, dataAt = -1;
  lines.forEach((l, i) => {
    const m = /^\s*(b\d+)\s*=\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/.exec(l);
    if (m) { params.push(m[1]); start1.push(Number(m[2])); start2.push(Number(m[3])); certified.push(Number(m[4])); certifiedSd.push(Number(m[5])); }
    const r = /^Residual Sum of Squares:\s+(\S+)/.exec(l);
    if (r) rss = Number(r[1]);
    if (/^Data:\s+y\s/.test(l)) dataAt = i;
  });
  if (dataAt < 0 || !params.length) throw new Error(`${name}: not an StRD file`);
  const cols = lines[dataAt].replace(/^Data:/, '').trim().split(/\s+/);
  const table: number[][] = cols.map(() => []);
  for (const l of lines.slice(dataAt + 1)) {
    if (!l.trim()) continue;
    const v = l.trim().split(/\s+/).map(Number);
    if (v.length !== cols.length) throw new Error(`${name}: bad data line '${l}'`);
    v.forEach((x, k) => table[k].push(x));
  }
  const [model, difficulty] = STRD_MODELS[name];
  const x: Record<string, number[]> = {};
  cols.forEach((c, k) => { if (c !== 'y') x[c] = table[k]; });
  const logResponse = name === 'Nelson';
  const y = table[cols.indexOf('y')].map((v) => (logResponse ? Math.log(v) : v));
  return { name, model, ...(logResponse ? { logResponse } : {}), params, start1, start2, certified, certifiedSd, certifiedRss: rss, x, y, difficulty };
}

/** the svc_fit body of a problem from start 1 or 2 */
export function strdBody(p: StrdProblem, start: 1 | 2): { model: string; data: { x: number[] | Record<string, number[]>; y: number[] }; p0: Record<string, number> } {
  const s = start === 1 ? p.start1 : p.start2;
  const xs = Object.keys(p.x);
  return {
    model: p.model,
    data: { x: xs.length === 1 && xs[0] === 'x' ? p.x.x : p.x, y: p.y },
    p0: Object.fromEntries(p.params.map((k, j) => [k, s[j]])),
  };
}

/** the number of leading significant digits on which a and b agree (LRE, McCullough 1998) */
export function lre(value: number, ref: number): number {
  if (value === ref) return 15;
  const rel = ref === 0 ? Math.abs(value) : Math.abs(value - ref) / Math.abs(ref);
  return Math.min(15, -Math.log10(rel));
}
