-- fenceguard http: nonces up to 200 characters, as NonceStore allows (a request signature's key id and nonce
-- take at most 97).

ALTER TABLE fenceguard_http_nonce MODIFY nonce VARCHAR(200) NOT NULL;
