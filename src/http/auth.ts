// Bearer resolution and access classes (DESIGN §5, spec "Authentication").
//   public: anyone; a credential, if sent, must be valid (it identifies the caller)
//   key:    a machine key (svc_ak_…); a demo key only where the operation allows it
//   user:   a machine key, or an OAuth access token of the machine carrying the op's scope
//   admin:  the SVC_ADMIN_KEY bearer; with no admin key configured, admin routes refuse everyone
import { timingSafeEqual } from 'node:crypto';
import type { App } from '../ops/types.ts';
import type { Operation } from '../ops/types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError } from '../core/errors.ts';
import { resolveApiKey, KEY_PREFIX } from '../services/identity.ts';
import { sha256Hex } from '../core/ids.ts';

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

export async function resolveCaller(app: App, token: string | null): Promise<Caller | null> {
  if (token === null) return null;
  if (isAdminKey(app, token)) return { kind: 'admin', zid: null, keyPrefix: 'svc_admin', keyHash: sha256Hex(token) };
  if (token.startsWith(KEY_PREFIX)) {
    const c = await resolveApiKey(app.db, token, app.clock.now(), app.keyCache);
    if (c) return c;
    throw new SvcError('UNAUTHORIZED', 'unknown, expired or revoked API key');
  }
  for (const r of app.bearerResolvers) {
    const c = await r(token, app);
    if (c) return c;
  }
  throw new SvcError('UNAUTHORIZED', 'unknown, expired or revoked credential');
}

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
        if (op.access === 'user' && (!op.scope || caller.scopes?.includes(op.scope))) return;
        throw new SvcError('FORBIDDEN', op.access === 'user' ? `this access token lacks the scope '${op.scope}'` : 'this operation needs a machine API key');
      }
      if (caller.kind === 'admin') throw new SvcError('FORBIDDEN', 'the admin key is not a machine key');
      return;
    }
  }
}
