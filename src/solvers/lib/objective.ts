// A user's scalar objective f(x) in named variables, with its gradient.
//
// The expression goes through the sandboxed evaluator (src/core/sandbox.ts, compileSafe: whitelisted
// mathjs, 4,096 characters, 4,000 nodes); its checked syntax tree is then compiled to a tape
// (a topologically ordered list of elementary operations) that is evaluated forward for f and swept
// backward for ∇f: reverse-mode automatic differentiation (Griewank & Walther, "Evaluating
// Derivatives", 2nd ed., SIAM 2008, §3.2), exact to rounding, at a cost of a few evaluations of f
// whatever the number of variables. Expressions using a construct without a derivative rule
// (floor, mod, conditionals, comparisons, erf, gamma …) are evaluated by the sandbox itself and
// marked `differentiable: false`; the caller then uses central differences.
//
// INTERIM: src/solvers/lib/expr.ts (compileSystem, symbolic Jacobians) is being written for every
// solver that takes expressions; when it lands on main this module becomes a thin wrapper over
// compileSystem([objective], vars).evaluate / .jacobian and the tape below goes.
import { compileSafe, ALLOWED_CONSTANTS, type SafeExpression } from '../../core/sandbox.ts';
import { refuse } from '../../core/errors.ts';

export interface CompiledObjective {
  vars: string[];
  /** false when the expression uses a function without a derivative rule */
  differentiable: boolean;
  /** f(x); NaN where f is undefined (a complex or non-numeric result) */
  f(x: ArrayLike<number>): number;
  /** ∇f(x) into g; throws when !differentiable */
  grad(x: ArrayLike<number>, g: Float64Array): void;
  /** AST node count (the sandbox's measure) */
  nodes: number;
}

export const MAX_OBJECTIVE_LENGTH = 4096;
export const MAX_OBJECTIVE_NODES = 4000;

// tape opcodes
const CONST = 0;
const VAR = 1;
const ADD = 2;
const SUB = 3;
const MUL = 4;
const DIV = 5;
const NEG = 6;
const POW = 7;
const POWC = 8;
const SQRT = 9;
const CBRT = 10;
const EXP = 11;
const EXPM1 = 12;
const LOG = 13;
const LOG1P = 14;
const LOG2 = 15;
const LOG10 = 16;
const SIN = 17;
const COS = 18;
const TAN = 19;
const SEC = 20;
const CSC = 21;
const COT = 22;
const ASIN = 23;
const ACOS = 24;
const ATAN = 25;
const SINH = 26;
const COSH = 27;
const TANH = 28;
const ASINH = 29;
const ACOSH = 30;
const ATANH = 31;
const ABS = 32;
const ATAN2 = 33;
const HYPOT = 34;
const MIN = 35;
const MAX = 36;

const UNARY: Record<string, number> = {
  sqrt: SQRT, cbrt: CBRT, exp: EXP, expm1: EXPM1, log1p: LOG1P, log2: LOG2, log10: LOG10,
  sin: SIN, cos: COS, tan: TAN, sec: SEC, csc: CSC, cot: COT, asin: ASIN, acos: ACOS, atan: ATAN,
  sinh: SINH, cosh: COSH, tanh: TANH, asinh: ASINH, acosh: ACOSH, atanh: ATANH, abs: ABS,
};
const BINARY_OPERATOR: Record<string, number> = { add: ADD, subtract: SUB, multiply: MUL, divide: DIV, pow: POW, dotMultiply: MUL, dotDivide: DIV, dotPow: POW };
/** n-ary functions folded left over their arguments */
const FOLD: Record<string, number> = { sum: ADD, prod: MUL, min: MIN, max: MAX, hypot: HYPOT };

class Unsupported extends Error {}

interface Tape { op: Uint8Array; a: Int32Array; b: Int32Array; c: Float64Array; length: number }

