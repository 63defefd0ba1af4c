-- Machine hosting and identity (issue 8): signing keys, pages, mailbox, OAuth.

-- The node's asymmetric signing keys, shared by every node on this database. The private key is
-- AES-256-GCM encrypted with a key derived from the master secret (src/services/keys.ts).
-- `slot` marks the key in use ('primary'); a retired key keeps its row (slot NULL) so that
-- signatures it made still verify against /.well-known/jwks.json.
CREATE TABLE signing_keys (
  kid          TEXT PRIMARY KEY,
  slot         TEXT UNIQUE,
  alg          TEXT NOT NULL,
  public_jwk   TEXT NOT NULL,
  private_enc  TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE pages (
  zid         TEXT NOT NULL REFERENCES machines(zid),
  page_slug   TEXT NOT NULL,
  title       TEXT NOT NULL,
  html        TEXT NOT NULL,
  sha256      TEXT NOT NULL,
  bytes       INTEGER NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (zid, page_slug)
);

CREATE TABLE mail_messages (
  id          TEXT PRIMARY KEY,
  zid         TEXT NOT NULL REFERENCES machines(zid),
  from_name   TEXT,
  subject     TEXT NOT NULL,
  html        TEXT NOT NULL,
  text_body   TEXT NOT NULL,
  warnings    TEXT NOT NULL,            -- JSON array of {rule, message}
  removed     TEXT NOT NULL,            -- JSON array of what the sanitizer stripped
  sent_at     TIMESTAMPTZ NOT NULL,     -- the Date header, to the second
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX mail_messages_box ON mail_messages(zid, id DESC);

-- A pending authorization request (the vault-issuance ceremony) awaiting the owner's approval.
CREATE TABLE oauth_requests (
  id              TEXT PRIMARY KEY,
  client_id       TEXT NOT NULL,
  redirect_uri    TEXT NOT NULL,
  scope           TEXT NOT NULL,
  state           TEXT,
  nonce           TEXT,
  code_challenge  TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending',   -- pending | approved | denied
  zid             TEXT REFERENCES machines(zid),
  expires_at      TIMESTAMPTZ NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One grant: everything minted from one authorization code shares a family; reuse of a rotated
-- refresh token revokes the whole family (RFC 9700 §4.14).
CREATE TABLE oauth_families (
  id          TEXT PRIMARY KEY,
  zid         TEXT NOT NULL REFERENCES machines(zid),
  client_id   TEXT NOT NULL,
  scope       TEXT NOT NULL,
  nonce       TEXT,
  auth_time   BIGINT NOT NULL,
  key_hash    TEXT NOT NULL,            -- the owner's API key that approved the grant: the grant lives as long as it
  revoked_at  TIMESTAMPTZ,
  revoke_reason TEXT,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX oauth_families_zid ON oauth_families(zid);

CREATE TABLE oauth_codes (
  code_hash       TEXT PRIMARY KEY,
  request_id      TEXT NOT NULL REFERENCES oauth_requests(id),
  zid             TEXT NOT NULL REFERENCES machines(zid),
  client_id       TEXT NOT NULL,
  redirect_uri    TEXT NOT NULL,
  scope           TEXT NOT NULL,
  nonce           TEXT,
  code_challenge  TEXT NOT NULL,
  auth_time       BIGINT NOT NULL,
  key_hash        TEXT NOT NULL,
  expires_at      TIMESTAMPTZ NOT NULL,
  used_at         TIMESTAMPTZ,
  family_id       TEXT
);

-- Access and refresh tokens, by SHA-256 of the token (the token itself is never stored).
CREATE TABLE oauth_tokens (
  token_hash  TEXT PRIMARY KEY,
  kind        TEXT NOT NULL,            -- access | refresh
  family_id   TEXT NOT NULL REFERENCES oauth_families(id),
  zid         TEXT NOT NULL REFERENCES machines(zid),
  client_id   TEXT NOT NULL,
  scope       TEXT NOT NULL,
  expires_at  TIMESTAMPTZ NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX oauth_tokens_family ON oauth_tokens(family_id);

-- The revoked-token store the spec names: a token here is refused.
CREATE TABLE oauth_tokens_revoked (
  token_hash  TEXT PRIMARY KEY,
  family_id   TEXT,
  reason      TEXT NOT NULL,            -- rotated | revoked | family
  revoked_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
