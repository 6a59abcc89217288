-- Fencing added to a table with rows: 0 for the rows there (older than every token). INVISIBLE keeps the column
-- out of column-less INSERTs (and SELECT *), so the seeds keep working; named, it is read and written as any column.
ALTER TABLE owners ADD COLUMN current_token BIGINT INVISIBLE DEFAULT 0 NOT NULL;
