-- rate_events are pruned as they are written (src/services/identity.ts, recordEvent): events
-- older than every window are deleted by this index instead of a scan of the whole table.
CREATE INDEX IF NOT EXISTS rate_events_at ON rate_events(at);
-- a machine's receipts in chain order (GET /api/chain/verify re-hashes them page by page)
CREATE INDEX IF NOT EXISTS receipts_chain ON receipts(zid, chain_seq);
