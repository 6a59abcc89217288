-- fenceguard lease provider (MariaDB, MySQL): one row per resource, never deleted (the token counter
-- lives in it, so deleting a row would let tokens start again at 1). holder is NULL when the lock is
-- free; expires_at is UTC, set and compared by the database's own clock (UTC_TIMESTAMP(6), which does
-- not depend on the session's time zone), never by a client's.

CREATE TABLE IF NOT EXISTS fenceguard_lease (
    resource   VARCHAR(200) NOT NULL PRIMARY KEY,
    holder     VARCHAR(255) NULL,
    token      BIGINT       NOT NULL CHECK (token > 0),
    expires_at DATETIME(6)  NULL
);
