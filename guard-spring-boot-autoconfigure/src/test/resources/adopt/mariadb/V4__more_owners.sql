-- A seed after fencing, still without a column list.
INSERT INTO owners VALUES (3, 'Eduardo');
