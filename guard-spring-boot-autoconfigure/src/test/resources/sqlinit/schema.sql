-- An application without Flyway: its fenced table (with the token column) from spring.sql.init's schema script.
CREATE TABLE fg_acc (
    id            INT    NOT NULL PRIMARY KEY,
    balance       BIGINT NOT NULL,
    current_token BIGINT
);
