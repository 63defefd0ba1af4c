// The solver contract (DESIGN §10, STYLE: one result shape). A solver module
// `src/solvers/<name>.ts` exports `descriptor: SolverDescriptor` and `run: SolverRun`.
// `run` is a pure function executed in the worker pool: it must not touch HTTP, keys, the
// database, the clock or Math.random; all randomness comes from `ctx.seed` via lib/rng.ts.
// The engine (src/solvers/engine/loader.ts) discovers every module in this folder that exports both.
import type { z } from 'zod';

export interface Precision {
  /** distance to the independent reference, in percent */
  errorPct: number;
  /** the ceiling the solver promises (0.1 unless the method documents another) */
  boundPct: number;
  /** what the reference is, in words: 'Black-Scholes closed form' */
  reference: string;
  withinBound: boolean;
  /** the reference value itself, when it is a number */
  referenceValue?: number;
  /** the certificate that was checked, for user problems: 'model', 'drat', 'mismatch', 'kkt', 'error-estimate' */
  certificate?: string;
}

export interface Stability {
  number: number;
  limit: number;
  stable: boolean;
  /** what the number is: 'r = alpha*dt*(1/dx^2+1/dy^2)' */
  name?: string;
}

export interface SolverOutput {
  value: number;
  result: Record<string, unknown>;
  precision: Precision;
  /** arrays of equal length; `t` (or another abscissa) first. The engine downsamples for `sample`. */
  series?: Record<string, number[]>;
  stability?: Stability;
  /** fields clamped to the spec's range: { dt: { given, used } } */
  clamped?: Record<string, { given: number; used: number }>;
  /** method actually used when the descriptor's method has variants (e.g. 'crank-nicolson') */
  method?: string;
  /** large artefacts that belong to the result but not in the sealed body, by name (e.g.
   * `{ drat: <proof text> }` from sat); the result carries their digest and size, the plumbing
   * stores them beside the receipt and serves them (GET /api/receipts/{id}/drat) */
  attachments?: Record<string, string>;
  /** for a result outside its bound: inputs the method's error model predicts to meet it (with
   * margin), the predicted error and cost. Not sealed: it goes into the 422 PRECISION_REFUSED
   * details (`retryWith`), so that calling again with them succeeds (issue 29). */
  retryWith?: RetryAdvice;
}

export interface RetryAdvice {
  /** the fields to send (merged over the caller's own); the question asked stays the same */
  inputs: Record<string, unknown>;
  predictedErrorPct?: number;
  /** the predicted work, in the method's own unit, and relative to the refused run */
  predictedCost?: Record<string, number>;
}

export interface SolverContext {
  /** unix seconds of the request (only solvers whose input defaults to "now", like protect, read it) */
  now?: number;
  /** 32-bit unsigned seed: from the input's `seed` when it has one, else derived from the input */
  seed: number;
  /** progress in [0, 1]; cheap, call it every so often in long loops */
  progress(fraction: number): void;
}

export interface SolverDescriptor<S extends z.ZodType = z.ZodType> {
  /** path suffix and tool suffix: 'heat' -> POST /api/svc/heat, tool svc_heat */
  name: string;
  /** the spec's domain label: 'Thermal Diffusion' */
  domain: string;
  /** short method id: 'crank-nicolson' */
  method: string;
  /** the spec's method text, one line */
  methodDescription: string;
  /** the spec's operator chain: ['KO42', 'CHE17'] or ['KO42-tensioned'] */
  operators: string[];
  unit: string;
  summary: string;
  /** display name of the tool (MCP `title`), a few words: 'Heat equation' */
  title?: string;
  /** one line (at most ~120 characters) for tool lists: what it computes and what `value` is */
  brief?: string;
  /** the tool's own fields with the spec's defaults and bounds; a z.strictObject */
  input: S;
  /** plain-English requests a user would write for this solver (used by svc_auto; at least 6) */
  examples: string[];
  /** words and phrases that point to this solver (used by svc_auto) */
  vocabulary: string[];
  /** largest request body in bytes, for solvers that take files (a CNF, a MATPOWER case); default 1 MiB */
  bodyLimit?: number;
}

export type SolverRun<I = any> = (input: I, ctx: SolverContext) => SolverOutput;
