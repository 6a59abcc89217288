-- fenceguard http: an unlogged table of one row, since when every request-signature nonce is still recorded.
-- A request-signed admission that leaves the mark as it was commits without waiting for its WAL flush; such
-- a commit is lost only when PostgreSQL loses the WAL it had not flushed (a crash, a failover, a restored
-- backup), and exactly then this table is found empty: PostgreSQL empties unlogged tables in crash recovery,
-- and standbys and backups hold none of their rows. The next admission sets the row to that moment and refuses
-- signatures created before it, so a nonce that may have been lost is never taken for a new one.

CREATE UNLOGGED TABLE IF NOT EXISTS fenceguard_http_nonce_since (
    id    SMALLINT NOT NULL PRIMARY KEY CHECK (id = 1),
    since TIMESTAMPTZ NOT NULL
);

INSERT INTO fenceguard_http_nonce_since (id, since) VALUES (1, '-infinity') ON CONFLICT (id) DO NOTHING;
