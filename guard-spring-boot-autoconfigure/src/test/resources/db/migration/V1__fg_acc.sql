-- The test application's own first migration, in Boot's default location: it creates a table that
-- fenceguard fences (fenceguard.jdbc.tables=fg_acc) and seeds it, which works only unfenced.
CREATE TABLE fg_acc (
    id            INT    NOT NULL PRIMARY KEY,
    balance       BIGINT NOT NULL,
    current_token BIGINT
);
INSERT INTO fg_acc (id, balance) VALUES (1, 100);
