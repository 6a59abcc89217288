package io.fenceguard.jdbc;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.internal.sql.GateClaims;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Gate fencing: one row per resource in the gate table ({@value FencingConfig#DEFAULT_GATE_TABLE},
 * created by the fenceguard-db migrations) holding the newest token that claimed it. A claim is one
 * atomic conditional upsert that raises when the row holds a newer token and otherwise stores the
 * token and keeps the row locked until the transaction ends. So a transaction that claimed the gate
 * either committed before a newer holder's claim, or waits for it and then fails: once a newer
 * holder has claimed, every later transaction of an older holder fails.
 */
public final class Gate {

    private Gate() {
    }

    /** Claims the gate for the lease in context on a connection from a {@link FencedDataSource}. */
    public static void claim(Connection connection) throws SQLException {
        if (!connection.isWrapperFor(FencedConnection.class)) {
            throw new SQLException("not a fenced connection; use Gate.claim(connection, dialect, gateTable, fence)");
        }
        connection.unwrap(FencedConnection.class).claimGate();
    }

    /** Claims the gate for {@code fence} on any connection, inside its current transaction. */
    public static void claim(Connection connection, SqlDialect dialect, String gateTable, Fence fence)
            throws SQLException {
        GateClaims.claim(connection, dialect, gateTable, fence);
    }
}
