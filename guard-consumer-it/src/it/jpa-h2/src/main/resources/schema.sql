CREATE TABLE owners (
    id            VARCHAR(64)  PRIMARY KEY,
    name          VARCHAR(100) NOT NULL,
    visits        BIGINT       NOT NULL,
    version       BIGINT       NOT NULL,
    current_token BIGINT
);
