-- Portable SQL: the same migration serves PostgreSQL, MariaDB/MySQL and H2.
-- The example ledger. accounts and audit_heads are fenced tables (current_token); audit_entries is
-- append-only, ordered by seq, which is assigned under the fenced audit_heads row.
CREATE TABLE accounts (
    id            VARCHAR(64) NOT NULL PRIMARY KEY,
    balance       BIGINT      NOT NULL,
    current_token BIGINT
);

CREATE TABLE audit_heads (
    account_id    VARCHAR(64) NOT NULL PRIMARY KEY,
    last_seq      BIGINT      NOT NULL DEFAULT 0,
    current_token BIGINT
);

CREATE TABLE audit_entries (
    account_id  VARCHAR(64) NOT NULL,
    seq         BIGINT      NOT NULL,
    token       BIGINT      NOT NULL,
    amount      BIGINT      NOT NULL,
    balance     BIGINT      NOT NULL,
    recorded_at TIMESTAMP   NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (account_id, seq)
);
