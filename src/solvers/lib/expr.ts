// Compiles callers' expressions (objectives, ODE right-hand sides, initial conditions, sources)
// into fast functions with exact derivatives, for solvers that evaluate them millions of times.
//
// Every expression is first parsed and checked by the sandbox (src/core/sandbox.ts: whitelisted
// mathjs, bounded length and node count, DESIGN §13). Its checked tree is then translated into a
// small scalar IR, differentiated symbolically where a Jacobian is wanted (forward rules of
// elementary calculus, e.g. Griewank & Walther, "Evaluating Derivatives", 2nd ed., §2; the chain
// rule applied node by node, with constant folding so that the derivative trees stay small),
// and emitted as JavaScript source. The emitted source is built only from: numeric literals of
// finite numbers, `x[i]` with integer i, `M.<name>` with names from the fixed table below, and
// operators. No text of the caller's reaches it, so `new Function` here runs nothing the caller
// wrote (the sandbox's whitelist decides what can be expressed at all).
//
// Semantics follow the sandbox's mathjs instance on real numbers: `mod` takes the sign of the
// divisor, `round` rounds halves away from zero, comparisons and logic give 1 or 0, and a value
// outside a function's real domain (sqrt(−1), log(−1)) is NaN, never complex; callers refuse
// non-finite results. Piecewise-constant functions (floor, sign, comparisons) have derivative 0
// where they are differentiable; functions with no derivative rule here (gamma, factorial, mod,
// median, …) make the system non-differentiable (`differentiable: false`), and the caller falls
// back to central differences and says so.
import { compileSafe, sandboxFunction, ALLOWED_CONSTANTS } from '../../core/sandbox.ts';
import { refuse } from '../../core/errors.ts';

export interface CompiledSystem {
  /** variable names, in the order of the x vector */
  vars: string[];
  /** number of expressions */
  size: number;
  /** false when an expression uses a function with no derivative rule */
  differentiable: boolean;
  /** out[i] = f_i(x) */
  evaluate(x: ArrayLike<number>, out: Float64Array): void;
  /** jac[i*n + j] = ∂f_i/∂x_j, exact (symbolic); throws if not differentiable */
  jacobian(x: ArrayLike<number>, jac: Float64Array): void;
  /** for each expression, the indices of the variables it reads */
  reads: number[][];
}

/** The scalar IR. */
type Ir =
  | { k: 'num'; v: number }
  | { k: 'var'; i: number }
  | { k: 'op'; f: string; a: Ir[] }
  | { k: 'if'; c: Ir; t: Ir; e: Ir };

const num = (v: number): Ir => ({ k: 'num', v });
const ZERO = num(0);
const ONE = num(1);
const isNum = (n: Ir, v?: number) => n.k === 'num' && (v === undefined || n.v === v);

/** mathjs operator names → IR op names (binary operators map onto the same function names) */
const OPERATOR_FN: Record<string, string> = {
  add: 'add', subtract: 'sub', multiply: 'mul', divide: 'div', pow: 'pow', unaryMinus: 'neg', unaryPlus: 'pos', mod: 'mod',
  dotMultiply: 'mul', dotDivide: 'div', dotPow: 'pow', equal: 'eq', unequal: 'ne', smaller: 'lt', larger: 'gt',
  smallerEq: 'le', largerEq: 'ge', and: 'and', or: 'or', xor: 'xor', not: 'not', factorial: 'factorial',
};

/** How each IR function is emitted: an infix template or a call to M.<name>. */
const INFIX: Record<string, (a: string[]) => string> = {
  add: (a) => `(${a.join('+')})`, sub: (a) => `(${a[0]}-${a[1]})`, mul: (a) => `(${a.join('*')})`, div: (a) => `(${a[0]}/${a[1]})`,
  neg: (a) => `(-${a[0]})`, pos: (a) => `(+${a[0]})`,
  eq: (a) => `(${a[0]}===${a[1]}?1:0)`, ne: (a) => `(${a[0]}!==${a[1]}?1:0)`, lt: (a) => `(${a[0]}<${a[1]}?1:0)`,
  gt: (a) => `(${a[0]}>${a[1]}?1:0)`, le: (a) => `(${a[0]}<=${a[1]}?1:0)`, ge: (a) => `(${a[0]}>=${a[1]}?1:0)`,
  and: (a) => `((${a[0]})!==0&&(${a[1]})!==0?1:0)`, or: (a) => `((${a[0]})!==0||(${a[1]})!==0?1:0)`,
  xor: (a) => `(((${a[0]})!==0)!==((${a[1]})!==0)?1:0)`, not: (a) => `((${a[0]})===0?1:0)`,
};

