-- The node's core tables (issue 2). Other areas add their own numbered migrations:
-- 1xx operators, 2xx contracts, 3xx hosting/oauth, 4xx literature, 5xx live compute, 6xx scale-out.

CREATE TABLE machines (
  zid            TEXT PRIMARY KEY,
  slug           TEXT NOT NULL UNIQUE,
  display_name   TEXT NOT NULL,
  tier           TEXT NOT NULL DEFAULT 'free',
  state          TEXT NOT NULL DEFAULT 'active',
  recovery_hash  TEXT NOT NULL,
  recovery_salt  TEXT NOT NULL,
  tokens_day     TEXT NOT NULL,
  tokens_left    INTEGER NOT NULL,
  chain_seq      BIGINT NOT NULL DEFAULT 0,
  chain_head     TEXT NOT NULL,
  created_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  key_hash    TEXT PRIMARY KEY,
  key_prefix  TEXT NOT NULL,
  zid         TEXT REFERENCES machines(zid),
  kind        TEXT NOT NULL,              -- 'machine' | 'demo'
  tokens_left INTEGER,                    -- demo keys only
  expires_at  TIMESTAMPTZ,
  revoked_at  TIMESTAMPTZ,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_zid ON api_keys(zid);

CREATE TABLE chain_entries (
  zid          TEXT NOT NULL REFERENCES machines(zid),
  seq          BIGINT NOT NULL,
  kind         TEXT NOT NULL,
  ref          TEXT NOT NULL,
  at           TEXT NOT NULL,
  payload_hash TEXT NOT NULL,
  prev_hash    TEXT NOT NULL,
  hash         TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (zid, seq)
);
CREATE INDEX chain_entries_recent ON chain_entries(created_at DESC);

CREATE TABLE receipts (
  id          TEXT PRIMARY KEY,
  zid         TEXT NOT NULL REFERENCES machines(zid),
  folder      TEXT NOT NULL,
  solver      TEXT NOT NULL,
  version     INTEGER NOT NULL,
  proof       TEXT NOT NULL,
  body        TEXT NOT NULL,
  chain_seq   BIGINT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX receipts_folder ON receipts(zid, folder, created_at);

CREATE TABLE rate_events (
  bucket     TEXT NOT NULL,
  at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX rate_events_bucket ON rate_events(bucket, at);

CREATE TABLE mesh_nodes (
  node_id     TEXT PRIMARY KEY,
  version     TEXT NOT NULL,
  base_url    TEXT NOT NULL,
  started_at  TIMESTAMPTZ NOT NULL,
  last_seen   TIMESTAMPTZ NOT NULL
);
