// Who is calling: the credential an operation runs for (DESIGN §5). Resolved once per request by
// src/ops/invoke.ts and handed down; services take it as data.
export interface Caller {
  kind: 'machine' | 'demo' | 'oauth' | 'admin';
  /** the machine this credential belongs to (null for demo keys and the admin key) */
  zid: string | null;
  /** `svc_ak_` plus the key's first 8 characters after it (DESIGN §5); signs seals */
  keyPrefix: string;
  /** SHA-256 of the credential, to revoke or to look up */
  keyHash: string;
  /** OAuth scopes (oauth callers only) */
  scopes?: string[];
}