const roundAway = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));
const fromSandbox = (name: string) => {
  // the sandbox's function, looked up on first call: the expression library loads only in a thread
  // that evaluates one of these (issue 28)
  let f: ReturnType<typeof sandboxFunction> | null = null;
  return (...a: number[]) => { f ??= sandboxFunction(name); const r = f(...a); return typeof r === 'number' ? r : typeof r === 'boolean' ? (r ? 1 : 0) : NaN; };
};

/** The function table of emitted code. Only these names can appear after `M.`. */
const M: Record<string, (...a: number[]) => number> = {
  abs: Math.abs, sign: Math.sign, sqrt: Math.sqrt, cbrt: Math.cbrt, exp: Math.exp, expm1: Math.expm1,
  log: (x, b) => (b === undefined ? Math.log(x) : Math.log(x) / Math.log(b)), log10: Math.log10, log2: Math.log2, log1p: Math.log1p,
  pow: Math.pow, hypot: Math.hypot, nthRoot: (x, n = 2) => (x < 0 && n % 2 === 1 ? -Math.pow(-x, 1 / n) : Math.pow(x, 1 / n)),
  sin: Math.sin, cos: Math.cos, tan: Math.tan, sec: (x) => 1 / Math.cos(x), csc: (x) => 1 / Math.sin(x), cot: (x) => 1 / Math.tan(x),
  asin: Math.asin, acos: Math.acos, atan: Math.atan, atan2: Math.atan2, sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh,
  sech: (x) => 1 / Math.cosh(x), csch: (x) => 1 / Math.sinh(x), coth: (x) => 1 / Math.tanh(x),
  asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh,
  floor: Math.floor, ceil: Math.ceil, round: roundAway, fix: Math.trunc,
  mod: (x, y) => (y === 0 ? x : x - y * Math.floor(x / y)),
  min: Math.min, max: Math.max,
  sum: (...a) => a.reduce((s, v) => s + v, 0), prod: (...a) => a.reduce((s, v) => s * v, 1),
  mean: (...a) => a.reduce((s, v) => s + v, 0) / a.length,
  isNaN: (x) => (Number.isNaN(x) ? 1 : 0), isPositive: (x) => (x > 0 ? 1 : 0), isNegative: (x) => (x < 0 ? 1 : 0), isZero: (x) => (x === 0 ? 1 : 0),
  compare: (a, b) => Math.sign(a - b), equal: (a, b) => (a === b ? 1 : 0), unequal: (a, b) => (a !== b ? 1 : 0),
  smaller: (a, b) => (a < b ? 1 : 0), larger: (a, b) => (a > b ? 1 : 0), smallerEq: (a, b) => (a <= b ? 1 : 0), largerEq: (a, b) => (a >= b ? 1 : 0),
  erf: fromSandbox('erf'), gamma: fromSandbox('gamma'), lgamma: fromSandbox('lgamma'), factorial: fromSandbox('factorial'),
  median: fromSandbox('median'), std: fromSandbox('std'), variance: fromSandbox('variance'),
};
/** function names the sandbox allows that are aliases of infix IR ops */
const FN_AS_OP: Record<string, string> = { not: 'not', and: 'and', or: 'or', xor: 'xor' };
/** functions with no derivative rule here */
const NO_DERIVATIVE = new Set(['mod', 'factorial', 'gamma', 'lgamma', 'median', 'std', 'variance']);

interface Binding { vars: Map<string, number>; params: Record<string, number>; field: string; index: number }

