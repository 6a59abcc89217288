package io.fenceguard.http.filter.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The PostgreSQL the HTTP benchmark's JDBC store runs on: {@code GUARD_TEST_POSTGRES_URL} ({@code _USER},
 * {@code _PASSWORD}) as the tests use it, or by default the local server
 * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}; a fresh schema with the fenceguard-db
 * migrations, dropped at the end.
 */
final class BenchPostgres implements AutoCloseable {

    static final String URL = env("GUARD_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String USER = env("GUARD_TEST_POSTGRES_USER", "postgres");
    static final String PASSWORD = env("GUARD_TEST_POSTGRES_PASSWORD", "");

    final String schema = "http_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    BenchPostgres() {
        try (Connection c = DriverManager.getConnection(URL, USER, PASSWORD); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create schema " + schema + " on " + URL, e);
        }
        try (HikariDataSource pool = pool(2)) { // Flyway takes two connections
            FenceguardMigrations.migrate(pool);
        }
    }

    HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setUsername(USER);
        config.setPassword(PASSWORD);
        config.setSchema(schema);
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    String describe() throws SQLException {
        try (Connection c = DriverManager.getConnection(URL, USER, PASSWORD)) {
            DatabaseMetaData meta = c.getMetaData();
            return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion() + " at " + URL;
        }
    }

    /** The table the benchmark's writing handler inserts into. */
    void createWritesTable() throws SQLException {
        try (HikariDataSource pool = pool(1); Connection c = pool.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS bench_writes (id VARCHAR(64) NOT NULL)");
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(URL, USER, PASSWORD); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
