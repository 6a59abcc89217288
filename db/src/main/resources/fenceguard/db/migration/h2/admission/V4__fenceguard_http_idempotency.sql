-- fenceguard http: the first response to each Idempotency-Key of a resource, so that a retried or
-- replayed request is answered from it instead of being applied twice. status is NULL while the first
-- request runs; rows older than the retention are deleted by the store now and then.

CREATE TABLE IF NOT EXISTS fenceguard_http_idempotency (
    resource     VARCHAR(200) NOT NULL,
    idem_key     VARCHAR(200) NOT NULL,
    fingerprint  VARCHAR(64)  NOT NULL,
    token        BIGINT       NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    status       INT,
    content_type VARCHAR(200),
    body         VARBINARY,
    PRIMARY KEY (resource, idem_key)
);