function toIr(node: any, b: Binding): Ir {
  switch (node.type) {
    case 'ConstantNode': {
      if (typeof node.value === 'number') return num(node.value);
      if (typeof node.value === 'boolean') return num(node.value ? 1 : 0);
      throw refuse('INVALID_INPUT', `${b.field}[${b.index}]: only numeric expressions are allowed here (found a string)`);
    }
    case 'SymbolNode': {
      const name: string = node.name;
      const i = b.vars.get(name);
      if (i !== undefined) return { k: 'var', i };
      if (Object.prototype.hasOwnProperty.call(b.params, name)) return num(b.params[name]);
      const c = ALLOWED_CONSTANTS[name];
      if (typeof c === 'number') return num(c);
      if (typeof c === 'boolean') return num(c ? 1 : 0);
      throw refuse('INVALID_INPUT', `${b.field}[${b.index}]: unknown name '${name}'; known: ${[...b.vars.keys(), ...Object.keys(b.params)].join(', ') || '(none)'}`);
    }
    case 'ParenthesisNode': return toIr(node.content, b);
    case 'OperatorNode': {
      const f = OPERATOR_FN[node.fn];
      if (!f) throw refuse('INVALID_INPUT', `${b.field}[${b.index}]: operator '${node.op}' is not allowed here`);
      return { k: 'op', f, a: node.args.map((a: any) => toIr(a, b)) };
    }
    case 'ConditionalNode':
      return { k: 'if', c: toIr(node.condition, b), t: toIr(node.trueExpr, b), e: toIr(node.falseExpr, b) };
    case 'RelationalNode': {
      // a < b < c  →  (a < b) and (b < c)
      const ops = { equal: 'eq', unequal: 'ne', smaller: 'lt', larger: 'gt', smallerEq: 'le', largerEq: 'ge' } as Record<string, string>;
      const p = node.params.map((x: any) => toIr(x, b));
      let acc: Ir | null = null;
      node.conditionals.forEach((c: string, i: number) => {
        const cmp: Ir = { k: 'op', f: ops[c], a: [p[i], p[i + 1]] };
        acc = acc ? { k: 'op', f: 'and', a: [acc, cmp] } : cmp;
      });
      return acc!;
    }
    case 'FunctionNode': {
      const name: string = node.fn.name;
      const args = node.args.map((a: any) => toIr(a, b));
      if (FN_AS_OP[name]) return { k: 'op', f: FN_AS_OP[name], a: args };
      if (!(name in M)) throw refuse('INVALID_INPUT', `${b.field}[${b.index}]: function '${name}' is not available for numeric expressions`);
      if (args.length === 0) throw refuse('INVALID_INPUT', `${b.field}[${b.index}]: ${name}() needs arguments`);
      return { k: 'op', f: name, a: args };
    }
    default:
      throw refuse('INVALID_INPUT', `${b.field}[${b.index}]: ${String(node.type).replace(/Node$/, '').toLowerCase()} is not allowed in a numeric expression`);
  }
}

// ---- constant folding and smart constructors ----

const CALLABLE = (f: string) => !(f in INFIX);

function evalConst(f: string, a: number[]): number {
  if (f in INFIX) {
    // evaluate the infix form on constants through the same emitter
    return new Function(`return ${INFIX[f](a.map(lit))};`)() as number;
  }
  return M[f](...a);
}

function mk(f: string, a: Ir[]): Ir {
  if (a.every((x) => x.k === 'num')) {
    const v = evalConst(f, a.map((x) => (x as { v: number }).v));
    if (Number.isFinite(v)) return num(v);
  }
  if (f === 'add' || f === 'mul') a = a.flatMap((x) => (x.k === 'op' && x.f === f ? x.a : [x])); // flat sums and products
  switch (f) {
    case 'add': {
      const rest = a.filter((x) => !isNum(x, 0));
      return rest.length === 0 ? ZERO : rest.length === 1 ? rest[0] : { k: 'op', f, a: rest };
    }
    case 'sub':
      if (isNum(a[1], 0)) return a[0];
      if (isNum(a[0], 0)) return mk('neg', [a[1]]);
      break;
    case 'mul': {
      if (a.some((x) => isNum(x, 0))) return ZERO;
      const rest = a.filter((x) => !isNum(x, 1));
      return rest.length === 0 ? ONE : rest.length === 1 ? rest[0] : { k: 'op', f, a: rest };
    }
    case 'div':
      if (isNum(a[0], 0)) return ZERO;
      if (isNum(a[1], 1)) return a[0];
      break;
    case 'neg':
      if (a[0].k === 'op' && a[0].f === 'neg') return a[0].a[0];
      break;
    case 'pos': return a[0];
    case 'pow':
      if (isNum(a[1], 1)) return a[0];
      if (isNum(a[1], 0)) return ONE;
      break;
  }
  return { k: 'op', f, a };
}

