// How the operations look to an MCP client (DESIGN §11, issue 21): tool definitions with a title,
// the four behaviour annotations, a compact input schema and an output schema; the server's
// instructions; and tool results as a short text, a link to the full receipt and the whole answer
// as `structuredContent`.
//
// Size: `tools/list` is read into a model's context on every connection, so it is kept under
// 40 KB for every tool together (test/mcp/tools.test.ts; 36 KB for 58 tools). The schemas are
// therefore compact forms of the declarations: for the input, every top-level field with its type,
// its enumeration and whether it is required, and the item type of a list of values; not the field
// descriptions, defaults and bounds (the tool's one-line description names what matters; the node
// refuses what is out of bounds, naming the bound) and not the inside of nested objects. The
// complete schema of a tool, every field described, is `svc://tools/{name}/schema`
// (resources/read) and `/openapi.json`. The fields every solver shares are described once, in the
// instructions, and not listed per tool (`series`, which only MCP has, is).
import type { App, Operation } from '../ops/types.ts';
import { jsonSchemaOf, toolOutputSchemaOf, portableSchema } from '../ops/schema.ts';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, any>;
  outputSchema?: Record<string, any>;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** The operations MCP serves as tools (admin operations never are). */
export function toolOperations(app: App): Operation[] {
  return app.operations.filter((o) => o.tool && o.access !== 'admin');
}


/** One field of an input schema in compact form (see the head of this file). */
function compactField(s: any, depth: number): any {
  if (s.anyOf || s.oneOf) {
    const branches: any[] = (s.anyOf ?? s.oneOf).map((b: any) => compactField(b, depth + 1));
    const seen = new Map<string, any>();
    for (const b of branches) seen.set(JSON.stringify(b), b);
    const uniq = [...seen.values()];
    if (uniq.length === 1) return uniq[0];
    // a union of literals of one type is an enumeration
    const t = uniq[0].type;
    if (uniq.every((b) => b.const !== undefined && b.type === t && Object.keys(b).length === 2)) return { type: t, enum: uniq.map((b) => b.const) };
    return { anyOf: uniq };
  }
  const out: Record<string, any> = {};
  if (s.type !== undefined) out.type = s.type;
  if (s.const !== undefined) out.const = s.const;
  if (s.enum) out.enum = s.enum;
  // the items of a top-level array when they are numbers, integers or strings (a list of values);
  // arrays of arrays and of objects say only that they are arrays
  if (s.type === 'array' && s.items && depth === 0 && ['number', 'integer', 'string'].includes(s.items.type)) {
    out.items = { type: s.items.type, ...(s.items.enum ? { enum: s.items.enum } : {}) };
  }
  if (!Object.keys(out).length) out.type = 'object'; // a free-form value: never an always-true schema
  return out;
}

/** The compact input schema of a tool (series opt-in added for operations that have series). */
export function compactInputSchema(op: Operation): Record<string, any> {
  const full = portableSchema({ type: 'object', ...jsonSchemaOf(op) });
  const props: Record<string, any> = {};
  const shared = new Set(op.sharedFields ?? []);
  for (const [k, v] of Object.entries<any>(full.properties ?? {})) if (!shared.has(k)) props[k] = compactField(v, 0);
  if (op.seriesOptIn) props.series = { type: 'boolean' };
  const out: Record<string, any> = { type: 'object', properties: props };
  if (full.required?.length) out.required = full.required;
  return out;
}

/** The schema resource of a tool (svc://tools/<name>/schema): the same fields, required set and
 * types as its tools/list input schema (compactInputSchema), each field in full (every description
 * and constraint). The fields the solver family shares (folder, sample, …) are left out of both and
 * named in `description` (they are described once, in the server's instructions); `series` is the
 * MCP opt-in (issue 29: the resource and tools/list describe the same arguments). */
export function toolSchemaResource(op: Operation): Record<string, any> {
  const full = portableSchema({ type: 'object', ...jsonSchemaOf(op) });
  const shared = new Set(op.sharedFields ?? []);
  const props: Record<string, any> = {};
  for (const [k, v] of Object.entries<any>(full.properties ?? {})) if (!shared.has(k)) props[k] = v;
  if (op.seriesOptIn) props.series = { type: 'boolean', description: 'MCP only: true sends the answer\'s series (sample sends them too); false or left out, the answer has none' };
  const out: Record<string, any> = { ...full, type: 'object', properties: props };
  if (shared.size) out.description = `${full.description ? `${full.description} ` : ''}Also accepted, described in the server's instructions: ${[...shared].join(', ')}.`;
  if (full.required?.length) out.required = full.required; else delete out.required;
  return out;
}

