-- Literature area (issue 9): upstream responses of the six literature sources, kept for a TTL.
-- key = '<source>:' || sha256(request URL without secrets); body = the raw 2xx response body;
-- expires_at = unix seconds (the node's clock). Expired rows are ignored on read and purged
-- from time to time on write.
CREATE TABLE IF NOT EXISTS paper_cache (
  key         TEXT PRIMARY KEY,
  body        TEXT NOT NULL,
  expires_at  DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS paper_cache_expires ON paper_cache(expires_at);
