package io.fenceguard.jdbc.lease;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The SQL that differs between databases: the clock expressions, and whether an upsert can return the token. */
enum LeaseDialect {

    POSTGRESQL("postgresql", "now()", "now() + ? * INTERVAL '1 microsecond'") {
        @Override
        String upsertReturningToken(String table) {
            // One statement: insert the row, or take it over when free, expired or already this holder's
            // (a retried acquire whose answer was lost); no row comes back when another holder has it.
            return "INSERT INTO " + table + " AS l (resource, holder, token, expires_at) VALUES (?, ?, 1, " + expiresAt
                    + ") ON CONFLICT (resource) DO UPDATE SET holder = EXCLUDED.holder, token = l.token + 1,"
                    + " expires_at = EXCLUDED.expires_at WHERE l.holder IS NULL OR l.expires_at <= " + now
                    + " OR l.holder = EXCLUDED.holder RETURNING token";
        }
    },
    MYSQL("mysql", "UTC_TIMESTAMP(6)", "TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6))"),
    H2("h2", "CURRENT_TIMESTAMP(6)", "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))");

    /** Folder of the DDL script under {@code fenceguard/db/lease/}. */
    final String folder;
    /** The database's current time, as the expiry column stores it. */
    final String now;
    /** Now plus a bound number of microseconds. */
    final String expiresAt;

    LeaseDialect(String folder, String now, String expiresAt) {
        this.folder = folder;
        this.now = now;
        this.expiresAt = expiresAt;
    }

    /** A single statement that grants and returns the token, or {@code null} where the database has none. */
    String upsertReturningToken(String table) {
        return null;
    }

    String ddlResource() {
        return "fenceguard/db/lease/" + folder + "/V1__fenceguard_lease.sql";
    }

    static LeaseDialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MYSQL;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new SQLException("unsupported database for the lease table: " + product
                + " (supported: PostgreSQL, MariaDB, MySQL, H2)");
    }
}
