// A restricted expression evaluator for callers' formulas (svc_unified custom operators,
// contract guards, reactor loops). It follows the mathjs security guidance ("Security",
// mathjs.org/docs/expressions/security.html): a separate mathjs instance whose dangerous
// functions are replaced by throwing stubs, plus a whitelist check of the parsed AST before
// anything is compiled. Everything outside the whitelist is refused with 400 INVALID_INPUT:
//   - no import, createUnit, evaluate, parse, compile, simplify, derivative, resolve, reviver,
//     chain, help (not callable: they are not whitelisted, and stubbed out as a second line);
//   - no assignment, function assignment (so no recursion), blocks, objects, property or index
//     access (so no constructor/__proto__ tricks), units or unknown functions;
//   - ranges and array literals only when small and constant; no matrix constructors;
//   - bounded expression length, AST node count, nesting depth and string-constant length.
// Every whitelisted function is O(1) or linear in a bounded array, so evaluation time is
// bounded by the node count: no loops exist in the language that is left.
import type { MathNode, EvalFunction } from 'mathjs';
import { mathjs } from './mathjs.ts';
import { SvcError } from '../core/errors.ts';

const disabled = (name: string) => () => {
  throw new SvcError('INVALID_INPUT', `function ${name} is disabled in the sandbox`);
};

let sandbox: { smath: any; parseExpression: (s: string) => MathNode } | null = null;

/** The restricted instance, created on first use. */
function restricted(): { smath: any; parseExpression: (s: string) => MathNode } {
  if (sandbox) return sandbox;
  const { create, all } = mathjs();
  const smath = create(all, { number: 'number', matrix: 'Array' }) as any;
  const parseExpression = smath.parse;
  // String-aware equality for guards such as `state == "open"` (mathjs's equal converts strings
  // to numbers). The checker rewrites == and != to these; callers cannot name them directly.
  const looseEqual = (a: unknown, b: unknown): boolean =>
    typeof a === 'string' || typeof b === 'string' ? String(a) === String(b) : smath.equal(a, b);
  smath.import({ svcSandboxEqual: looseEqual, svcSandboxUnequal: (a: unknown, b: unknown) => !looseEqual(a, b) }, { override: true });
  smath.import(Object.fromEntries(['import', 'createUnit', 'evaluate', 'parse', 'compile', 'simplify', 'simplifyConstant',
    'simplifyCore', 'derivative', 'resolve', 'reviver', 'rationalize', 'chain', 'help', 'leafCount', 'symbolicEqual']
    .map((n) => [n, disabled(n)])), { override: true });
  sandbox = { smath, parseExpression };
  return sandbox;
}

export const DEFAULT_MAX_LENGTH = 1000;
export const HARD_MAX_LENGTH = 10_000;
export const MAX_NODES = 400;
/** the node limit a caller may raise `maxNodes` to (4 KB expressions: objectives, ODE right-hand sides) */
export const HARD_MAX_NODES = 4096;
/** bracket nesting, checked before parsing */
export const MAX_DEPTH = 40;
/** AST depth (a left-deep chain such as a long sum counts one level per term) */
export const MAX_AST_DEPTH = 200;
export const MAX_STRING_CONSTANT = 256;
export const MAX_ARRAY_ELEMENTS = 256;
export const MAX_ARGS = 32;

/** Functions a sandboxed expression may call (all total or NaN-returning, O(1) or O(n) in a bounded array). */
export const ALLOWED_FUNCTIONS = new Set([
  'abs', 'sign', 'sqrt', 'cbrt', 'nthRoot', 'exp', 'expm1', 'log', 'log10', 'log2', 'log1p', 'pow', 'hypot',
  'sin', 'cos', 'tan', 'sec', 'csc', 'cot', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'sech', 'csch', 'coth',
  'asinh', 'acosh', 'atanh', 'floor', 'ceil', 'round', 'fix', 'mod', 'min', 'max', 'erf', 'gamma', 'lgamma', 'factorial',
  'sum', 'prod', 'mean', 'median', 'std', 'variance', 'isNaN', 'isPositive', 'isNegative', 'isZero', 'not', 'and', 'or', 'xor',
  'equal', 'unequal', 'smaller', 'larger', 'smallerEq', 'largerEq', 'compare',
]);

const ALLOWED_OPERATORS = new Set([
  'add', 'subtract', 'multiply', 'divide', 'pow', 'unaryMinus', 'unaryPlus', 'mod', 'factorial',
  'dotMultiply', 'dotDivide', 'dotPow', 'equal', 'unequal', 'smaller', 'larger', 'smallerEq', 'largerEq',
  'and', 'or', 'xor', 'not',
]);

/** Named constants usable without a scope entry (a scope entry of the same name wins). */
export const ALLOWED_CONSTANTS: Record<string, number | boolean> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, true: true, false: false };

