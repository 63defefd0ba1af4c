-- Fair under abuse (issue 19): identities do not multiply, and one tenant's long-lived resources
-- are limited as a family. A machine's family is the demo key that created it (its SHA-256, as
-- stored in api_keys); a demo key creates at most SVC_MACHINES_PER_DEMO_KEY machines. Machines
-- made before this migration have none: each is its own family.
ALTER TABLE machines ADD COLUMN family TEXT;
CREATE INDEX machines_family ON machines(family);

-- a channel records its machine's family and the client address that opened it, so the open
-- channels of a family or of an address are counted with one index scan (src/live/channels.ts)
ALTER TABLE stream_channels ADD COLUMN family TEXT;
ALTER TABLE stream_channels ADD COLUMN address TEXT;
CREATE INDEX stream_channels_family_open ON stream_channels(family) WHERE state = 'open';
CREATE INDEX stream_channels_address_open ON stream_channels(address) WHERE state = 'open';