// ---- symbolic derivative ----

class NotDifferentiable extends Error {}

const add = (...a: Ir[]) => mk('add', a);
const sub = (x: Ir, y: Ir) => mk('sub', [x, y]);
const mul = (...a: Ir[]) => mk('mul', a);
const div = (x: Ir, y: Ir) => mk('div', [x, y]);
const call = (f: string, ...a: Ir[]) => mk(f, a);

/** d node / d x_j */
function derive(n: Ir, j: number): Ir {
  switch (n.k) {
    case 'num': return ZERO;
    case 'var': return n.i === j ? ONE : ZERO;
    case 'if': {
      const dt = derive(n.t, j), de = derive(n.e, j);
      if (isNum(dt, 0) && isNum(de, 0)) return ZERO;
      return { k: 'if', c: n.c, t: dt, e: de };
    }
    case 'op': break;
  }
  const a = n.a;
  const d = (i: number) => derive(a[i], j);
  switch (n.f) {
    case 'add': case 'sum': return add(...a.map((_, i) => d(i)));
    case 'sub': return sub(d(0), d(1));
    case 'neg': return mk('neg', [d(0)]);
    case 'pos': return d(0);
    case 'mean': return div(add(...a.map((_, i) => d(i))), num(a.length));
    case 'mul': case 'prod':
      return add(...a.map((_, i) => mul(...a.map((x, k) => (k === i ? d(i) : x)))));
    case 'div': {
      // (u/v)' = u'/v − u v'/v²
      const du = d(0), dv = d(1);
      return sub(div(du, a[1]), isNum(dv, 0) ? ZERO : div(mul(a[0], dv), mul(a[1], a[1])));
    }
    case 'pow': {
      const [u, v] = a;
      const du = d(0), dv = d(1);
      if (isNum(dv, 0)) return mul(v, call('pow', u, sub(v, ONE)), du); // v u^(v−1) u'
      // u^v (v' ln u + v u'/u)
      return mul(n, add(mul(dv, call('log', u)), isNum(du, 0) ? ZERO : div(mul(v, du), u)));
    }
    case 'eq': case 'ne': case 'lt': case 'gt': case 'le': case 'ge': case 'and': case 'or': case 'xor': case 'not':
    case 'floor': case 'ceil': case 'round': case 'fix': case 'sign': case 'isNaN': case 'isPositive': case 'isNegative': case 'isZero':
    case 'compare': case 'equal': case 'unequal': case 'smaller': case 'larger': case 'smallerEq': case 'largerEq':
      return ZERO;
    case 'min': case 'max': {
      // the derivative of the argument that is chosen (ties: the first)
      if (a.length === 1) return d(0);
      let best: Ir = a[0], dBest: Ir = d(0);
      for (let i = 1; i < a.length; i++) {
        const cmp = mk(n.f === 'min' ? 'lt' : 'gt', [a[i], best]);
        const di = d(i);
        dBest = isNum(di, 0) && isNum(dBest, 0) ? ZERO : { k: 'if', c: cmp, t: di, e: dBest };
        best = { k: 'if', c: cmp, t: a[i], e: best };
      }
      return dBest;
    }
    case 'hypot': {
      // d sqrt(Σ u²) = Σ u u' / hypot
      return div(add(...a.map((u, i) => mul(u, d(i)))), n);
    }
    case 'atan2': {
      const [y, x] = a;
      return div(sub(mul(x, d(0)), mul(y, d(1))), add(mul(x, x), mul(y, y)));
    }
    case 'log':
      if (a.length === 2) {
        if (!isNum(d(1), 0)) return derive({ k: 'op', f: 'div', a: [call('log', a[0]), call('log', a[1])] }, j);
        return div(d(0), mul(a[0], call('log', a[1])));
      }
      return div(d(0), a[0]);
    case 'nthRoot': {
      if (a.length === 2 && !isNum(d(1), 0)) throw new NotDifferentiable('nthRoot with a variable degree');
      const deg = a.length === 2 ? a[1] : num(2);
      // (u^(1/n))' = u^(1/n) / (n u) · u'
      return mul(div(n, mul(deg, a[0])), d(0));
    }
  }
  if (a.length !== 1) throw new NotDifferentiable(n.f);
  const u = a[0];
  const du = d(0);
  if (isNum(du, 0)) return ZERO;
  let g: Ir; // g = f'(u)
  switch (n.f) {
    case 'abs': g = call('sign', u); break;
    case 'sqrt': g = div(num(0.5), n); break;
    case 'cbrt': g = div(ONE, mul(num(3), mul(n, n))); break;
    case 'exp': g = n; break;
    case 'expm1': g = call('exp', u); break;
    case 'log10': g = div(ONE, mul(u, num(Math.LN10))); break;
    case 'log2': g = div(ONE, mul(u, num(Math.LN2))); break;
    case 'log1p': g = div(ONE, add(ONE, u)); break;
    case 'sin': g = call('cos', u); break;
    case 'cos': g = mk('neg', [call('sin', u)]); break;
    case 'tan': g = add(ONE, mul(n, n)); break;
    case 'sec': g = mul(n, call('tan', u)); break;
    case 'csc': g = mk('neg', [mul(n, call('cot', u))]); break;
    case 'cot': g = mk('neg', [add(ONE, mul(n, n))]); break;
    case 'asin': g = div(ONE, call('sqrt', sub(ONE, mul(u, u)))); break;
    case 'acos': g = mk('neg', [div(ONE, call('sqrt', sub(ONE, mul(u, u))))]); break;
    case 'atan': g = div(ONE, add(ONE, mul(u, u))); break;
    case 'sinh': g = call('cosh', u); break;
    case 'cosh': g = call('sinh', u); break;
    case 'tanh': g = sub(ONE, mul(n, n)); break;
    case 'sech': g = mk('neg', [mul(n, call('tanh', u))]); break;
    case 'csch': g = mk('neg', [mul(n, call('coth', u))]); break;
    case 'coth': g = sub(ONE, mul(n, n)); break;
    case 'asinh': g = div(ONE, call('sqrt', add(mul(u, u), ONE))); break;
    case 'acosh': g = div(ONE, call('sqrt', sub(mul(u, u), ONE))); break;
    case 'atanh': g = div(ONE, sub(ONE, mul(u, u))); break;
    case 'erf': g = mul(num(2 / Math.sqrt(Math.PI)), call('exp', mk('neg', [mul(u, u)]))); break;
    default: throw new NotDifferentiable(n.f);
  }
  return mul(g, du);
}

