package io.fenceguard.jdbc.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * The PostgreSQL the benchmarks run against: {@code GUARD_TEST_POSTGRES_URL} ({@code _USER},
 * {@code _PASSWORD}) as the tests use it, or by default the local server
 * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres} (never an embedded or container one:
 * a benchmark measures the server it is pointed at).
 */
final class BenchDatabase {

    static final String URL = env("GUARD_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String USER = env("GUARD_TEST_POSTGRES_USER", "postgres");
    static final String PASSWORD = env("GUARD_TEST_POSTGRES_PASSWORD", "");

    private BenchDatabase() {
    }

    /** A pool of {@code size} with the guard's migrations applied (as the tests apply them). */
    static HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setUsername(USER);
        config.setPassword(PASSWORD);
        config.setMaximumPoolSize(size);
        config.setPoolName("bench");
        HikariDataSource dataSource = new HikariDataSource(config);
        FenceguardMigrations.migrate(dataSource);
        return dataSource;
    }

    /**
     * A pool on the MariaDB of {@code GUARD_TEST_MARIADB_URL} ({@code _USER}, {@code _PASSWORD}) with the
     * guard's migrations applied, or {@code null} when that variable is not set.
     */
    static HikariDataSource mariadbPool(int size) {
        String url = env("GUARD_TEST_MARIADB_URL", null);
        if (url == null) {
            return null;
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(env("GUARD_TEST_MARIADB_USER", "root"));
        config.setPassword(env("GUARD_TEST_MARIADB_PASSWORD", ""));
        config.setMaximumPoolSize(size);
        config.setPoolName("bench-mariadb");
        HikariDataSource dataSource = new HikariDataSource(config);
        FenceguardMigrations.migrate(dataSource);
        return dataSource;
    }

    /** "PostgreSQL 15.2 at jdbc:…" */
    static String describe(javax.sql.DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion() + " at " + meta.getURL()
                    + " (driver " + meta.getDriverVersion() + ")";
        }
    }

    /**
     * CPU time of the PostgreSQL server processes on this machine (user + system, from /proc), or -1 when the
     * server is not local or /proc cannot be read: where a statement's cost goes, client or server.
     */
    static long localServerCpuNanos() {
        String host = java.net.URI.create(URL.substring("jdbc:".length())).getHost();
        if (host == null || !(host.equals("127.0.0.1") || host.equals("localhost") || host.equals("::1"))) {
            return -1;
        }
        return io.fenceguard.test.support.bench.ProcessCpu.localProcesses("postgres");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
