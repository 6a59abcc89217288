package io.fenceguard.jdbc;

import java.sql.SQLException;

/**
 * What a fenced connection adds; reach it with {@code connection.unwrap(FencedConnection.class)}
 * (or {@link HighWaterMarks#claim(java.sql.Connection)}).
 */
public interface FencedConnection {

    /**
     * Claims the high-water row of the resource of the fence in context, inside the current transaction.
     *
     * @throws StaleTokenException when a newer holder has claimed it
     * @throws FencingRefusedException when no lease is in context or it is lost
     */
    void claimHighWaterMark() throws SQLException;

    /** The dialect the connection fences for. */
    SqlDialect dialect();
}
