package io.fenceguard.jdbc.admission.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** The shared test PostgreSQL, with a fresh schema per test. */
public final class Stores {

    private Stores() {
    }

    /**
     * A new schema on the test PostgreSQL with the guard's own migrations applied (fenceguard-db, the
     * high-water table among them), as an application gets them; returns its name.
     */
    public static String migratedPostgresSchema() {
        String schema = "http_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcEndpoint pg = TestServers.postgres();
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create schema " + schema + " on " + pg.url(), e);
        }
        try (HikariDataSource ds = postgres(schema, 2)) { // Flyway takes two connections
            FenceguardMigrations.migrate(ds);
        }
        return schema;
    }

    public static HikariDataSource postgres(String schema, int poolSize) {
        JdbcEndpoint pg = TestServers.postgres();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.url());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setSchema(schema);
        config.setMaximumPoolSize(poolSize);
        return new HikariDataSource(config);
    }
}
