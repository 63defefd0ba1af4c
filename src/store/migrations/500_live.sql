-- Live compute (issue 10): stream channels, their stored events (for SSE replay and for other
-- nodes sharing the database), and reactor runs.

CREATE TABLE stream_channels (
  id          TEXT PRIMARY KEY,
  zid         TEXT NOT NULL REFERENCES machines(zid),
  node_id     TEXT NOT NULL,                 -- the node that runs the ticks
  state       TEXT NOT NULL,                 -- open | completed | closed | exhausted | failed
  reason      TEXT,
  spec        TEXT NOT NULL,                 -- the validated request (JSON)
  ticks       INTEGER NOT NULL,
  t0_ms       BIGINT NOT NULL,               -- instant of tick 0 (unix ms); tick k is t0 + k*777 ms
  expires_at  DOUBLE PRECISION NOT NULL,     -- unix seconds after which an 'open' row is a lost channel
  close_on_disconnect BOOLEAN NOT NULL DEFAULT false,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  ended_at    TIMESTAMPTZ
);
CREATE INDEX stream_channels_zid ON stream_channels(zid, created_at DESC);
CREATE INDEX stream_channels_open ON stream_channels(zid) WHERE state = 'open';

-- One row per event: seq = tick number for tick/skip/refused events, and the next number for the
-- final 'end' event. data is the exact JSON text sent as the SSE data line.
CREATE TABLE stream_events (
  channel_id  TEXT NOT NULL REFERENCES stream_channels(id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  kind        TEXT NOT NULL,                 -- tick | skip | refused | end
  at          DOUBLE PRECISION NOT NULL,     -- the slot's instant (unix seconds)
  data        TEXT NOT NULL,
  PRIMARY KEY (channel_id, seq)
);

CREATE TABLE reactor_runs (
  id          TEXT PRIMARY KEY,
  zid         TEXT NOT NULL REFERENCES machines(zid),
  root        TEXT NOT NULL,
  size        INTEGER NOT NULL,
  stopped     TEXT NOT NULL,
  body        TEXT NOT NULL,                 -- the run's response (JSON)
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX reactor_runs_zid ON reactor_runs(zid, created_at DESC);
