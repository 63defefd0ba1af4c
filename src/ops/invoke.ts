// The one way an operation is invoked, for HTTP and MCP alike (DESIGN §4, §9): the faces resolve
// the bearer to a caller once per request (`bearerOf`, `resolveCaller`), then `invoke` authorises
// the caller for the operation, parses its input, pre-checks the machine's tokens for operations
// with a fixed cost, builds the operation context and runs the handler. Whatever the handler
// throws leaves here as a SvcError: a bug (any other exception) is `INTERNAL`, whose message is
// never the exception's own.
//
// Access classes (spec "Authentication"):
//   public: anyone; a credential, if sent, must be valid (it identifies the caller)
//   key:    a machine key (svc_ak_…); a demo key only where the operation allows it; an OAuth
//           access token only when the operation names a scope and the token carries it (the
//           sealed computations take `compute`: charged to the machine that granted the token)
//   user:   a machine key, or an OAuth access token of the machine carrying the op's scope
//   admin:  the SVC_ADMIN_KEY bearer; with no admin key configured, admin routes refuse everyone
import { timingSafeEqual } from 'node:crypto';
import type { App, Operation, OpContext } from './types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { sha256Hex } from '../core/ids.ts';
import { resolveApiKey, KEY_PREFIX, assertUnderLimit, recordEvent } from '../services/identity.ts';
import { parseInput } from './validate.ts';

/** The bearer of an Authorization header value (null when there is none). */
export function bearerOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const h = Array.isArray(header) ? header[0] : header;
  const m = /^Bearer\s+(\S{1,4096})\s*$/i.exec(h ?? '');
  if (!m) throw new SvcError('UNAUTHORIZED', 'malformed Authorization header: expected "Bearer <API_KEY>"');
  return m[1];
}

function isAdminKey(app: App, token: string): boolean {
  const admin = app.config.adminKey;
  if (!admin) return false;
  const a = Buffer.from(sha256Hex(admin), 'hex');
  const b = Buffer.from(sha256Hex(token), 'hex');
  return timingSafeEqual(a, b);
}

/** Failed admin attempts are counted per client address (issue 19): once SVC_ADMIN_FAILURES (10)
 * happened within this window, that address gets 429 RATE_LIMITED for any bearer that could be
 * the admin key, the right one included, so further guesses learn nothing; other addresses are
 * not affected. */
export const ADMIN_FAILURE_WINDOW_SECONDS = 900;

const adminBucket = (ip: string) => `admin-fail:${ip}`;
/** the prefix of every credential the node issues; the admin key may not start with it */
const ISSUED_PREFIX = 'svc_';

async function assertAdminAttempts(app: App, ip: string): Promise<void> {
  await assertUnderLimit(app.db, adminBucket(ip), app.config.adminFailures, ADMIN_FAILURE_WINDOW_SECONDS,
    `too many failed admin attempts from this address: at most ${app.config.adminFailures} per ${ADMIN_FAILURE_WINDOW_SECONDS / 60} minutes`);
}

/** The caller a bearer stands for; a bearer that is sent but unknown, expired or revoked is 401.
 * With the client address `ip` (the HTTP and MCP faces pass it), a bearer that is not shaped like a
 * credential the node issues (svc_…) and is not the admin key counts as a failed guess at the admin
 * key, and an address
 * with too many of those is refused (429) for every such bearer, the admin key included: no route
 * answers a guess differently from a miss once the address is locked out. */
export async function resolveCaller(app: App, token: string | null, ip?: string): Promise<Caller | null> {
  if (token === null) return null;
  if (isAdminKey(app, token)) {
    if (ip !== undefined) await assertAdminAttempts(app, ip);
    return { kind: 'admin', zid: null, keyPrefix: 'svc_admin', keyHash: sha256Hex(token) };
  }
  if (token.startsWith(KEY_PREFIX)) {
    const c = await resolveApiKey(app.db, token, app.clock.now(), app.keyCache);
    if (c) return c;
    throw new SvcError('UNAUTHORIZED', 'unknown, expired or revoked API key');
  }
  for (const r of app.bearerResolvers) {
    const c = await r(token, app);
    if (c) return c;
  }
  // credentials the node issues start with svc_ (API keys, OAuth tokens) and the admin key never
  // does (src/config.ts): an unknown svc_ bearer is an expired or revoked credential, not a guess
  if (ip !== undefined && !token.startsWith(ISSUED_PREFIX)) {
    await assertAdminAttempts(app, ip);
    await recordEvent(app.db, adminBucket(ip));
  }
  throw new SvcError('UNAUTHORIZED', 'unknown, expired or revoked credential');
}

