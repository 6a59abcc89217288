-- The harness's tables (fenceguard's own come from fenceguard-db). proof_cell is the fenced table:
-- current_token is its token column. writes counts the writes admitted per row, the admission order.
CREATE TABLE proof_cell (
    resource      VARCHAR(100) PRIMARY KEY,
    value         BIGINT NOT NULL,
    writes        BIGINT NOT NULL,
    current_token BIGINT
);

-- The append-only ledger of the account workload.
CREATE TABLE proof_ledger (
    id       BIGSERIAL PRIMARY KEY,
    resource VARCHAR(100) NOT NULL,
    amount   BIGINT NOT NULL,
    op_id    VARCHAR(80) NOT NULL
);

-- Every admitted write with its admission sequence, read back under the row lock of the write.
CREATE TABLE proof_write_log (
    resource      VARCHAR(100) NOT NULL,
    seq           BIGINT NOT NULL,
    token         BIGINT NOT NULL,
    op_id         VARCHAR(80) NOT NULL,
    value_read    BIGINT NOT NULL,
    value_written BIGINT NOT NULL,
    PRIMARY KEY (resource, seq)
);
