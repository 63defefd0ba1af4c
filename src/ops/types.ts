// One declaration per operation (DESIGN §4). From an Operation the node derives the Fastify
// route, the MCP tool (when `tool` is set), the OpenAPI path and the svc_api_catalog entry.
// MCP arguments and the HTTP JSON body are the same object.
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import type { Clock } from '../core/clock.ts';
import type { Caller } from '../core/caller.ts';
import type { Sealer } from '../services/sealer.ts';
import type { KeyCache } from '../services/key-cache.ts';
import type { DeploymentKey, SigningKey } from '../services/keys.ts';
import type { SolverPool } from '../solvers/engine/pool.ts';
import type { Jobs } from '../jobs/types.ts';

export type { Caller };

/** Long-lived parts that an area of the node creates on first use (the live-compute hub, the
 * observer hub, the literature client, the draining flag). Each area declares its own field by
 * augmenting this interface from its module, so the state lives on the app, in plain sight, and
 * goes with it; no module keeps per-app state of its own. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AppParts {}

/** The node's object graph, built by src/app.ts; every operation runs with it. */
export interface App {
  /** parts created on first use by the areas that own them (see AppParts) */
  parts: AppParts;
  config: Config;
  db: Db;
  clock: Clock;
  sealer: Sealer;
  pool: SolverPool;
  /** jobs (issue 27, docs/jobs.md): sealed computations that outlive a request, on any node */
  jobs: Jobs;
  keyCache: KeyCache;
  /** the deployment's Ed25519 signing key (loaded or created at start-up) */
  signingKey: SigningKey;
  /** the checkpoint origin of the deployment's log (`<host[:port]>/log` of the first node's SVC_BASE_URL) */
  logOrigin: string;
  /** the log's Ed25519 note key (checkpoints) and the ECDSA P-256 attestation key, current ones */
  logKey: DeploymentKey;
  attestKey: DeploymentKey;
  /** re-reads the current keys from the store (after a rotation, on this or another node) */
  reloadKeys(): Promise<void>;
  operations: Operation[];
  nodeId: string;
  startedAt: string;
  version: string;
  /** extra bearer resolvers (OAuth access tokens, …), tried after API keys and the admin key */
  bearerResolvers: ((token: string, app: App) => Promise<Caller | null>)[];
  /** run on close, in reverse order */
  onClose: (() => Promise<void> | void)[];
  /** run when the HTTP server starts closing, before it drains in-flight requests (end SSE streams) */
  beforeClose: (() => Promise<void> | void)[];
  /** in-process dispatch of an HTTP request (svc_http); set by the HTTP layer. `remoteAddress`:
   * the original caller's address, so per-address limits count the dispatched request as theirs */
  inject?: (req: { method: string; url: string; headers: Record<string, string>; payload?: unknown; remoteAddress?: string }) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown>; truncated?: boolean }>;
  close(): Promise<void>;
}

export type Access = 'public' | 'user' | 'key' | 'admin';

/** What calling a tool does, for MCP clients deciding what to put in front of a person (the four
 * MCP tool annotations, all always set). */
export interface ToolHints {
  /** changes nothing: a look-up (no charge, no chain entry, no stored state) */
  readOnly: boolean;
  /** may delete or overwrite something (meaningful when not read-only) */
  destructive: boolean;
  /** calling it again with the same arguments has no further effect */
  idempotent: boolean;
  /** reaches systems outside this node (the literature sources) */
  openWorld: boolean;
}
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OpContext {
  app: App;
  caller: Caller | null;
  /** the raw bearer credential, forwarded by svc_http */
  bearer: string | null;
  /** aborted when the client goes away or the operation's time budget ends */
  signal: AbortSignal;
  requestId: string;
  /** client address (rate limits) */
  ip: string;
  /** 'http' or 'mcp' */
  via: 'http' | 'mcp';
  /** the raw query string after `?` (HTTP only; empty when there is none) */
  rawQuery?: string;
  /** the HTTP request's headers (lower-case names); for MCP, those of the request that carried the call */
  headers: Record<string, string | string[] | undefined>;
  /** progress notifications (MCP with a progressToken); a no-op otherwise */
  progress: (progress: number, total?: number, message?: string) => void;
  /** true when someone listens to `progress` (an MCP call with a progressToken): long jobs only
   * set up a progress channel then */
  progressWanted?: boolean;
  /** the HTTP method of the request (HEAD for a GET route asked with HEAD); absent over MCP */
  method?: string;
  /** the raw request body of an operation declared `streamBody` (HTTP only), not yet read */
  body?: Readable;
  /** MCP session id when called over MCP with a session */
  mcpSessionId?: string;
  /** send a JSON-RPC notification to the MCP session that made the call (if any) */
  notify?: (method: string, params: Record<string, unknown>) => Promise<void>;
}

/** A handler may return this to answer with something other than JSON (HTML, SSE, raw text).
 * Operations that return it must not be tools. */
export interface RawReply {
  raw: true;
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer | NodeJS.ReadableStream;
}

/** One server-sent event, transport-neutral: src/http/server.ts writes it as `: comment`,
 * `retry:`, `id:`, `event:` and `data:` lines (in that order, each when present) and a blank line. */
