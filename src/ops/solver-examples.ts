// The recorded example of every solver (src/ops/solver-examples.json, written by
// scripts/record-solver-examples.ts): one request and the sealed answer a node gave for it. The
// OpenAPI document shows both, and each solver's `result` schema is derived from its recorded
// result: a solver descriptor declares its input, not its result, and running every solver when
// the document is built would cost seconds of CPU (a recording costs nothing at run time).
// The derived schema names the fields of the recorded run with their JSON types and requires
// none of them (another mode of the same solver may add or omit fields); it stays open to more.
import { readFileSync } from 'node:fs';
import { sealedResultJsonSchema } from './outputs.ts';

export interface SolverExample { request: Record<string, unknown>; response: Record<string, any> }

let examples: Record<string, SolverExample> | null = null;

/** The recorded example of solver `name`, or null when none was recorded (a new solver: run the recorder). */
export function solverExample(name: string): SolverExample | null {
  examples ??= JSON.parse(readFileSync(new URL('./solver-examples.json', import.meta.url), 'utf8')) as Record<string, SolverExample>;
  return Object.hasOwn(examples, name) ? examples[name] : null;
}

/** A JSON Schema describing `v` by its JSON types (arrays: the merge of their elements). */
export function inferSchema(v: unknown): Record<string, unknown> {
  if (v === null) return {};
  if (typeof v === 'number') return { type: 'number' };
  if (typeof v === 'string') return { type: 'string' };
  if (typeof v === 'boolean') return { type: 'boolean' };
  if (Array.isArray(v)) {
    if (!v.length) return { type: 'array' };
    return { type: 'array', items: v.map(inferSchema).reduce(mergeSchemas) };
  }
  if (typeof v === 'object') {
    return { type: 'object', properties: Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, nullable(inferSchema(x))])) };
  }
  return {};
}

/** A field of a result object may be null where another option of the solver gives it no meaning
 * (a 1-D heat run's ny, dy and ky; a frequency that could not be measured; multibody's kepler block
 * without a two-body orbit; sat's assignment of an unsatisfiable formula): the solvers' convention
 * is null, not a missing field (issue 29: a 1-D svc_heat answer must validate against its schema). */
function nullable(s: Record<string, unknown>): Record<string, unknown> {
  return typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : s;
}

/** The least schema of this kind covering both (different kinds: no constraint). */
function mergeSchemas(a: Record<string, any>, b: Record<string, any>): Record<string, unknown> {
  if (!a.type || !b.type || JSON.stringify(a.type) !== JSON.stringify(b.type)) return {};
  if (a.type === 'array') {
    if (!a.items || !b.items) return { type: 'array', ...(a.items ?? b.items ? { items: a.items ?? b.items } : {}) };
    return { type: 'array', items: mergeSchemas(a.items, b.items) };
  }
  if (a.type === 'object') {
    const props: Record<string, any> = { ...a.properties };
    for (const [k, s] of Object.entries<any>(b.properties ?? {})) props[k] = k in props ? mergeSchemas(props[k], s) : s;
    return { type: 'object', properties: props };
  }
  return a;
}

/** The component name of a solver's result schema: 'heat' → 'HeatResult'. */
export const resultSchemaName = (solver: string) => `${solver[0].toUpperCase()}${solver.slice(1)}Result`;

/** JSON Schema (self-contained: `$defs`) of solver `name`'s sealed answer: SealedResult with its
 * solver, domain and unit fixed and its `result` fields derived from the recorded example. */
export function solverOutputJsonSchema(d: { name: string; domain: string; unit: string }): Record<string, unknown> {
  const ex = solverExample(d.name);
  const resultName = resultSchemaName(d.name);
  const result = ex ? inferSchema(ex.response.result) : { type: 'object' };
  return {
    type: 'object',
    allOf: [
      { $ref: '#/$defs/SealedResult' },
      {
        type: 'object',
        properties: {
          solver: { const: d.name },
          domain: { const: d.domain },
          unit: { const: d.unit },
          result: { $ref: `#/$defs/${resultName}` },
        },
      },
    ],
    $defs: {
      ...sealedResultJsonSchema().$defs,
      [resultName]: {
        ...result,
        description: `The ${d.name} solver's result. ${ex ? 'Fields of a run with the example request; other options may add or omit some.' : 'Fields not recorded yet.'}`,
      },
    },
  };
}