const FORBIDDEN_NAMES = new Set(['constructor', 'prototype', '__proto__', '__defineGetter__', '__defineSetter__',
  '__lookupGetter__', '__lookupSetter__', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toString',
  'valueOf', 'toLocaleString', 'eval', 'Function', 'globalThis', 'process', 'require', 'import', 'this']);
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface SafeExpression {
  /** evaluates with the given variables; returns a number, boolean or string */
  evaluate(scope: Record<string, unknown>): unknown;
  /** the free variables the expression reads (constants such as pi excluded unless shadowed) */
  symbols: string[];
  /** functions the expression calls */
  functions: string[];
  /** the expression as mathjs prints it */
  expression: string;
  /** AST node count */
  nodes: number;
  /** the checked syntax tree (mathjs nodes: ConstantNode, SymbolNode, OperatorNode, FunctionNode,
   * ParenthesisNode, ConditionalNode, …), for compilers of their own (src/solvers/lib/expr.ts) */
  node: MathNode;
}

function refuse(message: string): SvcError {
  return new SvcError('INVALID_INPUT', `expression refused: ${message}`);
}

/** Nesting depth of brackets, checked before parsing so that deep nesting never reaches the recursive parser. */
function bracketDepth(s: string): number {
  let d = 0;
  let max = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) { d++; if (d > max) max = d; } else if (c === 41 || c === 93 || c === 125) d--;
  }
  return max;
}

interface Walk { nodes: number; maxNodes: number; maxDepth: number; symbols: Set<string>; functions: Set<string> }

function check(node: MathNode, depth: number, w: Walk): void {
  if (++w.nodes > w.maxNodes) throw refuse(`more than ${w.maxNodes} nodes`);
  if (depth > w.maxDepth) throw refuse(`nested deeper than ${w.maxDepth}`);
  const n = node as any;
  switch (n.type) {
    case 'ConstantNode': {
      const v = n.value;
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) throw refuse('non-finite constant');
      } else if (typeof v === 'string') {
        if (v.length > MAX_STRING_CONSTANT) throw refuse(`string constant longer than ${MAX_STRING_CONSTANT}`);
      } else if (typeof v !== 'boolean') {
        throw refuse('unsupported constant');
      }
      return;
    }
    case 'SymbolNode': {
      const name = n.name as string;
      if (!NAME_RE.test(name) || FORBIDDEN_NAMES.has(name) || name.startsWith('__')) throw refuse(`symbol '${name}' is not allowed`);
      w.symbols.add(name);
      return;
    }
    case 'ParenthesisNode':
      check(n.content, depth + 1, w);
      return;
    case 'OperatorNode': {
      if (!ALLOWED_OPERATORS.has(n.fn)) throw refuse(`operator '${n.op}' is not allowed`);
      for (const a of n.args) check(a, depth + 1, w);
      return;
    }
    case 'ConditionalNode':
      check(n.condition, depth + 1, w);
      check(n.trueExpr, depth + 1, w);
      check(n.falseExpr, depth + 1, w);
      return;
    case 'RelationalNode': {
      const ok = ['equal', 'unequal', 'smaller', 'larger', 'smallerEq', 'largerEq'];
      if (!n.conditionals.every((c: string) => ok.includes(c))) throw refuse('comparison not allowed');
      for (const p of n.params) check(p, depth + 1, w);
      return;
    }
    case 'FunctionNode': {
      const fn = n.fn;
      if (!fn || fn.type !== 'SymbolNode') throw refuse('only named functions may be called');
      const name = fn.name as string;
      if (!ALLOWED_FUNCTIONS.has(name)) throw refuse(`function '${name}' is not allowed`);
      if (n.args.length > MAX_ARGS) throw refuse(`more than ${MAX_ARGS} arguments`);
      w.functions.add(name);
      w.nodes++;
      for (const a of n.args) check(a, depth + 1, w);
      return;
    }
    case 'ArrayNode': {
      if (n.items.length > MAX_ARRAY_ELEMENTS) throw refuse(`array longer than ${MAX_ARRAY_ELEMENTS}`);
      for (const it of n.items) {
        if (it.type === 'ArrayNode') throw refuse('nested arrays (matrices) are not allowed');
        check(it, depth + 1, w);
      }
      return;
    }
    case 'RangeNode': {
      const parts = [n.start, n.end, n.step].filter(Boolean);
      const vals = parts.map((p: any) => {
        const c = p.type === 'ConstantNode' ? p : p.type === 'OperatorNode' && p.fn === 'unaryMinus' && p.args[0].type === 'ConstantNode' ? { value: -p.args[0].value } : null;
        if (!c || typeof c.value !== 'number' || !Number.isFinite(c.value)) throw refuse('ranges must have constant numeric bounds');
        return c.value as number;
      });
      const [start, end, step = 1] = vals;
      if (step === 0) throw refuse('range step is zero');
      const count = Math.floor((end - start) / step) + 1;
      if (!(count <= MAX_ARRAY_ELEMENTS)) throw refuse(`range of more than ${MAX_ARRAY_ELEMENTS} elements`);
      w.nodes += Math.max(0, count);
      if (w.nodes > w.maxNodes + MAX_ARRAY_ELEMENTS) throw refuse('expression too large');
      return;
    }
    default:
      throw refuse(`${String(n.type).replace(/Node$/, '').toLowerCase() || 'this construct'} is not allowed`);
  }
}

