-- The audit calls still to be sent: a deposit inserts its row in the transaction that writes the
-- balance, and the relay sends it (with the row's id as Idempotency-Key) and marks it sent. A crash
-- at any point leaves either nothing or a row that is sent, at most once in effect, after restart.
CREATE TABLE audit_outbox (
    id         VARCHAR(64) NOT NULL PRIMARY KEY,
    account_id VARCHAR(64) NOT NULL,
    amount     BIGINT      NOT NULL,
    balance    BIGINT      NOT NULL,
    sent       SMALLINT    NOT NULL DEFAULT 0
);

CREATE INDEX audit_outbox_pending ON audit_outbox (sent, account_id, balance);
