// JSON bodies with a nesting-depth limit (DESIGN §9): a body nested deeper than MAX_JSON_DEPTH is
// refused before it is parsed, so no recursive walk further in (validation, canonical JSON,
// hashing) can overflow the stack.
import { SvcError } from './errors.ts';

export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in a JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) { if (++depth > max) max = depth; } else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/** JSON.parse with the depth limit: a SvcError INVALID_INPUT past it, a SyntaxError for bad JSON. */
export function parseJsonBody(text: string): unknown {
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) throw new SvcError('INVALID_INPUT', `the JSON body is nested ${depth} levels deep; at most ${MAX_JSON_DEPTH} are allowed`);
  return JSON.parse(text);
}
