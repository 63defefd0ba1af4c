import { randomBytes, createHash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (26 Crockford base32 chars): 48-bit millisecond time then 80 random bits. */
export function ulid(ms = Date.now()): string {
  let time = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[rnd[i] % 32];
  return time + rand;
}

/** A machine's ZID: 'Z' followed by a ULID. */
export const newZid = () => 'Z' + ulid();
export const ZID_RE = /^Z[0-9A-HJKMNP-TV-Z]{26}$/;
export const isZid = (s: unknown): s is string => typeof s === 'string' && ZID_RE.test(s);

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function shortSuffix(n = 6): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const b = randomBytes(n);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[b[i] % alphabet.length];
  return s;
}
