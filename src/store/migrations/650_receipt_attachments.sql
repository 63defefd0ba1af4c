-- Certificates that are too large to seal inline (a DRAT proof of an UNSAT CNF): the receipt seals
-- their SHA-256 and size; the text itself is kept here, written in the seal's own transaction, and
-- served to the receipt's owner (GET /api/receipts/{id}/drat).
CREATE TABLE IF NOT EXISTS receipt_attachments (
  receipt_id TEXT NOT NULL REFERENCES receipts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (receipt_id, name)
);
