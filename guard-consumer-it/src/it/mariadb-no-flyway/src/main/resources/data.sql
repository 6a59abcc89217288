INSERT INTO wallets (id, balance) VALUES ('house', 1000);
