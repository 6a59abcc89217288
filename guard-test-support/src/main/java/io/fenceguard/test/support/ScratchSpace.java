package io.fenceguard.test.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A schema (PostgreSQL) or database (MariaDB/MySQL) of a test's own on a shared test server, so that
 * parallel and repeated runs never see each other's tables; dropped on close.
 *
 * @param schema the schema to make current on PostgreSQL; null on MariaDB, whose {@link #jdbcUrl} names the database
 */
public record ScratchSpace(JdbcEndpoint server, String name, String jdbcUrl, String schema) implements AutoCloseable {

    /** Creates it, named {@code <prefix>_<random>}. */
    public static ScratchSpace create(JdbcEndpoint server, String prefix) {
        String name = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        if (isMariaDb(server)) {
            execute(server, "CREATE DATABASE " + name);
            return new ScratchSpace(server, name, server.url().replaceFirst("(//[^/]+/)[^?]*", "$1" + name), null);
        }
        execute(server, "CREATE SCHEMA " + name);
        return new ScratchSpace(server, name, server.url(), name);
    }

    /** Plain connections to this space (no pool), its schema current on PostgreSQL. */
    public DataSource dataSource() {
        return new ScratchSpaceDataSource(this);
    }

    public boolean isMariaDb() {
        return isMariaDb(server);
    }

    private static boolean isMariaDb(JdbcEndpoint server) {
        return server.url().startsWith("jdbc:mariadb:") || server.url().startsWith("jdbc:mysql:");
    }

    private static void execute(JdbcEndpoint server, String sql) {
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on " + server.url(), e);
        }
    }

    @Override
    public void close() {
        execute(server, isMariaDb() ? "DROP DATABASE " + name : "DROP SCHEMA " + name + " CASCADE");
    }
}
