package io.fenceguard.jdbclock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/** A pool on a schema (PostgreSQL) or database (MariaDB) of its own, with the lease table; dropped on close. */
record ScratchDatabase(String kind, String name, HikariDataSource dataSource, JdbcEndpoint server) implements AutoCloseable {

    static ScratchDatabase on(String kind) {
        String name = "fg_lease_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        JdbcEndpoint server = "mariadb".equals(kind) ? TestServers.mariadb() : TestServers.postgres();
        HikariConfig config = new HikariConfig();
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(12);
        config.setPoolName(name);
        if ("mariadb".equals(kind)) {
            execute(server, "CREATE DATABASE " + name);
            config.setJdbcUrl(server.url().replaceFirst("(//[^/]+/)[^?]*", "$1" + name));
        } else {
            execute(server, "CREATE SCHEMA " + name);
            config.setJdbcUrl(server.url());
            config.setSchema(name);
        }
        HikariDataSource dataSource = new HikariDataSource(config);
        JdbcLeaseSchema.create(dataSource);
        return new ScratchDatabase(kind, name, dataSource, server);
    }

    /** The same database at a port nobody listens on: every statement fails as when the server is gone. */
    DataSource unreachable() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.url().replaceFirst("//[^/]+/", "//127.0.0.1:1/"));
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(500);
        return new HikariDataSource(config);
    }

    void sql(String... statements) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
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
        dataSource.close();
        execute(server, "mariadb".equals(kind) ? "DROP DATABASE " + name : "DROP SCHEMA " + name + " CASCADE");
    }
}