/** The compact form of an answer's schema: `required` names the fields always there, and
 * `properties` types the booleans among them (the answer to a question: valid, fired, delivered);
 * what each field holds is told by the tool's description and, for sealed answers, the
 * instructions. The declaration itself (`Operation.output`) is complete and is what the
 * tests check every answer against. */
function compactOutputSchema(full: Record<string, any>): Record<string, any> {
  const props: Record<string, any> = {};
  for (const k of full.required ?? []) if (full.properties?.[k]?.type === 'boolean') props[k] = { type: 'boolean' };
  return { type: 'object', ...(Object.keys(props).length ? { properties: props } : {}), ...(full.required?.length ? { required: full.required } : {}) };
}

/** Longest tool description when an operation has no `brief`: its summary up to a clause
 * boundary (the full text is in OpenAPI and the catalog). */
const MAX_DESCRIPTION = 120;

function describeOp(op: Operation): string {
  if (op.brief) return op.brief;
  const s = op.summary.trim();
  if (s.length <= MAX_DESCRIPTION) return s;
  const head = s.slice(0, MAX_DESCRIPTION);
  const cut = Math.max(head.lastIndexOf('; '), head.lastIndexOf('. '), head.lastIndexOf(': '), head.lastIndexOf(', '));
  return (cut > MAX_DESCRIPTION / 2 ? head.slice(0, cut) : head.slice(0, head.lastIndexOf(' '))) + ' …';
}

const cache = new WeakMap<App, ToolDefinition[]>();

/** Every tool's definition, in the registry's (the spec's) order; computed once per app. */
export function toolDefinitions(app: App): ToolDefinition[] {
  const hit = cache.get(app);
  if (hit) return hit;
  const defs = toolOperations(app).map((op): ToolDefinition => {
    // every tool declares its title and hints (test/mcp/tools.test.ts); one that does not gets
    // its name and the MCP defaults (the most cautious reading: may change, delete, reach out)
    const h = op.hints ?? { readOnly: false, destructive: true, idempotent: false, openWorld: true };
    const full = toolOutputSchemaOf(op);
    const outputSchema = full && compactOutputSchema(full);
    return {
      name: op.tool!,
      title: op.title ?? op.tool!.replace(/^svc_/, '').replace(/_/g, ' '),
      description: describeOp(op),
      inputSchema: compactInputSchema(op),
      ...(outputSchema ? { outputSchema } : {}),
      annotations: { readOnlyHint: h.readOnly, destructiveHint: h.destructive, idempotentHint: h.idempotent, openWorldHint: h.openWorld },
    };
  });
  cache.set(app, defs);
  return defs;
}

/** The URI of a receipt as an MCP resource (resources/read gives the whole sealed receipt to the
 * machine that owns it). */
export const RECEIPT_URI_TEMPLATE = 'svc://receipts/{id}';
export const receiptUri = (id: string) => `svc://receipts/${id}`;
/** The complete input schema of a tool, every field described (resources/read). */
export const SCHEMA_URI_TEMPLATE = 'svc://tools/{name}/schema';
export const schemaUri = (name: string) => `svc://tools/${name}/schema`;

/** What an MCP client is told on connecting (`instructions`): how to get a key, what a receipt
 * is and how to check one, and the fields every solver tool shares (described here once). */
