package io.fenceguard.jdbc;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.internal.sql.HighWaterClaims;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * High-water fencing of SQL: one row per resource in the high-water table
 * ({@value FencingConfig#DEFAULT_HIGH_WATER_TABLE}, created by the fenceguard-db migrations) holding the
 * resource's high-water mark, the newest token that claimed it. A claim is one atomic conditional upsert that
 * raises when the row holds a newer token and otherwise stores the token and keeps the row locked until the
 * transaction ends. So a transaction that claimed the mark either committed before a newer holder's claim, or
 * waits for it and then fails: once a newer holder has claimed, every later transaction of an older holder fails.
 * The same mark as HTTP's and messages' high-water mark, kept in the application's own database.
 */
public final class HighWaterMarks {

    private HighWaterMarks() {
    }

    /** Claims the resource's mark for the lease in context on a connection from a {@link FencedDataSource}. */
    public static void claim(Connection connection) throws SQLException {
        if (!connection.isWrapperFor(FencedConnection.class)) {
            throw new SQLException("not a fenced connection; use HighWaterMarks.claim(connection, dialect, "
                    + "highWaterTable, fence)");
        }
        connection.unwrap(FencedConnection.class).claimHighWaterMark();
    }

    /** Claims the mark of {@code fence}'s resource on any connection, inside its current transaction. */
    public static void claim(Connection connection, SqlDialect dialect, String highWaterTable, Fence fence)
            throws SQLException {
        HighWaterClaims.claim(connection, dialect, highWaterTable, fence);
    }
}
