-- fenceguard: the gate table and the stale-token function used by rewritten statements
-- (MariaDB and MySQL). The guard's own migrations, with their own history table
-- (fenceguard_schema_history): see io.fenceguard.db.FenceguardMigrations. Idempotent, so databases
-- migrated by older versions take it.

CREATE TABLE IF NOT EXISTS fenceguard_gate (
    resource   VARCHAR(255) NOT NULL PRIMARY KEY,
    token      BIGINT       NOT NULL,
    claimed_at TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE = InnoDB;

DROP FUNCTION IF EXISTS fenceguard_stale;

-- Called only for a row whose token is newer than the presented one. SIGNAL fails the whole
-- statement (InnoDB rolls back the statement), so a stale write is never a silent zero and a
-- multi-row statement never applies partially. SQLSTATE 40F01: class 40 so Spring translates
-- it to a ConcurrencyFailureException. NO SQL + DETERMINISTIC keeps it legal with binary logging;
-- the row's token is an argument, so it is never folded into a constant.
DELIMITER //
CREATE FUNCTION fenceguard_stale(tbl VARCHAR(255), row_token BIGINT, presented BIGINT)
    RETURNS BIGINT
    DETERMINISTIC
    NO SQL
BEGIN
    DECLARE msg VARCHAR(512) DEFAULT CONCAT('fenceguard: stale fencing token ', presented,
        ' on table ', tbl, ', row carries token ', row_token);
    SIGNAL SQLSTATE '40F01' SET MESSAGE_TEXT = msg;
    RETURN NULL;
END //
DELIMITER ;
