-- fenceguard outbox: messages written in the business transaction (so they commit or roll back with its
-- writes) under the fence of the lease the write ran under, until a relay has sent them and the broker
-- acknowledged them; the relay deletes a row once sent. idem_key is the event's unique id, which consumers
-- apply once. headers are the application's own, form-encoded (name=value&...).

CREATE TABLE IF NOT EXISTS fenceguard_outbox (
    id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    resource    VARCHAR(200) NOT NULL,
    token       BIGINT       NOT NULL CHECK (token > 0),
    idem_key    VARCHAR(200) NOT NULL UNIQUE,
    destination VARCHAR(255) NOT NULL,
    routing_key VARCHAR(255),
    headers     TEXT,
    payload     MEDIUMBLOB   NOT NULL,
    created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
);
