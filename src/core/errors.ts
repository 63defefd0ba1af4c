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
  PRECISION_REFUSED: 422,
  SHAPE_REFUSED: 422,
  DIMENSIONAL_GATE: 422,
  UNSTABLE: 422,
  TIME_BUDGET_EXCEEDED: 422,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  UPSTREAM_UNAVAILABLE: 503,
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
  /** Extra fields for the error body (for example `{stability: {...}}` or `retryAfter`). */
  readonly details?: Record<string, unknown>;
  /** Extra HTTP headers (for example Retry-After). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { issues?: ErrorIssue[]; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'SvcError';
    this.code = code;
    this.status = STATUS_BY_CODE[code];
    this.issues = opts.issues;
    this.details = opts.details;
    this.headers = opts.headers;
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
export type RefusalCode = 'UNSTABLE' | 'PRECISION_REFUSED' | 'SHAPE_REFUSED' | 'INVALID_INPUT' | 'DIMENSIONAL_GATE';

/** A solver's refusal: the project's one error type with a refusal code and its details. */
export const refuse = (code: RefusalCode, message: string, details?: Record<string, unknown>) =>
  new SvcError(code, message, details ? { details } : {});

export const invalidInput = (message: string, issues?: ErrorIssue[]) =>
  new SvcError('INVALID_INPUT', message, { issues });

export const notFound = (what = 'resource') => new SvcError('NOT_FOUND', `${what} not found`);
