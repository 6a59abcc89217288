package io.fenceguard.jdbc.lease;

import io.fenceguard.core.spi.LeaseRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/** The statements on the lease table; each runs on a connection the caller owns and closes. */
final class LeaseTable {

    private final String table;
    private final int timeoutSeconds;

    LeaseTable(String table, Duration statementTimeout) {
        this.table = table;
        this.timeoutSeconds = (int) Math.min(Integer.MAX_VALUE, statementTimeout.toSeconds());
    }

    /** The new token, or {@code null} when another holder has the lock. */
    Long take(Connection c, LeaseDialect dialect, LeaseRequest r) throws SQLException {
        long micros = micros(r.leaseTime());
        String upsert = dialect.upsertReturningToken(table);
        if (upsert != null) {
            return single(c, () -> {
                try (PreparedStatement s = prepare(c, upsert)) {
                    s.setString(1, r.resource().value());
                    s.setString(2, r.holder());
                    s.setLong(3, micros);
                    try (ResultSet rs = s.executeQuery()) {
                        return rs.next() ? rs.getLong(1) : null;
                    }
                }
            });
        }
        // Without a returning upsert: take over in a short transaction, reading the token back under the
        // row lock the update holds; only a resource's first grant inserts.
        return inTransaction(c, () -> {
            try (PreparedStatement s = prepare(c, "UPDATE " + table + " SET holder = ?, token = token + 1, expires_at = "
                    + dialect.expiresAt + " WHERE resource = ? AND (holder IS NULL OR expires_at <= " + dialect.now
                    + " OR holder = ?)")) {
                s.setString(1, r.holder());
                s.setLong(2, micros);
                s.setString(3, r.resource().value());
                s.setString(4, r.holder());
                if (s.executeUpdate() == 1) {
                    return currentToken(c, r);
                }
            }
            try (PreparedStatement s = prepare(c, "INSERT INTO " + table + " (resource, holder, token, expires_at) VALUES (?, ?, 1, "
                    + dialect.expiresAt + ")")) {
                s.setString(1, r.resource().value());
                s.setString(2, r.holder());
                s.setLong(3, micros);
                s.executeUpdate();
                return 1L;
            } catch (SQLException e) {
                if (isDuplicateKey(e)) {
                    return null; // the row exists and is held: another holder has the lock
                }
                throw e;
            }
        });
    }

    private Long currentToken(Connection c, LeaseRequest r) throws SQLException {
        try (PreparedStatement s = prepare(c, "SELECT token FROM " + table + " WHERE resource = ?")) {
            s.setString(1, r.resource().value());
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("lease row of '" + r.resource() + "' vanished inside the transaction that updated it");
                }
                return rs.getLong(1);
            }
        }
    }

    /** Extends the lock when it is still this holder's and not yet expired by the database's clock. */
    boolean renew(Connection c, LeaseDialect dialect, LeaseRequest r, long token) throws SQLException {
        return ownUpdate(c, "UPDATE " + table + " SET expires_at = " + dialect.expiresAt
                + " WHERE resource = ? AND holder = ? AND token = ? AND expires_at > " + dialect.now, r, token, true);
    }

    /** Frees the lock when it is still this holder's; the row, and with it the token counter, stays. */
    boolean release(Connection c, LeaseDialect dialect, LeaseRequest r, long token) throws SQLException {
        return ownUpdate(c, "UPDATE " + table + " SET holder = NULL, expires_at = NULL"
                + " WHERE resource = ? AND holder = ? AND token = ? AND expires_at > " + dialect.now, r, token, false);
    }

    private boolean ownUpdate(Connection c, String sql, LeaseRequest r, long token, boolean withLease) throws SQLException {
        return single(c, () -> {
            try (PreparedStatement s = prepare(c, sql)) {
                int i = 1;
                if (withLease) {
                    s.setLong(i++, micros(r.leaseTime()));
                }
                s.setString(i++, r.resource().value());
                s.setString(i++, r.holder());
                s.setLong(i, token);
                return s.executeUpdate() == 1;
            }
        });
    }

    private PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql);
        s.setQueryTimeout(timeoutSeconds);
        return s;
    }

    private static long micros(Duration d) {
        return Math.max(1, d.toNanos() / 1_000);
    }

    static boolean isDuplicateKey(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("23");
    }

    interface SqlCall<T> {
        T run() throws SQLException;
    }

    /** One statement: as is under auto-commit, else committed at once so no lock outlives it. */
    private static <T> T single(Connection c, SqlCall<T> call) throws SQLException {
        return c.getAutoCommit() ? call.run() : inTransaction(c, call);
    }

    private static <T> T inTransaction(Connection c, SqlCall<T> call) throws SQLException {
        boolean auto = c.getAutoCommit();
        if (auto) {
            c.setAutoCommit(false);
        }
        try {
            T result = call.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        } finally {
            if (auto) {
                c.setAutoCommit(true);
            }
        }
    }
}