// ---- emission ----

function lit(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '(-Infinity)';
  return Object.is(v, -0) || v < 0 ? `(${String(v)})` : String(v);
}

function emit(n: Ir): string {
  switch (n.k) {
    case 'num': return lit(n.v);
    case 'var': return `x[${n.i}]`;
    case 'if': return `((${emit(n.c)})!==0?${emit(n.t)}:${emit(n.e)})`;
    case 'op': {
      const args = n.a.map(emit);
      if (CALLABLE(n.f)) {
        if (!(n.f in M)) throw new Error(`expr: no function ${n.f}`);
        return `M.${n.f}(${args.join(',')})`;
      }
      return INFIX[n.f](args);
    }
  }
}

/** The most operations an emitted Jacobian may have (issue 33: the exact derivative of a power
 * tower, written out as a tree, doubles with every level; shared subexpressions are emitted once,
 * so a real system stays far below this, and a hostile one is refused before it is compiled). */
export const MAX_JACOBIAN_OPS = 200_000;

/** Emits assignments `target = expr` for a list of IR DAGs, each shared subexpression (a node
 * object reached by more than one edge) computed once into a local: the text grows with the number
 * of distinct nodes, not with the size of the tree they unfold to. Returns null when the program
 * would have more than `maxOps` operations. */
