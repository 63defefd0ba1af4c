-- Jobs (issue 27, docs/jobs.md): the one record behind a REST job and an MCP task. The queue
-- itself (claiming, heartbeats, retries, per-machine concurrency) is pg-boss's, in its own schema,
-- created by pg-boss at start-up (src/jobs/queue.ts); this table is what a caller sees and what
-- the seal transaction marks (src/services/seal-batch.ts: a job is sealed exactly once).
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,                     -- job_ + ULID (time-ordered: the list's cursor)
  zid TEXT NOT NULL,
  key_prefix TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,                 -- the tool's JSON body, as submitted
  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  progress TEXT,                           -- JSON {fraction, message}
  budget_seconds INTEGER NOT NULL,
  tokens_reserved INTEGER NOT NULL,
  tokens_charged INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  started_at TIMESTAMPTZ,
  finished_at TIMESTAMPTZ,
  response_status INTEGER,
  response TEXT,                           -- the synchronous call's exact JSON body
  receipt_id TEXT,
  cancel_requested BOOLEAN NOT NULL DEFAULT false,
  node TEXT,                               -- the node running it, or that ran it last (null when queued)
  via TEXT,
  parent_id TEXT,                          -- a sweep's run: its sweep
  run_index INTEGER,
  swept TEXT,                              -- a run: JSON of its swept values; a sweep: the sweep spec
  runs INTEGER,                            -- a sweep: how many runs
  runs_done INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_zid_id ON jobs (zid, id DESC) WHERE parent_id IS NULL;
CREATE INDEX IF NOT EXISTS jobs_open ON jobs (zid, status) WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS jobs_parent ON jobs (parent_id, run_index) WHERE parent_id IS NOT NULL;
