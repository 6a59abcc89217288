package io.fenceguard.test.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A database that tests can connect to. */
public record JdbcEndpoint(String url, String user, String password) {

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
