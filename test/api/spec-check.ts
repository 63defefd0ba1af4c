// Checks an answer against what /openapi.json declares for it: the response schema of its
// operation and status, compiled with Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect), with the
// document's components reachable from every schema.
import { Ajv2020 } from 'ajv/dist/2020.js';

export interface SpecChecker {
  /** the declared schema's errors for this answer ([] when it conforms); throws when nothing is declared */
  check(method: string, path: string, status: number, body: unknown): string[];
  /** the OpenAPI path template a concrete path matches */
  templateOf(path: string): string | null;
}

export function specChecker(spec: any): SpecChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'svc:components', components: spec.components });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const templates = Object.keys(spec.paths).map((p) => ({ p, re: new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`) }));
  const templateOf = (path: string) => {
    const bare = path.split('?')[0];
    // a literal path wins over a templated one (/api/contracts/templates before /api/contracts/{id})
    return templates.find((t) => t.p === bare)?.p ?? templates.find((t) => t.re.test(bare))?.p ?? null;
  };
  return {
    templateOf,
    check(method, path, status, body) {
      const tpl = templateOf(path);
      if (!tpl) throw new Error(`no OpenAPI path for ${path}`);
      const op = spec.paths[tpl][method.toLowerCase()];
      if (!op) throw new Error(`no OpenAPI operation ${method} ${tpl}`);
      const resp = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
      if (!resp) throw new Error(`${method} ${tpl} declares no ${status}`);
      const schema = resp.content?.['application/json']?.schema;
      if (!schema) throw new Error(`${method} ${tpl} ${status}: no JSON schema`);
      const key = `${method} ${tpl} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(rebase(schema));
        compiled.set(key, validate);
      }
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${e.params.additionalProperty}` : ''}`);
    },
  };
}

/** Refs into the document (#/components/…) point at the schema registered as svc:components. */
function rebase<T>(x: T): T {
  if (Array.isArray(x)) return x.map(rebase) as T;
  if (!x || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/') ? `svc:components${v}` : rebase(v);
  return out as T;
}
