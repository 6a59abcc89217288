package io.fenceguard.docs;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A PostgreSQL database of its own on the test server (so that the samples' table names meet no other
 * build's), with the guard's migrations and an {@code accounts} table whose rows carry a token; dropped on close.
 */
public final class SampleDatabase implements AutoCloseable {

    private final JdbcEndpoint server;
    private final String name;
    private final HikariDataSource pool;

    private SampleDatabase(JdbcEndpoint server, String name, HikariDataSource pool) {
        this.server = server;
        this.name = name;
        this.pool = pool;
    }

    public static SampleDatabase create() throws SQLException {
        JdbcEndpoint server = TestServers.postgres();
        String name = "fgdocs_" + UUID.randomUUID().toString().substring(0, 8);
        execute(server, "CREATE DATABASE " + name);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.url().replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1"));
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(4);
        SampleDatabase db = new SampleDatabase(server, name, new HikariDataSource(config));
        FenceguardMigrations.migrate(db.pool);
        try (Connection c = db.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)");
            s.execute("INSERT INTO accounts (id, balance) VALUES ('42', 100)");
        }
        return db;
    }

    /** The plain pool, below any fence. */
    public HikariDataSource pool() {
        return pool;
    }

    public long queryLong(String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public void execute(String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        pool.close();
        execute(server, "DROP DATABASE IF EXISTS " + name);
    }

    private static void execute(JdbcEndpoint server, String sql) throws SQLException {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
