package io.fenceguard.db;

import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** A schema (PostgreSQL) or database (MariaDB) of its own on the test server, dropped on close. */
record ScratchSchema(String name, DataSource dataSource, Runnable drop) implements AutoCloseable {

    static ScratchSchema on(String kind) throws SQLException {
        String name = "fg_db_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        return switch (kind) {
            case "postgresql" -> postgres(name);
            case "mariadb" -> mariadb(name);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static ScratchSchema postgres(String name) throws SQLException {
        JdbcEndpoint server = TestServers.postgres();
        execute(server, "CREATE SCHEMA " + name);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(server.url());
        dataSource.setUser(server.user());
        dataSource.setPassword(server.password());
        dataSource.setCurrentSchema(name);
        return new ScratchSchema(name, dataSource, () -> execute(server, "DROP SCHEMA " + name + " CASCADE"));
    }

    private static ScratchSchema mariadb(String name) throws SQLException {
        JdbcEndpoint server = TestServers.mariadb();
        execute(server, "CREATE DATABASE " + name);
        MariaDbDataSource dataSource = new MariaDbDataSource(server.url().replaceFirst("(//[^/]+/)[^?]*", "$1" + name));
        dataSource.setUser(server.user());
        dataSource.setPassword(server.password());
        return new ScratchSchema(name, dataSource, () -> execute(server, "DROP DATABASE " + name));
    }

    private static void execute(JdbcEndpoint server, String sql) {
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    @Override
    public void close() {
        drop.run();
    }
}
