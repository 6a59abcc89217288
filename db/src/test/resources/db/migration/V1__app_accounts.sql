-- An application's own first migration, in Boot's default location: it must never meet the guard's.
CREATE TABLE app_accounts (
    id            INT    NOT NULL PRIMARY KEY,
    balance       BIGINT NOT NULL,
    current_token BIGINT
);
INSERT INTO app_accounts (id, balance) VALUES (1, 100);