function buildTape(root: any, varIndex: Map<string, number>): Tape {
  const op: number[] = [], a: number[] = [], b: number[] = [], c: number[] = [];
  const push = (o: number, x = -1, y = -1, k = 0) => { op.push(o); a.push(x); b.push(y); c.push(k); return op.length - 1; };
  const walk = (n: any): number => {
    switch (n.type) {
      case 'ParenthesisNode': return walk(n.content);
      case 'ConstantNode':
        if (typeof n.value !== 'number') throw new Unsupported();
        return push(CONST, -1, -1, n.value);
      case 'SymbolNode': {
        const i = varIndex.get(n.name);
        if (i !== undefined) return push(VAR, i);
        const k = ALLOWED_CONSTANTS[n.name];
        if (typeof k === 'number') return push(CONST, -1, -1, k);
        throw new Unsupported();
      }
      case 'OperatorNode': {
        if (n.fn === 'unaryPlus') return walk(n.args[0]);
        if (n.fn === 'unaryMinus') return push(NEG, walk(n.args[0]));
        const o = BINARY_OPERATOR[n.fn];
        if (o === undefined || n.args.length !== 2) throw new Unsupported();
        const x = walk(n.args[0]), y = walk(n.args[1]);
        if (o === POW && op[y] === CONST) return push(POWC, x, y, c[y]);
        return push(o, x, y);
      }
      case 'FunctionNode': {
        const name = n.fn.name as string, args = n.args as any[];
        if (name === 'log' && args.length === 2) return push(DIV, push(LOG, walk(args[0])), push(LOG, walk(args[1])));
        if (name === 'log' && args.length === 1) return push(LOG, walk(args[0]));
        if (name in UNARY && args.length === 1) return push(UNARY[name], walk(args[0]));
        if (name === 'pow' && args.length === 2) {
          const x = walk(args[0]), y = walk(args[1]);
          return op[y] === CONST ? push(POWC, x, y, c[y]) : push(POW, x, y);
        }
        if (name === 'atan2' && args.length === 2) return push(ATAN2, walk(args[0]), walk(args[1]));
        if (name === 'hypot' && args.length === 1) return push(ABS, walk(args[0]));
        if (name in FOLD && args.length >= 1 && !args.some((q) => q.type === 'ArrayNode' || q.type === 'RangeNode')) {
          let acc = walk(args[0]);
          for (let i = 1; i < args.length; i++) acc = push(FOLD[name], acc, walk(args[i]));
          return acc;
        }
        if (name === 'mean' && args.length >= 1 && !args.some((q) => q.type === 'ArrayNode' || q.type === 'RangeNode')) {
          let acc = walk(args[0]);
          for (let i = 1; i < args.length; i++) acc = push(ADD, acc, walk(args[i]));
          return push(DIV, acc, push(CONST, -1, -1, args.length));
        }
        throw new Unsupported();
      }
      default: throw new Unsupported();
    }
  };
  walk(root);
  return { op: Uint8Array.from(op), a: Int32Array.from(a), b: Int32Array.from(b), c: Float64Array.from(c), length: op.length };
}

function forward(t: Tape, x: ArrayLike<number>, v: Float64Array): number {
  const { op, a, b, c } = t;
  for (let i = 0; i < t.length; i++) {
    const p = v[a[i]], q = v[b[i]];
    switch (op[i]) {
      case CONST: v[i] = c[i]; break;
      case VAR: v[i] = x[a[i]]; break;
      case ADD: v[i] = p + q; break;
      case SUB: v[i] = p - q; break;
      case MUL: v[i] = p * q; break;
      case DIV: v[i] = p / q; break;
      case NEG: v[i] = -p; break;
      case POW: case POWC: v[i] = Math.pow(p, q); break;
      case SQRT: v[i] = Math.sqrt(p); break;
      case CBRT: v[i] = Math.cbrt(p); break;
      case EXP: v[i] = Math.exp(p); break;
      case EXPM1: v[i] = Math.expm1(p); break;
      case LOG: v[i] = Math.log(p); break;
      case LOG1P: v[i] = Math.log1p(p); break;
      case LOG2: v[i] = Math.log2(p); break;
      case LOG10: v[i] = Math.log10(p); break;
      case SIN: v[i] = Math.sin(p); break;
      case COS: v[i] = Math.cos(p); break;
      case TAN: v[i] = Math.tan(p); break;
      case SEC: v[i] = 1 / Math.cos(p); break;
      case CSC: v[i] = 1 / Math.sin(p); break;
      case COT: v[i] = 1 / Math.tan(p); break;
      case ASIN: v[i] = Math.asin(p); break;
      case ACOS: v[i] = Math.acos(p); break;
      case ATAN: v[i] = Math.atan(p); break;
      case SINH: v[i] = Math.sinh(p); break;
      case COSH: v[i] = Math.cosh(p); break;
      case TANH: v[i] = Math.tanh(p); break;
      case ASINH: v[i] = Math.asinh(p); break;
      case ACOSH: v[i] = Math.acosh(p); break;
      case ATANH: v[i] = Math.atanh(p); break;
      case ABS: v[i] = Math.abs(p); break;
      case ATAN2: v[i] = Math.atan2(p, q); break;
      case HYPOT: v[i] = Math.hypot(p, q); break;
      case MIN: v[i] = Math.min(p, q); break;
      case MAX: v[i] = Math.max(p, q); break;
    }
  }
  return v[t.length - 1];
}

