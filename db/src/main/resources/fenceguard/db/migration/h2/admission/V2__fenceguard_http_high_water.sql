-- fenceguard http: the highest fencing token each guarded HTTP resource has admitted.
-- Shared by every instance of the resource server; rows are never deleted (forgetting a mark
-- would admit stale tokens again). Resource names are at most 200 characters.

CREATE TABLE IF NOT EXISTS fenceguard_http_high_water (
    resource   VARCHAR(200) NOT NULL PRIMARY KEY,
    token      BIGINT       NOT NULL CHECK (token > 0),
    updated_at TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP
);
