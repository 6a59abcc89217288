-- What the ledger's events (profile events) project: per account, the last audit entry seen and its
-- balance. Fenced (fenceguard.jdbc.tables): the consumer writes under the token the event carries, so an
-- event of an older holder cannot overwrite a newer one's row.
CREATE TABLE audit_projection (
    account_id    VARCHAR(64) NOT NULL PRIMARY KEY,
    last_seq      BIGINT      NOT NULL,
    balance       BIGINT      NOT NULL,
    current_token BIGINT
);