function emitShared(entries: { target: string; ir: Ir }[], maxOps: number): string | null {
  const refs = new Map<Ir, number>();
  const stack: Ir[] = entries.map((e) => e.ir);
  const children = (n: Ir): Ir[] => (n.k === 'op' ? n.a : n.k === 'if' ? [n.c, n.t, n.e] : []);
  for (const e of entries) refs.set(e.ir, (refs.get(e.ir) ?? 0) + 1);
  const seen = new Set<Ir>();
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if (seen.size > maxOps) return null;
    for (const c of children(n)) { refs.set(c, (refs.get(c) ?? 0) + 1); if (!seen.has(c)) stack.push(c); }
  }
  const names = new Map<Ir, string>();
  const lines: string[] = [];
  // iterative post-order, so that a 4,096-deep chain does not overflow the stack
  const text = new Map<Ir, string>();
  const emitOne = (root: Ir): string => {
    const work: [Ir, boolean][] = [[root, false]];
    while (work.length) {
      const [n, expanded] = work.pop()!;
      if (names.has(n) || text.has(n)) continue;
      if (!expanded) {
        work.push([n, true]);
        for (const c of children(n)) if (!names.has(c) && !text.has(c)) work.push([c, false]);
        continue;
      }
      const t = (c: Ir) => names.get(c) ?? text.get(c)!;
      let out: string;
      switch (n.k) {
        case 'num': out = lit(n.v); break;
        case 'var': out = `x[${n.i}]`; break;
        case 'if': out = `((${t(n.c)})!==0?${t(n.t)}:${t(n.e)})`; break;
        case 'op': {
          const args = n.a.map(t);
          if (CALLABLE(n.f)) {
            if (!(n.f in M)) throw new Error(`expr: no function ${n.f}`);
            out = `M.${n.f}(${args.join(',')})`;
          } else out = INFIX[n.f](args);
        }
      }
      if ((refs.get(n) ?? 0) > 1 && n.k !== 'num' && n.k !== 'var') {
        const name = `t${names.size}`;
        lines.push(`const ${name}=${out};`);
        names.set(n, name);
      } else text.set(n, out);
    }
    return names.get(root) ?? text.get(root)!;
  };
  for (const e of entries) lines.push(`${e.target}=${emitOne(e.ir)};`);
  return lines.join('\n');
}

function collectVars(n: Ir, into: Set<number>): void {
  if (n.k === 'var') into.add(n.i);
  else if (n.k === 'op') for (const a of n.a) collectVars(a, into);
  else if (n.k === 'if') { collectVars(n.c, into); collectVars(n.t, into); collectVars(n.e, into); }
}

/** Parses each expression through the sandbox (limits: 4,096 characters, 4,000 nodes), binds
 * `vars` (the vector) and `params` (constants); an unknown name is a refusal naming it. `field`
 * names the input field in error messages. */
