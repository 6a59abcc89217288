-- An application's own first migration, in Flyway's default location: creates a table the guard
-- fences and seeds it, which works only unfenced (MigrationsOnH2Test).
CREATE TABLE fg_seeded (
    id            INT    NOT NULL PRIMARY KEY,
    balance       BIGINT NOT NULL,
    current_token BIGINT
);
INSERT INTO fg_seeded (id, balance) VALUES (1, 100);
