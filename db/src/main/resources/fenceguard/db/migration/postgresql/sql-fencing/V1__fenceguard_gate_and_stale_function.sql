-- fenceguard: the gate table and the stale-token function used by rewritten statements.
-- The guard's own migrations, with their own history table (fenceguard_schema_history): see
-- io.fenceguard.db.FenceguardMigrations. Idempotent, so databases migrated by older versions take it.

CREATE TABLE IF NOT EXISTS fenceguard_gate (
    resource   VARCHAR(255) NOT NULL PRIMARY KEY,
    token      BIGINT       NOT NULL,
    claimed_at TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Called only for a row whose token is newer than the presented one. Raising (instead of
-- filtering the row out) makes the whole statement fail, so a stale write is never a silent
-- zero and a multi-row statement never applies partially.
-- SQLSTATE 40F01: class 40 (transaction rollback) so Spring translates it to a
-- ConcurrencyFailureException. COST is high so the planner evaluates it last.
CREATE OR REPLACE FUNCTION fenceguard_stale(tbl TEXT, row_token BIGINT, presented BIGINT)
    RETURNS BIGINT
    LANGUAGE plpgsql
    COST 1000000
AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = '40F01',
        MESSAGE = format('fenceguard: stale fencing token %s on table %s, row carries token %s',
                         presented, tbl, row_token);
END
$$;
