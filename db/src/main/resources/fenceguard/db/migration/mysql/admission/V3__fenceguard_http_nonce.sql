-- fenceguard http: the nonces of request signatures (RFC 9421) until they expire, so that a signed
-- request is admitted once. Rows past expires_at are deleted by the store now and then.

CREATE TABLE IF NOT EXISTS fenceguard_http_nonce (
    nonce      VARCHAR(120) NOT NULL PRIMARY KEY,
    expires_at DATETIME(3) NOT NULL
);