export function instructions(app: App): string {
  const base = app.config.baseUrl;
  return [
    'svc runs deterministic numerical solvers and seals every result in a signed receipt.',
    'Keys. Look-ups (svc_pulse, svc_list_operators, svc_paper_search, …) need no key. Everything else needs Authorization: Bearer <key>, either '
      + `a machine key: POST ${base}/api/demo-key/mint gives a demo key, and svc_spin_up called with it gives a machine key (svc_ak_…, shown once, with daily compute tokens); `
      + `or OAuth: this server is an OAuth protected resource (${base}/.well-known/oauth-protected-resource); a client registers, the machine owner approves the request with the machine key, and tokens with the scope compute run solvers charged to that machine (machine:read reads its receipts).`,
    'Results. A solver tool answers a short text (value and unit, its relative error named as a distance to the reference or the method’s own estimate, a Monte Carlo standard error apart, the reference it was checked against, the receipt id) and a link to the receipt; structuredContent holds the whole answer: '
      + 'value, unit, result (named outputs), precision {errorPct, boundPct, reference, withinBound}, stability, seed, input, svcState {operators, masterSum, svcond}, t, svcProof, keyPrefix, receipt {id, version, issuedAt, folder, chain {seq, hash}}, tokens {cost, remaining}, signature.',
    'Receipt: the node\'s signed statement that this value came from this input. svcProof is an HMAC over the operators, R_t, svcond, keyPrefix, value and unit; '
      + `signature is Ed25519 over the RFC 8785 canonical JSON of the receipt (keys: ${base}/.well-known/jwks.json); each receipt is appended to the machine's hash chain (GET /api/chain/verify).`,
    'Verify: call svc_verify with proof = svcProof, operatorIds = svcState.operators, R_t = svcState.masterSum, zeqond = svcState.svcond, keyPrefix, value and unit; or read the receipt with resources/read svc://receipts/<id> (your own receipts).',
    'Fields every solver tool (svc_heat, svc_quant, …) also takes: series (true: include the time series, which are left out over MCP by default), sample (points per series, 2-2000; implies series), '
      + 'folder (receipt folder, default "default"), acceptOutOfBound (seal a result whose check fails instead of refusing it with PRECISION_REFUSED), query (a label kept in the receipt), '
      + 'operators (operator ids added to the chain), inputs (numeric fields merged under the top-level ones), domain (must match the solver\'s). '
      + 'Tool input schemas are compact; each field\'s description is in svc://tools/<name>/schema (resources/read) and in /openapi.json.',
    'Errors: a refused call is a result with isError: true whose text is the JSON error body {ok: false, error, code, issues?}; codes: INVALID_INPUT (with issues), UNAUTHORIZED, FORBIDDEN, NOT_FOUND, PRECISION_REFUSED, UNSTABLE, QUOTA_EXCEEDED (retryAfterSeconds), RATE_LIMITED, UPSTREAM_UNAVAILABLE.',
  ].join('\n');
}

type Content = { type: 'text'; text: string } | { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string };
export interface ToolResult { content: Content[]; structuredContent?: Record<string, unknown>; isError?: boolean; [k: string]: unknown }

/** A number for a person: 6 significant digits, no trailing zeros. */
function num(x: unknown): string {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  if (x === 0 || (Math.abs(x) >= 1e-4 && Math.abs(x) < 1e9)) return String(Number(x.toPrecision(6)));
  return x.toExponential(5).replace(/\.?0+e/, 'e');
}

/** At most `n` scalar entries of a result, as `name = value` (numbers, booleans, short strings). */
function scalars(result: unknown, n: number): string[] {
  if (!result || typeof result !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(result)) {
    if (out.length >= n) break;
    if (typeof v === 'number') out.push(`${k} = ${num(v)}`);
    else if (typeof v === 'boolean') out.push(`${k} = ${v}`);
    else if (typeof v === 'string' && v.length <= 40) out.push(`${k} = ${v}`);
  }
  return out;
}

/** Whether precision.errorPct is a distance to an independent reference (an analytic value, a
 * closed form, a known optimum) or the method's own estimate of its error (a re-solve, a Richardson
 * twin, a certificate such as a KKT residual). */
export function errorKind(p: { reference?: string; certificate?: string }): 'distance' | 'estimate' {
  if (p.certificate) return 'estimate';
  return /estimat|richardson|twin|re-?run|re-?solve|halved|doubled|certificate|residual/i.test(p.reference ?? '') ? 'estimate' : 'distance';
}

