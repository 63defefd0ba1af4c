-- Scale-out (issue 12): every chain append, from any node, is announced at commit on a
-- LISTEN/NOTIFY channel, so observer subscribers connected to any node see it live
-- (GET /api/observer/stream, src/ops/observer-stream.ts). The channel carries the schema (hashed:
-- channel names are at most 63 bytes), so schemas sharing one database do not hear each other.
-- A payload over the 8000-byte NOTIFY limit is replaced by its key; listeners then read the row.
CREATE OR REPLACE FUNCTION svc_chain_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  payload TEXT;
BEGIN
  payload := json_build_object('z', NEW.zid, 's', NEW.seq, 'k', NEW.kind, 'r', NEW.ref, 'a', NEW.at,
    'ph', NEW.payload_hash, 'p', NEW.prev_hash, 'h', NEW.hash)::text;
  IF octet_length(payload) > 7000 THEN
    payload := json_build_object('z', NEW.zid, 's', NEW.seq, 'truncated', true)::text;
  END IF;
  PERFORM pg_notify('svc_chain_' || left(md5(current_schema()), 16), payload);
  RETURN NULL;
END
$$;

CREATE TRIGGER chain_entries_notify AFTER INSERT ON chain_entries
  FOR EACH ROW EXECUTE FUNCTION svc_chain_notify();
