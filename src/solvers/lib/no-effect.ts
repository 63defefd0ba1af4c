// Nothing the caller sends is silently ignored (DESIGN §9): a field that has no effect for the
// options given is a 400 INVALID_INPUT naming the field and why. The solver schemas state these
// cross-field rules in a superRefine, which must see what the caller sent: a field whose default
// would hide that is declared optional and its default filled in afterwards by `.overwrite`
// (`withDefaults`), only where it takes effect, so the parsed input (the receipt's `input`) lists
// the defaults used and parses again to itself.
import type { z } from 'zod';
import { refuse, type SvcError } from '../../core/errors.ts';

/** Adds the issue `<path>: has no effect <why>` to a schema refinement. `path` is dotted
 * ('bodies.1.velocity'); numeric parts become indices. */
export function noEffect(ctx: z.RefinementCtx<any>, path: string, why: string): void {
  ctx.addIssue({ code: 'custom', path: path.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), message: `has no effect ${why}` });
}

/** The same rule at run time (for a rule that needs the computed problem): a refusal with the
 * message `<path>: has no effect <why>` and the issue `{path, message}`. */
export function noEffectRefusal(path: string, why: string): SvcError {
  const message = `has no effect ${why}`;
  return refuse('INVALID_INPUT', `${path}: ${message}`, { issues: [{ path, message }] });
}

/** The keys of `fields` that the caller sent (not undefined in `v`). */
export function sent<T extends Record<string, unknown>>(v: T, fields: readonly (keyof T & string)[]): (keyof T & string)[] {
  return fields.filter((k) => v[k] !== undefined);
}

/** `.overwrite` callback filling each absent field of `defaults` (after the checks have seen what
 * was sent). Give only the defaults that take effect for the options sent (a function of the
 * parsed input), so that the parsed input (the receipt's `input`) lists what was used and parses
 * again unchanged: a filled default of a field that has no effect would be refused on the way
 * back in. */
export function withDefaults<T extends Record<string, unknown>>(defaults: Partial<T> | ((v: T) => Partial<T>)) {
  return (v: T): T => {
    const d = typeof defaults === 'function' ? defaults(v) : defaults;
    const out: Record<string, unknown> = { ...v };
    for (const [k, x] of Object.entries(d)) if (out[k] === undefined && x !== undefined) out[k] = x;
    return out as T;
  };
}
