CREATE TABLE accounts (
    id            VARCHAR(64) PRIMARY KEY,
    balance       BIGINT      NOT NULL,
    current_token BIGINT
);
