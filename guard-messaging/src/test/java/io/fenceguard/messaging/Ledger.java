package io.fenceguard.messaging;

import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** A fenced table on the test PostgreSQL that consumers write under the admitted message's token. */
public final class Ledger {

    private final String table;
    private final DataSource raw;
    private final DataSource fenced;

    private Ledger(String table, DataSource raw) throws SQLException {
        this.table = table;
        this.raw = raw;
        FenceguardMigrations.migrate(raw);
        execute("DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, applied INT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + table + " VALUES (1, 0, NULL)");
        this.fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
    }

    public static Ledger create(String table) throws SQLException {
        JdbcEndpoint pg = TestServers.postgres();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(pg.url());
        dataSource.setUser(pg.user());
        dataSource.setPassword(pg.password());
        return new Ledger(table, dataSource);
    }

    /** One fenced write: under the lease (or presented fence) bound to this thread. */
    public void apply() throws SQLException {
        try (Connection c = fenced.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET applied = applied + 1 WHERE id = ?")) {
            ps.setInt(1, 1);
            ps.executeUpdate();
        }
    }

    public long applied() throws SQLException {
        return queryLong("SELECT applied FROM " + table + " WHERE id = 1");
    }

    public long rowToken() throws SQLException {
        return queryLong("SELECT current_token FROM " + table + " WHERE id = 1");
    }

    private long queryLong(String sql) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String... statements) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