/** The text of a sealed answer: what a person (or a model) needs at a glance. */
function sealedText(tool: string, b: Record<string, any>): string {
  const p = b.precision ?? {};
  const unit = b.unit ? ` ${b.unit}` : '';
  const lines: string[] = [];
  // what the error is (issue 29): never a bare "±", which reads as an uncertainty; a stochastic
  // solver's standard error is given apart (docs/glossary.md, "error and bound")
  const kind = errorKind(p);
  const err = typeof p.errorPct === 'number' ? ` (${kind === 'distance' ? 'distance to the reference' : "the method's own error estimate"} ${num(p.errorPct)} %)` : '';
  const se = typeof b.result?.stdErr === 'number' ? `; Monte Carlo standard error ${num(b.result.stdErr)}${unit}${b.value ? ` (${num((100 * b.result.stdErr) / Math.abs(b.value))} % of the value)` : ''}` : '';
  lines.push(`${tool}: ${num(b.value)}${unit}${err}${se}${b.solver ? ` (${b.solver}, ${b.method ?? ''})`.replace(', )', ')') : ''}.`);
  if (typeof p.errorPct === 'number') {
    const ref = p.referenceValue !== undefined ? ` = ${num(p.referenceValue)}` : '';
    const what = kind === 'distance' ? `relative distance ${num(p.errorPct)} % to` : `error estimate ${num(p.errorPct)} % from`;
    lines.push(`Check: ${what} ${p.reference ?? 'the reference'}${ref}; bound ${num(p.boundPct)} %, ${p.withinBound ? 'within' : 'OUTSIDE'} the bound.`);
  }
  const rs = scalars(b.result, 10);
  if (rs.length) lines.push(`Result: ${rs.join(', ')}${Object.keys(b.result ?? {}).length > rs.length ? ', … (all in structuredContent.result)' : ''}.`);
  if (b.series) lines.push(`Series: ${Object.keys(b.series).join(', ')} (${(Object.values(b.series)[0] as unknown[] | undefined)?.length ?? 0} points each, in structuredContent.series).`);
  const r = b.receipt ?? {};
  const tokens = b.tokens ? `; ${b.tokens.cost} token${b.tokens.cost === 1 ? '' : 's'} charged, ${b.tokens.remaining} left today` : '';
  lines.push(`Sealed: receipt ${r.id}${r.chain ? `, chain entry ${r.chain.seq}` : ''}${tokens}.`);
  lines.push(`Verify: svc_verify with proof = svcProof, operatorIds = svcState.operators, R_t = svcState.masterSum, zeqond = svcState.svcond, keyPrefix, value, unit (from structuredContent); the full receipt is ${receiptUri(r.id)} (resources/read).`);
  return lines.join('\n');
}

/** Longest text of a non-sealed answer before long arrays are cut in it (the whole answer is
 * always in structuredContent). */
const TEXT_BUDGET = 8 * 1024;

/** The answer with every array cut to its first `keep` items and a note of how many more. */
function shorten(x: unknown, keep: number): unknown {
  if (Array.isArray(x)) {
    const head = x.slice(0, keep).map((v) => shorten(v, keep));
    return x.length > keep ? [...head, `… ${x.length - keep} more (all in structuredContent)`] : head;
  }
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, shorten(v, keep)]));
  return x;
}

function answerText(body: Record<string, unknown>): string {
  const full = JSON.stringify(body);
  if (full.length <= TEXT_BUDGET) return full;
  for (const keep of [10, 3, 1]) {
    const s = JSON.stringify(shorten(body, keep));
    if (s.length <= TEXT_BUDGET) return s;
  }
  return full.slice(0, TEXT_BUDGET) + ' … (cut; the whole answer is in structuredContent)';
}

/** A successful tool call: sealed answers as a short text plus the receipt link; any other
 * answer as its JSON (long arrays cut); `structuredContent` is always the whole answer. */
export function renderResult(op: Operation, body: Record<string, any>): ToolResult {
  const receiptId = body.receipt?.id;
  if (typeof receiptId === 'string' && typeof body.value === 'number') {
    return {
      content: [
        { type: 'text', text: sealedText(op.tool!, body) },
        { type: 'resource_link', uri: receiptUri(receiptId), name: receiptId, title: `Receipt ${receiptId}`, mimeType: 'application/json', description: 'the whole sealed receipt (resources/read; your own receipts)' },
      ],
      structuredContent: body,
    };
  }
  return { content: [{ type: 'text', text: answerText(body) }], structuredContent: body };
}

/** A refused tool call: the DESIGN §9 error body as JSON text. No structuredContent: it would
 * not match the tool's outputSchema, which clients check it against. */
export function renderError(body: Record<string, unknown>): ToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
