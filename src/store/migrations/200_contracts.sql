-- State contracts (issue 7). A contract is one deployed definition owned by one machine; every
-- fire is one row of contract_fires, written in the same transaction as the state change, the
-- v1 seal receipt and the chain entry. (contract_id, seq) is unique: two fires can never both
-- claim the same step, whatever the concurrency.

CREATE TABLE contracts (
  id               TEXT PRIMARY KEY,
  zid              TEXT NOT NULL REFERENCES machines(zid),
  name             TEXT NOT NULL,
  template_id      TEXT,
  version          TEXT NOT NULL,
  definition       TEXT NOT NULL,
  definition_hash  TEXT NOT NULL,
  state            TEXT NOT NULL,
  terminal         BOOLEAN NOT NULL DEFAULT false,
  fire_count       INTEGER NOT NULL DEFAULT 0,
  variables        TEXT NOT NULL,
  entered_t        DOUBLE PRECISION NOT NULL,
  created_t        DOUBLE PRECISION NOT NULL,
  deploy_chain_seq BIGINT NOT NULL,
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX contracts_by_machine ON contracts(zid, id DESC);

CREATE TABLE contract_fires (
  contract_id  TEXT NOT NULL REFERENCES contracts(id),
  seq          INTEGER NOT NULL,
  transition   TEXT NOT NULL,
  from_state   TEXT NOT NULL,
  to_state     TEXT NOT NULL,
  receipt_id   TEXT NOT NULL,
  chain_seq    BIGINT NOT NULL,
  t            DOUBLE PRECISION NOT NULL,
  variables    TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (contract_id, seq)
);
