-- Blobs (issue 27 item 6; docs/jobs.md "Blobs"): content-addressed bytes (SHA-256) owned by
-- machines. `blob_contents` is one row per distinct content; its bytes live in files under
-- SVC_DATA_DIR/blobs/ on the embedded store (upload_id NULL) and in ~1 MiB `blob_chunks` rows on
-- PostgreSQL, so every node of a cluster reads every blob. `blobs` is a machine's claim on a
-- content: ownership, the quota and the TTL are per claim; a content nobody claims is deleted.
CREATE TABLE IF NOT EXISTS blob_contents (
  digest      TEXT PRIMARY KEY,            -- 64 lower-case hex characters (SHA-256 of the bytes)
  bytes       BIGINT NOT NULL,
  upload_id   TEXT,                         -- PostgreSQL: the key of its chunk rows
  created_at  DOUBLE PRECISION NOT NULL     -- unix seconds
);

CREATE TABLE IF NOT EXISTS blob_chunks (
  upload_id  TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  data       BYTEA NOT NULL,
  PRIMARY KEY (upload_id, seq)
);
-- stored out of line without compression: pglz made writes ten times slower (3.5 against 37 MB/s
-- measured by bench/blobs.bench.ts); a client that wants compression gzips the upload
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- uploads in progress (PostgreSQL chunks, embedded temporary files): what a sweep may remove once stale
CREATE TABLE IF NOT EXISTS blob_uploads (
  id          TEXT PRIMARY KEY,
  started_at  DOUBLE PRECISION NOT NULL
);

CREATE TABLE IF NOT EXISTS blobs (
  zid         TEXT NOT NULL REFERENCES machines(zid) ON DELETE CASCADE,
  digest      TEXT NOT NULL REFERENCES blob_contents(digest),
  bytes       BIGINT NOT NULL,
  created_at  DOUBLE PRECISION NOT NULL,
  used_at     DOUBLE PRECISION NOT NULL,    -- last upload or read: the TTL counts from here
  PRIMARY KEY (zid, digest)
);
CREATE INDEX IF NOT EXISTS blobs_digest ON blobs(digest);
CREATE INDEX IF NOT EXISTS blobs_used ON blobs(used_at);

-- what refers to a claim (a receipt whose result lives in the blob, a queued job): a claim with a
-- reference is never removed by the TTL sweep
CREATE TABLE IF NOT EXISTS blob_refs (
  zid     TEXT NOT NULL,
  digest  TEXT NOT NULL,
  ref     TEXT NOT NULL,
  PRIMARY KEY (zid, digest, ref),
  FOREIGN KEY (zid, digest) REFERENCES blobs(zid, digest) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS blob_refs_ref ON blob_refs(ref);
