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
