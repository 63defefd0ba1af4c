// Sandboxed expressions for live compute (stream `vary` maps, reactor `expr`/`map`/`until`).
// The node's sandbox is `compileSafe` in src/core/sandbox.ts (mathjs, whitelisted); this
// module uses it when it is present. Until then (and if it fails to load) a small compiler of
// the same syntax subset stands in: numbers, variables from the scope, + - * / % ^, unary - +,
// comparisons (< <= > >= == !=), and/or/not, the ternary a ? b : c, parentheses, and a fixed
// list of pure Math functions. There are no assignments, no member access, no strings, no
// function definitions and no loops, so evaluation always terminates; `%` and mod() are
// mathjs's floored modulo and `^` is right-associative and binds tighter than unary minus,
// as in mathjs. Both sides evaluate with IEEE-754 doubles through the same Math functions, so
// a reactor trajectory is bit-for-bit the same whichever compiler runs it.
import { existsSync } from 'node:fs';
import { SvcError } from '../core/errors.ts';
import { moduleUrl } from '../core/modules.ts';

export interface CompiledExpr {
  evaluate(scope: Record<string, unknown>): unknown;
  symbols: string[];
}

export type CompileFn = (expr: string, opts?: Record<string, unknown>) => CompiledExpr;

export const MAX_EXPR_LENGTH = 500;

const mod = (x: number, y: number): number => (y === 0 ? x : x - y * Math.floor(x / y));

export const FUNCTIONS: Record<string, (...a: number[]) => number> = {
  abs: Math.abs, sqrt: Math.sqrt, cbrt: Math.cbrt, exp: Math.exp, expm1: Math.expm1,
  log: (x: number, base?: number) => (base === undefined ? Math.log(x) : Math.log(x) / Math.log(base)),
  log10: Math.log10, log2: Math.log2, log1p: Math.log1p,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan, atan2: Math.atan2,
  sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh, asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh,
  floor: Math.floor, ceil: Math.ceil, round: Math.round, fix: Math.trunc, sign: Math.sign,
  min: Math.min, max: Math.max, pow: Math.pow, hypot: Math.hypot, mod,
  square: (x: number) => x * x, cube: (x: number) => x * x * x,
};
const FUNCTION_ARITY: Record<string, [number, number]> = {
  log: [1, 2], atan2: [2, 2], pow: [2, 2], mod: [2, 2], min: [1, 16], max: [1, 16], hypot: [1, 16],
};
export const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

const FORBIDDEN_NAMES = new Set(['constructor', 'prototype', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable',
  'toString', 'valueOf', 'toLocaleString', 'eval', 'Function', 'globalThis', 'process', 'require', 'import', 'this']);

type Node = (s: Record<string, unknown>) => number | boolean;

const bad = (expr: string, why: string) =>
  new SvcError('INVALID_INPUT', `expression '${expr.length > 60 ? expr.slice(0, 57) + '...' : expr}': ${why}`);

interface Token { kind: 'num' | 'id' | 'op' | 'end'; text: string; value?: number }

function tokenize(expr: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    const num = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(expr.slice(i));
    if (num) { out.push({ kind: 'num', text: num[0], value: Number(num[0]) }); i += num[0].length; continue; }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(expr.slice(i));
    if (id) { out.push({ kind: 'id', text: id[0] }); i += id[0].length; continue; }
    const two = expr.slice(i, i + 2);
    if (['<=', '>=', '==', '!='].includes(two)) { out.push({ kind: 'op', text: two }); i += 2; continue; }
    if ('+-*/%^(),?:<>'.includes(c)) { out.push({ kind: 'op', text: c }); i++; continue; }
    throw bad(expr, `unexpected character '${c}'`);
  }
  out.push({ kind: 'end', text: '' });
  return out;
}

const num = (v: number | boolean): number => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
const truthy = (v: number | boolean): boolean => (typeof v === 'boolean' ? v : v !== 0 && !Number.isNaN(v));

