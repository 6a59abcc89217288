-- Its first row: a write to a fenced table without a lease, which works only unfenced.
INSERT INTO fg_acc (id, balance) VALUES (1, 100);
