-- The application's own schema, in Boot's default location, seeding a fenced table.
CREATE TABLE consumer_accounts (
    id            VARCHAR(64) PRIMARY KEY,
    balance       BIGINT      NOT NULL,
    current_token BIGINT
);
INSERT INTO consumer_accounts (id, balance) VALUES ('a1', 100), ('a2', 200);
