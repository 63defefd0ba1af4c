-- OAuth clients registered through RFC 7591 dynamic client registration (issue 21: MCP clients
-- sign in). Public clients only: no secret is issued or stored. A registered client_id may only
-- use the redirect URIs it registered; unregistered client ids keep working as before.
CREATE TABLE oauth_clients (
  client_id      TEXT PRIMARY KEY,
  client_name    TEXT,
  redirect_uris  TEXT NOT NULL,          -- JSON array of strings
  metadata       TEXT NOT NULL,          -- the registered metadata as answered (JSON)
  created_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
