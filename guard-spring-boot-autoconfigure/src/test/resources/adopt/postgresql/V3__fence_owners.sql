-- Fencing added to a table with rows: the token column last, 0 for the rows there (older than every token).
-- PostgreSQL fills the columns a column-less INSERT leaves out with their defaults, so the seeds keep working.
ALTER TABLE owners ADD COLUMN current_token BIGINT NOT NULL DEFAULT 0;