/** The caller of a request to `op` from address `ip`. On admin operations an address past its
 * failed-attempt limit is refused before its bearer is looked at, and any credential that is not
 * the admin key (an API key too) counts as a failed attempt. */
export async function resolveCallerFor(app: App, op: Operation, token: string | null, ip: string): Promise<Caller | null> {
  if (op.access !== 'admin') return resolveCaller(app, token, ip);
  await assertAdminAttempts(app, ip);
  let caller: Caller | null;
  try {
    caller = await resolveCaller(app, token, ip);
  } catch (e) {
    // an unknown non-API-key bearer was counted by resolveCaller; an unknown API key is counted here
    if (token?.startsWith(KEY_PREFIX)) await recordEvent(app.db, adminBucket(ip));
    throw e;
  }
  if (token !== null && caller?.kind !== 'admin') await recordEvent(app.db, adminBucket(ip));
  return caller;
}

/** Throws unless `caller` may call `op`. */
export function authorize(op: Operation, caller: Caller | null): void {
  switch (op.access) {
    case 'public':
      return;
    case 'admin':
      if (caller?.kind !== 'admin') throw new SvcError('ADMIN_REQUIRED', 'this route needs the admin key');
      return;
    case 'key':
    case 'user': {
      if (!caller) throw new SvcError('UNAUTHORIZED', 'this operation needs a key: Authorization: Bearer <API_KEY>');
      if (caller.kind === 'machine') return;
      if (caller.kind === 'demo') {
        if (op.allowDemo) return;
        throw new SvcError('FORBIDDEN', 'a demo key may only call svc_spin_up and key-free tools; exchange it through svc_spin_up for a machine key');
      }
      if (caller.kind === 'oauth') {
        if (op.scope ? caller.scopes?.includes(op.scope) : op.access === 'user') return;
        if (!op.scope) throw new SvcError('FORBIDDEN', 'this operation needs a machine API key');
        throw new SvcError('FORBIDDEN', `this access token lacks the scope '${op.scope}'`, { details: { requiredScope: op.scope } });
      }
      if (caller.kind === 'admin') throw new SvcError('FORBIDDEN', 'the admin key is not a machine key');
      return;
    }
  }
}

/** Everything of an operation context but the app: what the face knows about the request. */
export type InvokeBase = Omit<OpContext, 'app'>;

/** Any exception as the project's one error type. A PostgreSQL data exception (SQLSTATE class 22:
 * a NUL byte in text, a value out of range for its column) is bad input that reached the store;
 * anything else that is not a SvcError is a bug: `INTERNAL`, with the exception kept as `cause`
 * for the log and never shown to the caller. */
export function asSvcError(e: unknown): SvcError {
  if (isSvcError(e)) return e;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) {
    return new SvcError('INVALID_INPUT', 'invalid input: a value cannot be stored as given (control characters such as NUL are not allowed)');
  }
  return new SvcError('INTERNAL', 'internal error', { cause: e });
}

/** Authorises, parses, pre-checks tokens, and runs `op` for the caller in `base`. */
export async function invoke(app: App, op: Operation, raw: unknown, base: InvokeBase): Promise<unknown> {
  try {
    authorize(op, base.caller);
    const input = parseInput(op.input, raw ?? {});
    // an operation with a fixed cost is refused early when the machine surely cannot pay it (the
    // seal transaction decides); operations whose cost depends on the input check their own
    if (typeof op.cost === 'number' && op.cost > 0 && op.precheckTokens !== false && base.caller?.zid) await app.sealer.assertTokens(base.caller.zid, op.cost);
    return await op.handler(input, { app, ...base });
  } catch (e) {
    throw asSvcError(e);
  }
}
