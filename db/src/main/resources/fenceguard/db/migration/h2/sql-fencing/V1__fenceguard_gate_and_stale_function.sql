-- fenceguard: the gate table and the stale-token function used by rewritten statements (H2).
-- The function is a Java method in guard-jdbc, which must be on the classpath of the JVM that
-- runs H2 (embedded or in-process server). The guard's own migrations, with their own history table
-- (fenceguard_schema_history): see io.fenceguard.db.FenceguardMigrations.

CREATE TABLE IF NOT EXISTS fenceguard_gate (
    resource   VARCHAR(255) NOT NULL PRIMARY KEY,
    token      BIGINT       NOT NULL,
    claimed_at TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE ALIAS IF NOT EXISTS fenceguard_stale FOR 'io.fenceguard.jdbc.h2.H2StaleTokenFunction.stale';
