// Input validation shared by HTTP, MCP and in-process dispatch: a zod failure becomes one
// 400 INVALID_INPUT body with {path, message} issues.
import type { z } from 'zod';
import { SvcError } from '../core/errors.ts';

export function parseInput<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const r = schema.safeParse(data ?? {});
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 50).map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
  const first = issues[0];
  throw new SvcError('INVALID_INPUT', `invalid input: ${first.path}: ${first.message}`, { issues });
}
