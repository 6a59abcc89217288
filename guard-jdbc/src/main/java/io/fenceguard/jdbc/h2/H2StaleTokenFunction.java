package io.fenceguard.jdbc.h2;

import io.fenceguard.jdbc.StaleTokenException;
import java.sql.SQLException;

/**
 * H2's {@code fenceguard_stale}, declared by the fenceguard-db H2 migration with
 * {@code CREATE ALIAS ... FOR 'io.fenceguard.jdbc.h2.H2StaleTokenFunction.stale'}.
 */
public final class H2StaleTokenFunction {

    private H2StaleTokenFunction() {
    }

    /** Raises the stale-token error; called only for a row whose token is newer than {@code presented}. */
    public static Long stale(String table, Long rowToken, Long presented) throws SQLException {
        throw new SQLException("fenceguard: stale fencing token " + presented + " on table " + table
                + ", row carries token " + rowToken, StaleTokenException.SQL_STATE);
    }
}