/** The stand-in compiler (see the file comment). Throws SvcError INVALID_INPUT. */
export function compileLocal(expr: string): CompiledExpr {
  if (typeof expr !== 'string' || !expr.trim()) throw bad(String(expr), 'empty');
  if (expr.length > MAX_EXPR_LENGTH) throw bad(expr, `longer than ${MAX_EXPR_LENGTH} characters`);
  const toks = tokenize(expr);
  let p = 0;
  let depth = 0;
  const symbols = new Set<string>();
  const peek = () => toks[p];
  const take = (text?: string): Token => {
    const t = toks[p];
    if (text !== undefined && t.text !== text) throw bad(expr, `expected '${text}' but found '${t.text || 'end'}'`);
    p++;
    return t;
  };
  const enter = () => { if (++depth > 64) throw bad(expr, 'nested too deeply'); };
  const isWord = (w: string) => peek().kind === 'id' && peek().text === w;

  function ternary(): Node {
    enter();
    const cond = or();
    if (peek().text === '?') {
      take('?');
      const a = ternary();
      take(':');
      const b = ternary();
      depth--;
      return (s) => (truthy(cond(s)) ? a(s) : b(s));
    }
    depth--;
    return cond;
  }
  function or(): Node {
    let left = and();
    while (isWord('or')) { take(); const l = left, r = and(); left = (s) => truthy(l(s)) || truthy(r(s)); }
    return left;
  }
  function and(): Node {
    let left = compare();
    while (isWord('and')) { take(); const l = left, r = compare(); left = (s) => truthy(l(s)) && truthy(r(s)); }
    return left;
  }
  function compare(): Node {
    let left = additive();
    while (['<', '<=', '>', '>=', '==', '!='].includes(peek().text) && peek().kind === 'op') {
      const op = take().text;
      const l = left, r = additive();
      left = op === '<' ? (s) => num(l(s)) < num(r(s))
        : op === '<=' ? (s) => num(l(s)) <= num(r(s))
        : op === '>' ? (s) => num(l(s)) > num(r(s))
        : op === '>=' ? (s) => num(l(s)) >= num(r(s))
        : op === '==' ? (s) => num(l(s)) === num(r(s))
        : (s) => num(l(s)) !== num(r(s));
    }
    return left;
  }
  function additive(): Node {
    let left = multiplicative();
    while ((peek().text === '+' || peek().text === '-') && peek().kind === 'op') {
      const op = take().text;
      const l = left, r = multiplicative();
      left = op === '+' ? (s) => num(l(s)) + num(r(s)) : (s) => num(l(s)) - num(r(s));
    }
    return left;
  }
  function multiplicative(): Node {
    let left = unary();
    while (['*', '/', '%'].includes(peek().text) && peek().kind === 'op') {
      const op = take().text;
      const l = left, r = unary();
      left = op === '*' ? (s) => num(l(s)) * num(r(s)) : op === '/' ? (s) => num(l(s)) / num(r(s)) : (s) => mod(num(l(s)), num(r(s)));
    }
    return left;
  }
  function unary(): Node {
    enter();
    let out: Node;
    if (peek().kind === 'op' && (peek().text === '-' || peek().text === '+')) {
      const op = take().text;
      const inner = unary();
      out = op === '-' ? (s) => -num(inner(s)) : (s) => num(inner(s));
    } else if (isWord('not')) {
      take();
      const inner = unary();
      out = (s) => !truthy(inner(s));
    } else out = power();
    depth--;
    return out;
  }
  function power(): Node {
    const base = primary();
    if (peek().text === '^' && peek().kind === 'op') {
      take();
      const exp = unary(); // right-associative; 2^-1 allowed, as in mathjs
      return (s) => Math.pow(num(base(s)), num(exp(s)));
    }
    return base;
  }
  function primary(): Node {
    const t = peek();
    if (t.kind === 'num') { take(); const v = t.value!; if (!Number.isFinite(v)) throw bad(expr, `number ${t.text} is not finite`); return () => v; }
    if (t.kind === 'op' && t.text === '(') { take(); const inner = ternary(); take(')'); return inner; }
    if (t.kind === 'id') {
      take();
      const name = t.text;
      if (['and', 'or', 'not'].includes(name)) throw bad(expr, `unexpected '${name}'`);
      if (FORBIDDEN_NAMES.has(name) || name.startsWith('__')) throw bad(expr, `symbol '${name}' is not allowed`);
      if (peek().text === '(' && peek().kind === 'op') {
        const fn = FUNCTIONS[name];
        if (!fn) throw bad(expr, `unknown function '${name}'`);
        take('(');
        const args: Node[] = [];
        if (peek().text !== ')') {
          args.push(ternary());
          while (peek().text === ',') { take(','); args.push(ternary()); }
        }
        take(')');
        const [lo, hi] = FUNCTION_ARITY[name] ?? [1, 1];
        if (args.length < lo || args.length > hi) throw bad(expr, `${name}() takes ${lo === hi ? lo : `${lo} to ${hi}`} argument${hi > 1 ? 's' : ''}`);
        if (args.length === 1) { const a = args[0]; return (s) => fn(num(a(s))); }
        if (args.length === 2) { const a = args[0], b = args[1]; return (s) => fn(num(a(s)), num(b(s))); }
        return (s) => fn(...args.map((a) => num(a(s))));
      }
      if (name in CONSTANTS) {
        const v = CONSTANTS[name];
        symbols.add(name);
        return (s) => (Object.prototype.hasOwnProperty.call(s, name) ? scalar(s[name], name) : v);
      }
      symbols.add(name);
      return (s) => {
        if (!Object.prototype.hasOwnProperty.call(s, name)) throw bad(expr, `undefined symbol '${name}'`);
        return scalar(s[name], name);
      };
    }
    throw bad(expr, t.kind === 'end' ? 'unexpected end' : `unexpected '${t.text}'`);
  }
  function scalar(v: unknown, name: string): number | boolean {
    if (typeof v === 'number' || typeof v === 'boolean') return v;
    throw bad(expr, `'${name}' is not a number`);
  }

  const root = ternary();
  if (peek().kind !== 'end') throw bad(expr, `unexpected '${peek().text}'`);
  return { evaluate: (scope) => root(scope), symbols: [...symbols] };
}

