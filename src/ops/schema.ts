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

/** Keywords that constrain a value (JSON Schema 2020-12): a (sub)schema with none of them accepts
 * anything, which MCP clients that map schemas to a single-type dialect cannot express. */
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'format', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required',
  'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'properties', 'additionalProperties', '$ref',
]);

/** A JSON Schema rewritten to the portable subset tool clients accept (what the MCP Inspector's
 * schema check asks for): no `$schema`, no type arrays (`anyOf` of single types instead), no
 * always-true subschemas (`{}` as `additionalProperties` or `propertyNames` is dropped, being the
 * default), no boolean subschemas (a tuple's `items: false` becomes `maxItems`). For an answer's schema (`output`), objects stay open: an answer may carry more fields
 * than the schema lists. Throws on a subschema that still constrains nothing (a bug in a
 * declaration: say what the value is). */
export function portableSchema(schema: Record<string, unknown>, opts: { output?: boolean } = {}): Record<string, any> {
  const walk = (s: any, path: string): any => {
    if (typeof s === 'boolean' || !s || typeof s !== 'object' || Array.isArray(s)) throw new Error(`${path}: not a schema object`);
    const out: Record<string, any> = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$schema') continue;
      if (k === 'propertyNames' && (v as any)?.type === 'string' && Object.keys(v as object).length === 1) continue;
      if (k === 'additionalProperties') {
        if (v === false && opts.output) continue;
        if (v && typeof v === 'object' && !Object.keys(v).length) continue;
        out[k] = typeof v === 'boolean' ? v : walk(v, `${path}.${k}`);
      } else if (k === 'properties' || k === '$defs' || k === 'patternProperties') {
        out[k] = Object.fromEntries(Object.entries(v as object).map(([n, sub]) => [n, walk(sub, `${path}.${n}`)]));
      } else if (k === 'items' && typeof v === 'boolean' && Array.isArray(s.prefixItems)) {
        // a tuple: `items: false` after prefixItems is maxItems (a boolean schema is not portable)
        if (v === false) out.maxItems = Math.min(s.maxItems ?? Infinity, s.prefixItems.length);
      } else if (k === 'items' || k === 'not' || k === 'propertyNames' || k === 'contains') {
        out[k] = walk(v, `${path}.${k}`);
      } else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') {
        out[k] = (v as any[]).map((sub, i) => walk(sub, `${path}.${k}[${i}]`));
      } else out[k] = v;
    }
    if (Array.isArray(out.type)) {
      const types: string[] = out.type;
      delete out.type;
      const branches = types.map((t) => ({ type: t }));
      out.anyOf = out.anyOf ? [{ anyOf: out.anyOf }, { anyOf: branches }] : branches;
    }
    if (!Object.keys(out).some((k) => CONSTRAINING.has(k))) throw new Error(`${path || '(root)'}: the schema constrains nothing; declare the value's type`);
    return out;
  };
  return walk(schema, '');
}

/** The MCP outputSchema of a tool: its compact `toolOutput` where it declares one, else its
 * `output`, in the portable subset (undefined when it declares neither). */
export function toolOutputSchemaOf(op: Operation): Record<string, any> | undefined {
  const decl = op.toolOutput ?? op.output;
  if (!decl) return undefined;
  const raw = '_zod' in decl
    ? z.toJSONSchema(decl as z.ZodType, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>
    : decl as Record<string, unknown>;
  return portableSchema(raw, { output: true });
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

/** Defines `op.jsonSchema` as computed on first read and kept: converting every operation's zod
 * schema to JSON Schema while the node started took ~0.35 s of the main thread's CPU before its
 * first answer (profiled at load 6; issue 28). */
export function lazyJsonSchema(op: Operation, make: () => Record<string, unknown>): void {
  Object.defineProperty(op, 'jsonSchema', {
    configurable: true, enumerable: true,
    get() { const v = make(); Object.defineProperty(op, 'jsonSchema', { value: v, writable: true, configurable: true, enumerable: true }); return v; },
    set(v) { Object.defineProperty(op, 'jsonSchema', { value: v, writable: true, configurable: true, enumerable: true }); },
  });
}