export interface EventFrame {
  comment?: string;
  retry?: number;
  id?: number;
  event?: string;
  /** one line of text (JSON) */
  data?: string;
}

/** A handler returns this to answer with a live feed (an SSE endpoint; never a tool): `events` is
 * an object-mode Readable of EventFrames (src/live/sse.ts) that ends when the feed ends. The HTTP
 * layer answers `text/event-stream` with it and destroys it when the client goes away. */
export interface EventStreamReply {
  raw: true;
  events: Readable;
}

export interface Operation<S extends z.ZodType = z.ZodType> {
  /** stable internal id, 'area.verb' */
  id: string;
  /** MCP tool name, when this operation is also a tool */
  tool?: string;
  method: HttpMethod;
  /** Fastify path syntax: '/api/folders/:name/receipts' */
  path: string;
  access: Access;
  /** a demo key (svc_ak_demo_) may call it although access is 'key' or 'user' */
  allowDemo?: boolean;
  /** OAuth scope an access token needs for a 'user' operation */
  scope?: string;
  /** compute tokens one call costs (charging happens in the seal); a number makes `invoke` refuse
   * the call early when the machine cannot pay it */
  cost?: number | string;
  /** false for operations that may answer without charging (a guarded contract fire): no early
   * token check even though `cost` is a number */
  precheckTokens?: boolean;
  /** input schema (zod 4); use z.strictObject so unknown fields are refused */
  input: S;
  /** a short name for people (the OpenAPI summary and /docs menu entry; MCP's tool title); when
   * absent, the first clause of `summary` */
  title?: string;
  summary: string;
  description?: string;
  /** area for grouping in OpenAPI/catalog: 'seal', 'machines', 'solvers', ... */
  tag: string;
  /** maximum request body in bytes (default 1 MiB) */
  bodyLimit?: number;
  /** JSON Schema of the input when it cannot be derived from `input` (preprocessed schemas) */
  jsonSchema?: Record<string, unknown>;
  /** the shape of a success answer, where it is fixed (zod 4, read in 'output' mode): OpenAPI's
   * response schema and, over MCP, the tool's outputSchema. Shared parts (a sealed receipt, its
   * precision block) are the schemas of src/ops/outputs.ts. */
  output?: z.ZodType;
  /** JSON Schema of a success answer when it is not written in zod (a solver's sealed result,
   * whose `result` fields are derived from a recorded run); self-contained (`$defs`) */
  outputJsonSchema?: Record<string, unknown>;
  /** an example request and its answer (OpenAPI examples, /docs) */
  example?: { summary?: string; request?: Record<string, unknown>; response?: unknown };
  /** further example requests, one per kind of input the operation takes (a solver's file, series or
   * expression inputs): OpenAPI lists them beside `example`, each under its `name` */
  requestExamples?: { name: string; summary: string; request: Record<string, unknown> }[];
  /** media types of a success answer when it is not JSON (OpenAPI; default application/json) */
  produces?: string[];
  /** success statuses when not 200 (OpenAPI; a redirect answers 308) */
  successStatus?: number[];
  /** may answer 503 UPSTREAM_UNAVAILABLE: it depends on an upstream (literature sources, the
   * store's LISTEN, a node that is shutting down) */
  upstream?: boolean;
  /** a tool's one-line description for tool lists (MCP `description`; at most ~120 characters:
   * what it gives, and for a computation what its value is); summary and description stay the
   * full text of OpenAPI and the catalog */
  brief?: string;
  /** a tool's behaviour (MCP annotations); every tool declares them */
  hints?: ToolHints;
  /** a compact schema of a success answer (zod 4 or a JSON Schema object) for the MCP
   * `outputSchema`, where `output` is too detailed for a tool list (objects may carry more fields
   * than it lists); without it, MCP uses `output` */
  toolOutput?: z.ZodType | Record<string, unknown>;
  /** fields this operation shares with a whole family (the common solver fields): described once,
   * in the MCP instructions, and not listed in its MCP input schema */
  sharedFields?: string[];
  /** the answer may carry `series`, which MCP sends only when the call asks `series: true` (or
   * gives `sample`); over HTTP series are always sent */
  seriesOptIn?: boolean;
  /** hidden from svc_api_catalog and OpenAPI (never used for public operations) */
  hidden?: boolean;
  /** the query string is not input: it is ignored, not refused (hosted pages, whose own scripts
   * read `?…` parameters and whose links carry tracking parameters) */
  ignoreQuery?: boolean;
  /** the request body is text (text/plain), handed to the input as `body` (never a tool) */
  textBody?: boolean;
  /** the request body is bytes of any type, neither parsed nor buffered nor limited by
   * `bodyLimit`: the handler streams it from `ctx.body` (an upload; never a tool). `input` then
   * holds only the path parameters and the query. */
  streamBody?: boolean;
  handler(input: z.infer<S>, ctx: OpContext): Promise<unknown>;
}

export function defineOp<S extends z.ZodType>(op: Operation<S>): Operation<S> {
  return op;
}
