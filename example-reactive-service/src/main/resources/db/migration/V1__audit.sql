-- The audit trail. audit_heads is a fenced table (current_token): its row numbers the entries of one
-- account in token order. audit_entries is append-only.
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
