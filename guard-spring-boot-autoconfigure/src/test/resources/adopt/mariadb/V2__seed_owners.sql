-- Seeds written without a column list.
INSERT INTO owners VALUES (1, 'George');
INSERT INTO owners VALUES (2, 'Betty');
