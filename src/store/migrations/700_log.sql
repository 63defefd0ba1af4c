-- The deployment's transparency log (issue 20; DESIGN §7, §13; docs/verify.md). Every sealed
-- receipt is a leaf: the SHA-256 of its canonical sealed body. Appends lock log_state (one row),
-- so every node sharing this database appends to one log, in the seal batch's own transaction.

-- The deployment's other keys, by purpose (the slot, NULL once retired): 'log' (Ed25519 note key
-- of the checkpoints), 'attest' (ECDSA P-256: DSSE attestations), 'witness' (Ed25519 cosigner
-- key). Private halves are sealed at rest as in signing_keys (src/services/keys.ts). A retired
-- key (of either table) loses its slot and keeps its row: it stays in the JWKS, marked retired.
ALTER TABLE signing_keys ADD COLUMN retired_at TIMESTAMPTZ;
CREATE TABLE deployment_keys (
  kid          TEXT PRIMARY KEY,
  purpose      TEXT NOT NULL,
  slot         TEXT UNIQUE,
  alg          TEXT NOT NULL,
  public_jwk   TEXT NOT NULL,
  private_enc  TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  retired_at   TIMESTAMPTZ
);

CREATE TABLE log_state (
  id          SMALLINT PRIMARY KEY CHECK (id = 1),
  origin      TEXT,                 -- the checkpoint origin, fixed when the log is created
  size        BIGINT NOT NULL,
  edge        BYTEA NOT NULL,       -- hashes of the maximal perfect subtrees of [0, size)
  root        BYTEA NOT NULL,
  checkpoint  TEXT NOT NULL         -- the latest signed checkpoint ('' before the first)
);
INSERT INTO log_state (id, origin, size, edge, root, checkpoint)
  VALUES (1, NULL, 0, ''::bytea, decode('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex'), '');

-- level-0 tiles: each leaf's entry (the receipt digest) and its RFC 6962 leaf hash
CREATE TABLE log_leaves (
  idx     BIGINT PRIMARY KEY,
  digest  BYTEA NOT NULL,
  hash    BYTEA NOT NULL
);

-- tiles of level >= 1: entry idx of level L is the hash of leaves [idx*256^L, (idx+1)*256^L)
CREATE TABLE log_tiles (
  level  SMALLINT NOT NULL,
  idx    BIGINT NOT NULL,
  hash   BYTEA NOT NULL,
  PRIMARY KEY (level, idx)
);

-- every checkpoint the log signed (one per seal batch), and the witnesses' cosignatures
CREATE TABLE log_checkpoints (
  size        BIGINT PRIMARY KEY,
  note        TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE log_cosignatures (
  size        BIGINT NOT NULL,
  witness     TEXT NOT NULL,        -- the witness's URL
  lines       TEXT NOT NULL,        -- its signature lines
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (size, witness)
);
CREATE TABLE log_witness_state (
  witness     TEXT PRIMARY KEY,     -- URL of a witness this log submits to (SVC_WITNESSES)
  size        BIGINT NOT NULL,      -- the latest size it cosigned
  error       TEXT,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- a witness node (SVC_WITNESS_OF): the log it witnesses, pinned on first use, and its latest
-- cosigned checkpoint; refusals that prove misbehaviour are kept as evidence
CREATE TABLE witness_logs (
  origin      TEXT PRIMARY KEY,
  vkeys       TEXT NOT NULL,        -- the log's note verifier keys, one per line
  source      TEXT NOT NULL,        -- the URL they were fetched from
  size        BIGINT NOT NULL,
  root        BYTEA NOT NULL,
  checkpoint  TEXT NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE witness_evidence (
  id          BIGSERIAL PRIMARY KEY,
  origin      TEXT NOT NULL,
  kind        TEXT NOT NULL,        -- 'inconsistent' | 'fork' | 'rollback'
  detail      TEXT NOT NULL,
  body        TEXT NOT NULL,        -- the request, verbatim
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