function checkScopeValue(name: string, v: unknown): unknown {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new SvcError('INVALID_INPUT', `variable '${name}' must be finite`);
    return v;
  }
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (v.length > MAX_STRING_CONSTANT) throw new SvcError('INVALID_INPUT', `variable '${name}' is longer than ${MAX_STRING_CONSTANT} characters`);
    return v;
  }
  if (Array.isArray(v) && v.length <= MAX_ARRAY_ELEMENTS && v.every((x) => typeof x === 'number' && Number.isFinite(x))) return v.slice();
  throw new SvcError('INVALID_INPUT', `variable '${name}' must be a finite number, a boolean, a short string or a short array of numbers`);
}

/**
 * Parses and checks `expr` against the whitelist. Throws SvcError('INVALID_INPUT') for anything
 * outside it. The returned `evaluate` may be called many times (an RK4 right-hand side).
 */
export function compileSafe(expr: string, opts: { maxLength?: number; maxNodes?: number } = {}): SafeExpression {
  if (typeof expr !== 'string') throw refuse('not a string');
  const maxLength = Math.min(opts.maxLength ?? DEFAULT_MAX_LENGTH, HARD_MAX_LENGTH);
  if (expr.length === 0 || !expr.trim()) throw refuse('empty expression');
  if (expr.length > maxLength) throw refuse(`longer than ${maxLength} characters`);
  if (bracketDepth(expr) > MAX_DEPTH) throw refuse(`brackets nested deeper than ${MAX_DEPTH}`);
  const { smath, parseExpression } = restricted();
  let node: MathNode;
  try {
    node = parseExpression(expr);
  } catch (e) {
    if (e instanceof SvcError) throw e;
    throw refuse(e instanceof RangeError ? 'too deeply nested' : `syntax error: ${(e as Error).message}`);
  }
  const maxNodes = Math.min(opts.maxNodes ?? MAX_NODES, HARD_MAX_NODES);
  // a long sum is a left-deep chain, one level per term: a raised node limit raises the depth limit with it
  const w: Walk = { nodes: 0, maxNodes, maxDepth: Math.max(MAX_AST_DEPTH, maxNodes), symbols: new Set(), functions: new Set() };
  check(node, 0, w);
  for (const f of w.functions) w.symbols.delete(f);
  const rewritten = node.transform((n: any) => {
    if (n.type === 'OperatorNode' && (n.fn === 'equal' || n.fn === 'unequal')) {
      return new (smath as any).FunctionNode(new (smath as any).SymbolNode(n.fn === 'equal' ? 'svcSandboxEqual' : 'svcSandboxUnequal'), n.args);
    }
    return n;
  });
  let code: EvalFunction;
  try {
    code = rewritten.compile();
  } catch (e) {
    throw refuse(`cannot compile: ${(e as Error).message}`);
  }
  const symbols = [...w.symbols].sort();
  const needed = symbols.filter((s) => !(s in ALLOWED_CONSTANTS));
  return {
    symbols: needed,
    functions: [...w.functions].sort(),
    expression: node.toString(),
    nodes: w.nodes,
    node,
    evaluate(scope: Record<string, unknown>): unknown {
      const map = new Map<string, unknown>();
      for (const s of symbols) {
        if (scope && typeof scope === 'object' && Object.prototype.hasOwnProperty.call(scope, s)) map.set(s, checkScopeValue(s, scope[s]));
        else if (s in ALLOWED_CONSTANTS) map.set(s, ALLOWED_CONSTANTS[s]);
        else throw new SvcError('INVALID_INPUT', `expression refused: unknown variable '${s}'`, { issues: [{ path: s, message: 'not provided' }] });
      }
      let r: unknown;
      try {
        r = code.evaluate(map);
      } catch (e) {
        if (e instanceof SvcError) throw e;
        throw new SvcError('INVALID_INPUT', `expression failed: ${(e as Error).message}`);
      }
      if (typeof r === 'number' || typeof r === 'boolean' || typeof r === 'string') return r;
      throw new SvcError('INVALID_INPUT', 'expression must evaluate to a number, boolean or string');
    },
  };
}

/** compileSafe + evaluate to a finite number (the common case). */
export function evaluateNumber(expr: string | SafeExpression, scope: Record<string, unknown>): number {
  const c = typeof expr === 'string' ? compileSafe(expr) : expr;
  const r = c.evaluate(scope);
  const v = typeof r === 'boolean' ? (r ? 1 : 0) : r;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new SvcError('INVALID_INPUT', `expression did not evaluate to a finite number (got ${String(v)})`);
  }
  return v;
}

/** A whitelisted function of the sandbox's mathjs instance, for compilers that evaluate checked
 * trees themselves (src/solvers/lib/expr.ts): the same numeric semantics as `evaluate`. */
export function sandboxFunction(name: string): (...args: number[]) => unknown {
  if (!ALLOWED_FUNCTIONS.has(name)) throw new SvcError('INVALID_INPUT', `function ${name} is not allowed`);
  const f = restricted().smath[name];
  return (...args: number[]) => f(...args);
}
