INSERT INTO owners (id, name, visits, version) VALUES ('george', 'George Franklin', 0, 0);
INSERT INTO owners (id, name, visits, version) VALUES ('betty', 'Betty Davis', 0, 0);