let compilerPromise: Promise<{ compile: CompileFn; source: string }> | null = null;

/** compileSafe of src/core/sandbox.ts when it exists and loads, else the stand-in. */
export function expressionCompiler(): Promise<{ compile: CompileFn; source: string }> {
  compilerPromise ??= (async () => {
    const url = moduleUrl('../core/sandbox.ts', import.meta.url);
    try {
      if (existsSync(url)) {
        const m: any = await import(url.href);
        if (typeof m.compileSafe === 'function') return { compile: m.compileSafe as CompileFn, source: 'operators/sandbox' };
      }
    } catch { /* fall through to the stand-in */ }
    return { compile: compileLocal, source: 'live/expr' };
  })();
  return compilerPromise;
}

/** A compiled expression that only reads the allowed names. */
export async function compileChecked(expr: string, allowed: Iterable<string>, where: string): Promise<CompiledExpr> {
  const { compile } = await expressionCompiler();
  let c: CompiledExpr;
  try {
    c = compile(expr);
  } catch (e) {
    if (e instanceof SvcError) throw new SvcError('INVALID_INPUT', `${where}: ${e.message}`, { issues: [{ path: where, message: e.message }] });
    throw new SvcError('INVALID_INPUT', `${where}: the expression does not parse`, { issues: [{ path: where, message: 'does not parse' }] });
  }
  const ok = new Set(allowed);
  const unknown = (c.symbols ?? []).filter((s) => !ok.has(s) && !(s in CONSTANTS) && !(s in FUNCTIONS));
  if (unknown.length) {
    const msg = `unknown name${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')}; available: ${[...ok].sort().join(', ')}`;
    throw new SvcError('INVALID_INPUT', `${where}: ${msg}`, { issues: [{ path: where, message: msg }] });
  }
  return c;
}

/** Evaluates to a number: booleans are 1/0; anything else (a matrix, a unit, a string) is refused. */
export function evalNumber(c: CompiledExpr, scope: Record<string, unknown>, where: string): number {
  let v: unknown;
  try {
    v = c.evaluate(scope);
  } catch (e) {
    throw new SvcError('INVALID_INPUT', `${where}: ${e instanceof Error ? e.message : 'evaluation failed'}`);
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (v && typeof (v as any).valueOf === 'function' && typeof (v as any).valueOf() === 'number') return (v as any).valueOf();
  throw new SvcError('INVALID_INPUT', `${where}: the expression did not give a number`);
}

export function evalTruth(c: CompiledExpr, scope: Record<string, unknown>, where: string): boolean {
  const v = evalNumber(c, scope, where);
  return v !== 0 && !Number.isNaN(v);
}

/** Variable names of state, inputs and parameters. */
export const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
export const RESERVED_NAMES = new Set(['and', 'or', 'not', ...Object.keys(FUNCTIONS), ...Object.keys(CONSTANTS)]);