/** Reverse sweep: adjoints of every tape entry, accumulated into g by variable. */
function reverse(t: Tape, v: Float64Array, w: Float64Array, g: Float64Array): void {
  const { op, a, b, c } = t;
  w.fill(0);
  g.fill(0);
  w[t.length - 1] = 1;
  for (let i = t.length - 1; i >= 0; i--) {
    const u = w[i];
    if (u === 0) continue;
    const ia = a[i], ib = b[i], p = v[ia], q = v[ib];
    switch (op[i]) {
      case CONST: break;
      case VAR: g[ia] += u; break;
      case ADD: w[ia] += u; w[ib] += u; break;
      case SUB: w[ia] += u; w[ib] -= u; break;
      case MUL: w[ia] += u * q; w[ib] += u * p; break;
      case DIV: w[ia] += u / q; w[ib] -= u * v[i] / q; break;
      case NEG: w[ia] -= u; break;
      case POWC: w[ia] += u * (c[i] === 0 ? 0 : c[i] === 1 ? 1 : c[i] === 2 ? 2 * p : c[i] * Math.pow(p, c[i] - 1)); break;
      case POW: w[ia] += u * (q === 0 ? 0 : q * Math.pow(p, q - 1)); w[ib] += u * (v[i] === 0 ? 0 : v[i] * Math.log(p)); break;
      case SQRT: w[ia] += u * 0.5 / v[i]; break;
      case CBRT: w[ia] += u / (3 * v[i] * v[i]); break;
      case EXP: w[ia] += u * v[i]; break;
      case EXPM1: w[ia] += u * (v[i] + 1); break;
      case LOG: w[ia] += u / p; break;
      case LOG1P: w[ia] += u / (1 + p); break;
      case LOG2: w[ia] += u / (p * Math.LN2); break;
      case LOG10: w[ia] += u / (p * Math.LN10); break;
      case SIN: w[ia] += u * Math.cos(p); break;
      case COS: w[ia] -= u * Math.sin(p); break;
      case TAN: w[ia] += u * (1 + v[i] * v[i]); break;
      case SEC: w[ia] += u * v[i] * Math.tan(p); break;
      case CSC: w[ia] -= u * v[i] / Math.tan(p); break;
      case COT: w[ia] -= u * (1 + v[i] * v[i]); break;
      case ASIN: w[ia] += u / Math.sqrt(1 - p * p); break;
      case ACOS: w[ia] -= u / Math.sqrt(1 - p * p); break;
      case ATAN: w[ia] += u / (1 + p * p); break;
      case SINH: w[ia] += u * Math.cosh(p); break;
      case COSH: w[ia] += u * Math.sinh(p); break;
      case TANH: w[ia] += u * (1 - v[i] * v[i]); break;
      case ASINH: w[ia] += u / Math.sqrt(p * p + 1); break;
      case ACOSH: w[ia] += u / Math.sqrt(p * p - 1); break;
      case ATANH: w[ia] += u / (1 - p * p); break;
      case ABS: w[ia] += u * Math.sign(p); break;
      case ATAN2: { const r = p * p + q * q; w[ia] += u * q / r; w[ib] -= u * p / r; break; }
      case HYPOT: w[ia] += u * (v[i] === 0 ? 0 : p / v[i]); w[ib] += u * (v[i] === 0 ? 0 : q / v[i]); break;
      case MIN: if (p <= q) w[ia] += u; else w[ib] += u; break;
      case MAX: if (p >= q) w[ia] += u; else w[ib] += u; break;
    }
  }
}

/** Wraps a sandbox refusal so that it names the field. */
function fieldRefusal(field: string, e: unknown): never {
  const msg = (e as Error)?.message ?? String(e);
  throw refuse('INVALID_INPUT', `${field}: ${msg}`, { issues: [{ path: field, message: msg }] });
}

/**
 * Compiles `expr` with the variables `vars` (the order of x). Every free symbol must be a variable
 * or a sandbox constant (pi, e, tau); anything else is a refusal naming `field`.
 */
export function compileObjective(expr: string, vars: string[], field = 'objective'): CompiledObjective {
  let safe: SafeExpression;
  try {
    safe = compileSafe(expr, { maxLength: MAX_OBJECTIVE_LENGTH, maxNodes: MAX_OBJECTIVE_NODES });
  } catch (e) {
    fieldRefusal(field, e);
  }
  const varIndex = new Map(vars.map((v, i) => [v, i]));
  const unknown = safe.symbols.filter((s) => !varIndex.has(s));
  if (unknown.length) {
    const msg = `unknown variable${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')}: the variables are the keys of x0 (${vars.join(', ')})`;
    throw refuse('INVALID_INPUT', `${field}: ${msg}`, { issues: [{ path: field, message: msg }] });
  }
  let tape: Tape | null = null;
  try { tape = buildTape(safe.node, varIndex); } catch (e) { if (!(e instanceof Unsupported)) throw e; }
  if (tape) {
    const t = tape, val = new Float64Array(t.length), adj = new Float64Array(t.length);
    return {
      vars, differentiable: true, nodes: safe.nodes,
      f: (x) => forward(t, x, val),
      grad: (x, g) => { forward(t, x, val); reverse(t, val, adj, g); },
    };
  }
  const scope: Record<string, number> = {};
  return {
    vars, differentiable: false, nodes: safe.nodes,
    f: (x) => {
      for (let i = 0; i < vars.length; i++) scope[vars[i]] = x[i];
      let r: unknown;
      try { r = safe.evaluate(scope); } catch { return NaN; }
      return typeof r === 'number' ? r : typeof r === 'boolean' ? (r ? 1 : 0) : NaN;
    },
    grad: () => { throw new Error('the objective is not differentiable: use central differences'); },
  };
}
