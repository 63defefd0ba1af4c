// The project's one error type. Every failure that reaches a client is a SvcError with a stable
// code from DESIGN §9; the HTTP and MCP layers map it to a body {ok:false, error, code, issues?}.
// Nothing else formats error bodies.

export const STATUS_BY_CODE = {
  INVALID_INPUT: 400,
  INVALID_ZID: 400,
  ZID_NOT_LINKED: 400,
  INVALID_GRANT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ADMIN_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** a Range outside a blob (GET /api/blobs/{digest}; the answer carries Content-Range: bytes *\/size) */
  RANGE_NOT_SATISFIABLE: 416,
  PRECISION_REFUSED: 422,
  SHAPE_REFUSED: 422,
  DIMENSIONAL_GATE: 422,
  UNSTABLE: 422,
  TIME_BUDGET_EXCEEDED: 422,
  /** a run past its memory budget (SVC_JOB_MEMORY_MB): its worker was stopped and replaced */
  MEMORY_BUDGET_EXCEEDED: 422,
  /** a linear system whose matrix is singular or numerically singular (the failing pivot in details) */
  SINGULAR: 422,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  UPSTREAM_UNAVAILABLE: 503,
  /** a bug: never the answer to any input (DESIGN §9) */
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export interface ErrorIssue {
  path: string;
  message: string;
}

export interface ErrorBody {
  ok: false;
  error: string;
  code: ErrorCode;
  issues?: ErrorIssue[];
  [extra: string]: unknown;
}

export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues?: ErrorIssue[];
  /** Extra fields for the error body (for example `{stability: {...}}`). `retryAfterSeconds`
   * among them is also sent as the HTTP `Retry-After` header by the HTTP face; errors carry no
   * headers of their own. */
  readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { issues?: ErrorIssue[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'SvcError';
    this.code = code;
    this.status = STATUS_BY_CODE[code];
    this.issues = opts.issues;
    this.details = opts.details;
  }

  /** seconds a client should wait before trying again, when the error says */
  get retryAfterSeconds(): number | undefined {
    const r = this.details?.retryAfterSeconds;
    return typeof r === 'number' ? r : undefined;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { ok: false, error: this.message, code: this.code };
    if (this.issues?.length) body.issues = this.issues;
    if (this.details) Object.assign(body, this.details);
    return body;
  }
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}

/** The codes a solver refuses with (it crosses the worker boundary as data). */
export type RefusalCode = 'UNSTABLE' | 'PRECISION_REFUSED' | 'SHAPE_REFUSED' | 'INVALID_INPUT' | 'DIMENSIONAL_GATE' | 'SINGULAR' | 'TIME_BUDGET_EXCEEDED';

/** A solver's refusal: the project's one error type with a refusal code and its details. */
export const refuse = (code: RefusalCode, message: string, details?: Record<string, unknown>) =>
  new SvcError(code, message, details ? { details } : {});

/** Seconds from `tSeconds` to the next 00:00 UTC, when the daily token allowance renews: the one
 * Retry-After policy of every token refusal (at least 1). */
export function secondsToNextUtcMidnight(tSeconds: number): number {
  const nextDay = Math.ceil((tSeconds + 1) / 86400) * 86400;
  return Math.max(1, Math.ceil(nextDay - tSeconds));
}

/** The refusal of a call the machine's tokens cannot pay for. */
export function quotaExceeded(remaining: number, cost: number, tSeconds: number): SvcError {
  return new SvcError('QUOTA_EXCEEDED', `not enough compute tokens: ${remaining} left, ${cost} needed; the allowance renews at 00:00 UTC`, {
    details: { tokens: { cost, remaining }, retryAfterSeconds: secondsToNextUtcMidnight(tSeconds) },
  });
}

export const invalidInput = (message: string, issues?: ErrorIssue[]) =>
  new SvcError('INVALID_INPUT', message, { issues });

export const notFound = (what = 'resource') => new SvcError('NOT_FOUND', `${what} not found`);
