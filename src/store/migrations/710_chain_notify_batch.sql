-- The seal path (issue 20): one NOTIFY per statement instead of one per chain entry. A seal batch
-- inserts its chain entries with one statement; each NOTIFY is a JSON array of entries (the
-- objects of migration 600, the truncated form for an entry over 3000 bytes), split to stay under
-- the 8000-byte NOTIFY limit. Listeners accept an object or an array (src/ops/observer-stream.ts).
CREATE OR REPLACE FUNCTION svc_chain_notify_batch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r RECORD;
  item TEXT;
  payload TEXT := '';
  ch TEXT := 'svc_chain_' || left(md5(current_schema()), 16);
BEGIN
  FOR r IN SELECT * FROM new_rows ORDER BY zid, seq LOOP
    item := json_build_object('z', r.zid, 's', r.seq, 'k', r.kind, 'r', r.ref, 'a', r.at,
      'ph', r.payload_hash, 'p', r.prev_hash, 'h', r.hash)::text;
    IF octet_length(item) > 3000 THEN
      item := json_build_object('z', r.zid, 's', r.seq, 'truncated', true)::text;
    END IF;
    IF payload <> '' AND octet_length(payload) + octet_length(item) > 7000 THEN
      PERFORM pg_notify(ch, '[' || payload || ']');
      payload := '';
    END IF;
    payload := CASE WHEN payload = '' THEN item ELSE payload || ',' || item END;
  END LOOP;
  IF payload <> '' THEN
    PERFORM pg_notify(ch, '[' || payload || ']');
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER chain_entries_notify ON chain_entries;
CREATE TRIGGER chain_entries_notify AFTER INSERT ON chain_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_chain_notify_batch();
