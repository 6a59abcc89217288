package io.fenceguard.jdbc.lease;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Creates the lease table when it does not exist, from the same scripts that Flyway users can apply
 * themselves ({@code fenceguard/db/lease/postgresql|mysql|h2/V1__fenceguard_lease.sql}).
 */
public final class JdbcLeaseSchema {

    private static final String DEFAULT_TABLE = "fenceguard_lease";

    private JdbcLeaseSchema() {
    }

    /** {@code CREATE TABLE IF NOT EXISTS fenceguard_lease} for the database behind {@code dataSource}. */
    public static void create(DataSource dataSource) {
        create(dataSource, JdbcLeaseConfig.defaults());
    }

    /** Creates the table named by {@code config} when it does not exist. */
    public static void create(DataSource dataSource, JdbcLeaseConfig config) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(config, "config");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            String ddl = script(LeaseDialect.of(c)).replace(DEFAULT_TABLE, config.tableName());
            for (String sql : ddl.split(";")) {
                if (!sql.isBlank()) {
                    s.execute(sql);
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the lease table " + config.tableName() + ": " + e.getMessage(), e);
        }
    }

    /** The DDL of a dialect, without its comment lines. */
    static String script(LeaseDialect dialect) {
        String path = dialect.ddlResource();
        try (InputStream in = JdbcLeaseSchema.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            StringBuilder sql = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.stripLeading().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + path, e);
        }
    }
}
