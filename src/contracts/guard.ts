// Guards and `set` assignments are sandboxed expressions compiled by the node's one safe
// evaluator (src/core/sandbox.ts, `compileSafe`): no property access to prototypes, no
// function definitions, no imports, only whitelisted functions. This module adds a bounded cache
// (definitions are re-read on every fire) and the truthiness rule of a guard.
import { compileSafe } from '../core/sandbox.ts';

export interface CompiledExpression {
  evaluate(scope: Record<string, unknown>): unknown;
  symbols: string[];
}

const CACHE_MAX = 4096;
const cache = new Map<string, CompiledExpression>();

/** Compiles (or returns the cached compilation of) an expression. Throws SvcError INVALID_INPUT
 * for a malformed or unsafe expression. */
export function compileExpression(expr: string): CompiledExpression {
  const hit = cache.get(expr);
  if (hit) return hit;
  const c = compileSafe(expr);
  const compiled: CompiledExpression = { evaluate: (scope) => c.evaluate(scope), symbols: [...new Set(c.symbols)] };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(expr, compiled);
  return compiled;
}

/** A guard passes when it evaluates to `true`, or to a finite non-zero number. Anything else
 * (false, 0, NaN, a string, a matrix, an error) blocks. */
export function guardPasses(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) && value !== 0;
  return false;
}
