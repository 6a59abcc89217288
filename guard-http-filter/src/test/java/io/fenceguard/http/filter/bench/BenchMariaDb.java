package io.fenceguard.http.filter.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The MariaDB the HTTP benchmark's MariaDB rows run on: the tests' ({@code GUARD_TEST_MARIADB_URL}, else an embedded
 * one); a fresh database with the fenceguard-db migrations, dropped at the end.
 */
final class BenchMariaDb implements AutoCloseable {

    private final JdbcEndpoint server = TestServers.mariadb();
    final String database = "http_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private final String url;

    BenchMariaDb() {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + database + " on " + server.url(), e);
        }
        URI uri = URI.create(server.url().substring("jdbc:".length()));
        url = "jdbc:" + uri.getScheme() + "://" + uri.getAuthority() + "/" + database
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        try (HikariDataSource pool = pool(2)) { // Flyway takes two connections
            FenceguardMigrations.migrate(pool);
        }
    }

    HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
        }
    }
}
