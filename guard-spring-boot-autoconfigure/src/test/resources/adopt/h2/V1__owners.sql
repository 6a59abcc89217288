-- The application's table before fencing, as it has been in production.
CREATE TABLE owners (id INT PRIMARY KEY, first_name VARCHAR(30) NOT NULL);
