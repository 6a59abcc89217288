package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;

/**
 * Trigger mode: keeps the session's token, which the database's triggers check
 * ({@code io.fenceguard.db.FenceguardTriggers}), equal to the fence of the write about to run, and
 * empty for everything else (unfenced work, no lease, the connection back in the pool). One statement
 * when the token changes on a connection, none while it stays. Confined to the connection's user.
 */
final class SessionToken {

    private final SqlDialect dialect;
    /** The token the session holds, or {@code null} for none. */
    private Long set;
    /** Whether the session may hold a value other than {@link #set} (PostgreSQL undoes a SET on rollback). */
    private boolean unknown;
    /** Whether a SET ran in the current transaction (which a PostgreSQL rollback undoes). */
    private boolean setInTransaction;

    SessionToken(SqlDialect dialect) {
        this.dialect = dialect;
    }

    /** Before a statement runs: the fence's token for a write under a lease, none without a fence. */
    void before(Connection raw, Optional<Fence> fence, boolean read) throws SQLException {
        if (fence.isPresent()) {
            long token = fence.get().token().value();
            if (!read && (unknown || set == null || set != token)) {
                apply(raw, token);
            }
        } else if (unknown || set != null) {
            apply(raw, null);
        }
    }

    /** For commit, rollback, setAutoCommit and close, before they run. */
    void on(String method, Connection raw) {
        if (method.equals("rollback")) {
            unknown |= setInTransaction && dialect == SqlDialect.POSTGRESQL;
            setInTransaction = false;
        } else if (method.equals("commit") || method.equals("setAutoCommit")) {
            setInTransaction = false;
        } else if (method.equals("close") && (unknown || set != null)) {
            try {
                if (dialect == SqlDialect.POSTGRESQL && !raw.getAutoCommit()) {
                    // the open transaction ends unfinished at close anyway; the clearing must outlive it
                    raw.rollback();
                    apply(raw, null);
                    raw.commit();
                } else {
                    apply(raw, null);
                }
            } catch (SQLException | RuntimeException e) {
                // a session still holding a token must not serve anyone else: drop the physical connection
                try {
                    raw.abort(Runnable::run);
                } catch (SQLException | RuntimeException ignored) {
                    // closing follows anyway
                }
            }
        }
    }

    private void apply(Connection raw, Long token) throws SQLException {
        String sql = dialect == SqlDialect.POSTGRESQL ? "SELECT set_config('fenceguard.token', ?, false)"
                : "SET @fenceguard_token = ?";
        try (PreparedStatement statement = raw.prepareStatement(sql)) {
            if (dialect == SqlDialect.POSTGRESQL) {
                statement.setString(1, token == null ? "" : Long.toString(token));
            } else if (token == null) {
                statement.setNull(1, Types.BIGINT);
            } else {
                statement.setLong(1, token);
            }
            statement.execute();
        }
        set = token;
        unknown = false;
        setInTransaction = !raw.getAutoCommit();
    }
}
