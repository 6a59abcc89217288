-- fenceguard lease provider: one row per resource, never deleted (the token counter lives in it, so
-- deleting a row would let tokens start again at 1). holder is NULL when the lock is free; expires_at
-- is set and compared by the database's own clock (now()), never by a client's.

CREATE TABLE IF NOT EXISTS fenceguard_lease (
    resource   VARCHAR(200) NOT NULL PRIMARY KEY,
    holder     VARCHAR(255),
    token      BIGINT       NOT NULL CHECK (token > 0),
    expires_at TIMESTAMPTZ
);
