CREATE TABLE accounts (
    id            VARCHAR(64)  PRIMARY KEY,
    branch        VARCHAR(64)  NOT NULL,
    owner         VARCHAR(100) NOT NULL,
    balance       BIGINT       NOT NULL,
    version       BIGINT       NOT NULL,
    current_token BIGINT
);
