// A hand-rolled OAuth 2.1 client for the tests: PKCE S256, the ceremony, the code exchange.
import { createHash, randomBytes } from 'node:crypto';
import type { TestNode } from '../helpers.ts';

export const REDIRECT = 'https://client.example/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** authorize → approve (with the owner's key) → token. Returns the token response body. */
export async function grant(t: TestNode, ownerKey: string, opts: { scope?: string; clientId?: string; nonce?: string } = {}) {
  const { verifier, challenge } = pkce();
  const clientId = opts.clientId ?? 'test-client';
  const q = new URLSearchParams({
    client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge,
    code_challenge_method: 'S256', state: 'st-' + randomBytes(4).toString('hex'), scope: opts.scope ?? 'openid mail:read pages:read',
  });
  if (opts.nonce) q.set('nonce', opts.nonce);
  const auth = await t.call('GET', `/api/oauth/authorize?${q}`);
  if (auth.status !== 200) throw new Error(`authorize: ${auth.status} ${auth.text}`);
  const ok = await t.call('POST', '/api/oauth/authorize/approve', { requestId: auth.body.requestId }, ownerKey);
  if (ok.status !== 200) throw new Error(`approve: ${ok.status} ${ok.text}`);
  const tok = await t.call('POST', '/api/oauth/token', form({
    grant_type: 'authorization_code', code: ok.body.code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId,
  }), undefined, FORM);
  if (tok.status !== 200) throw new Error(`token: ${tok.status} ${tok.text}`);
  return tok.body as { access_token: string; refresh_token: string; id_token: string; scope: string; expires_in: number; token_type: string; zid: string };
}
