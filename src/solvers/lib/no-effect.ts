// Nothing the caller sends is silently ignored (DESIGN §9): a field that has no effect for the
// options given is a 400 INVALID_INPUT naming the field and why. The solver schemas state these
// cross-field rules in a superRefine, which must see what the caller sent: a field whose default
// would hide that is declared optional and its default filled in afterwards by `.overwrite`
// (`withDefaults`), so the parsed input, the receipt and the derived seed stay those of a schema
// default.
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
 * was sent). */
export function withDefaults<D extends Record<string, unknown>>(defaults: D) {
  return <T extends Record<string, unknown>>(v: T): T => {
    const out: Record<string, unknown> = { ...v };
    for (const [k, d] of Object.entries(defaults)) if (out[k] === undefined) out[k] = d;
    return out as T;
  };
}