export function compileSystem(exprs: string[], vars: string[], params: Record<string, number> = {}, opts: { maxLength?: number; field?: string; names?: string[] } = {}): CompiledSystem {
  const field = opts.field ?? 'expression';
  const varIndex = new Map(vars.map((v, i) => [v, i]));
  for (const [k, v] of Object.entries(params)) {
    if (varIndex.has(k)) throw refuse('INVALID_INPUT', `'${k}' is both a variable and a parameter`);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw refuse('INVALID_INPUT', `parameter '${k}' must be a finite number`);
  }
  const irs = exprs.map((text, index) => {
    const label = opts.names?.[index] ?? index;
    let safe;
    try {
      safe = compileSafe(text, { maxLength: opts.maxLength ?? 4096, maxNodes: 4096 });
    } catch (e: any) {
      throw refuse('INVALID_INPUT', `${field}[${label}]: ${e?.message ?? String(e)}`);
    }
    return mk2(toIr(safe.node, { vars: varIndex, params, field, index: label as number }));
  });
  const reads = irs.map((ir) => { const s = new Set<number>(); collectVars(ir, s); return [...s].sort((p, q) => p - q); });
  const body = irs.map((ir, i) => `out[${i}]=${emit(ir)};`).join('\n');
  const evaluate = new Function('M', `return function evaluate(x, out) {\n${body}\n};`)(M) as CompiledSystem['evaluate'];

  // The Jacobian is differentiated and compiled on first use: explicit methods never ask for it,
  // and building it dominates compile time for large systems. Whether it exists is known at once.
  const n = vars.length;
  let differentiable = true;
  let why = '';
  const derivatives = (): string[] => {
    const entries: { target: string; ir: Ir }[] = [];
    // each entry's size is counted as it is made (shared parts counted again: an upper bound), so
    // a hostile system is refused before its whole derivative exists in memory
    let ops = 0;
    const tooLarge = (row: number, what: string) => refuse('INVALID_INPUT', `${field}[${opts.names?.[row] ?? row}]: its exact Jacobian has more than ${MAX_JACOBIAN_OPS} distinct operations (${what}); simplify the expression or choose an explicit method (RK45, DOP853) that needs no Jacobian`);
    irs.forEach((ir, i) => {
      for (const j of reads[i]) {
        const dij = derive(ir, j);
        if (isNum(dij, 0)) continue;
        ops += dagSize(dij, MAX_JACOBIAN_OPS + 1);
        if (ops > 4 * MAX_JACOBIAN_OPS) throw tooLarge(i, `reached at this row`);
        entries.push({ target: `jac[${i * n + j}]`, ir: dij });
      }
    });
    const program = emitShared(entries, MAX_JACOBIAN_OPS);
    if (program === null) throw tooLarge(irs.length - 1, 'counted over the whole system');
    return [program];
  };
  const blocker = irs.map(firstWithoutDerivative).find((f) => f !== null);
  if (blocker) { differentiable = false; why = blocker; }
  let compiled: CompiledSystem['jacobian'] | null = null;
  const jacobian: CompiledSystem['jacobian'] = (x, jac) => {
    if (!differentiable) throw refuse('INVALID_INPUT', `${field}: no exact derivative (it uses ${why})`);
    if (!compiled) {
      let lines: string[];
      try { lines = derivatives(); } catch (e) {
        if (!(e instanceof NotDifferentiable)) throw e;
        differentiable = false; why = e.message;
        throw refuse('INVALID_INPUT', `${field}: no exact derivative (it uses ${why})`);
      }
      compiled = new Function('M', `return function jacobian(x, jac) {\njac.fill(0);\n${lines.join('\n')}\n};`)(M) as CompiledSystem['jacobian'];
    }
    compiled(x, jac);
  };
  return { vars: [...vars], size: exprs.length, differentiable, evaluate, jacobian, reads };
}

/** Distinct nodes of a DAG, counted up to `cap`. */
function dagSize(root: Ir, cap: number): number {
  const seen = new Set<Ir>();
  const stack = [root];
  while (stack.length && seen.size < cap) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if (n.k === 'op') stack.push(...n.a);
    else if (n.k === 'if') stack.push(n.c, n.t, n.e);
  }
  return seen.size;
}

/** The first function in a tree that has no derivative rule (null when every node has one). */
function firstWithoutDerivative(n: Ir): string | null {
  if (n.k === 'if') return firstWithoutDerivative(n.t) ?? firstWithoutDerivative(n.e);
  if (n.k !== 'op') return null;
  if (NO_DERIVATIVE.has(n.f)) return n.f;
  if (n.f === 'nthRoot' && n.a.length === 2 && !isConstantTree(n.a[1])) return 'nthRoot with a variable degree';
  for (const a of n.a) { const f = firstWithoutDerivative(a); if (f) return f; }
  return null;
}

function isConstantTree(n: Ir): boolean {
  if (n.k === 'num') return true;
  if (n.k === 'var') return false;
  if (n.k === 'if') return isConstantTree(n.c) && isConstantTree(n.t) && isConstantTree(n.e);
  return n.a.every(isConstantTree);
}

/** re-folds a translated tree bottom-up (constants from parameters fold away) */
function mk2(n: Ir): Ir {
  if (n.k === 'op') return mk(n.f, n.a.map(mk2));
  if (n.k === 'if') {
    const c = mk2(n.c);
    if (c.k === 'num') return c.v !== 0 ? mk2(n.t) : mk2(n.e);
    return { k: 'if', c, t: mk2(n.t), e: mk2(n.e) };
  }
  return n;
}
