// Schema helpers shared by the operation declarations, OpenAPI and MCP: zod → JSON Schema, and
// the common `folder` field.
import { z } from 'zod';
import type { Operation } from './types.ts';

const FOLDER_RE = /^[A-Za-z0-9._-]{1,64}$/;
export const folderField = z.string().regex(FOLDER_RE, 'folder: 1-64 characters of A-Z a-z 0-9 . _ -').optional();

/** The field shape of a zod object schema ({} for anything else). */
export function shapeOf(schema: unknown): Record<string, z.ZodType> {
  const s: any = schema;
  return s.shape ?? s._zod?.def?.shape ?? {};
}

/** The JSON Schema of a zod schema, as the request's input (no `$schema`). */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}

/** The JSON Schema of an operation's input: its own `jsonSchema` (set for every registered
 * operation when the registry loads it), else derived from the zod schema. */
export function jsonSchemaOf(op: Operation): Record<string, any> {
  return op.jsonSchema ?? toJsonSchema(op.input);
}

/** The JSON Schema of a zod schema read as an answer ('output' mode, no `$schema`); schemas with
 * an `id` in their metadata (src/ops/outputs.ts) are put once under `$defs`. */
export function toOutputJsonSchema(schema: z.ZodType): Record<string, any> {
  const js = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete js.$schema;
  return withoutSafeIntegerBounds(js);
}

/** zod writes the safe-integer range on every `.int()`: in an answer it says nothing. */
function withoutSafeIntegerBounds<T>(x: T): T {
  if (Array.isArray(x)) return x.map(withoutSafeIntegerBounds) as T;
  if (!x || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    if ((k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)) continue;
    out[k] = withoutSafeIntegerBounds(v);
  }
  return out as T;
}

/** The JSON Schema of an operation's success answer, self-contained (`$defs`), or null when its
 * shape is not declared. */
export function outputSchemaOf(op: Operation): Record<string, any> | null {
  if (op.outputJsonSchema) return op.outputJsonSchema;
  if (!op.output) return null;
  let js = outputCache.get(op);
  if (!js) { js = toOutputJsonSchema(op.output); outputCache.set(op, js); }
  return js;
}
const outputCache = new WeakMap<Operation, Record<string, any>>();
