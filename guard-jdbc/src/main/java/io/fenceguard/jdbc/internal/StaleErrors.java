package io.fenceguard.jdbc.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.SQLException;

/** Recognises the database's stale-token error (SQLSTATE 40F01) under whatever the driver wrapped it in. */
final class StaleErrors {

    private static final String MESSAGE = "fenceguard: stale fencing token";

    private StaleErrors() {
    }

    static boolean isStale(Throwable error) {
        for (int depth = 0; error != null && depth < 16; depth++) {
            if (error instanceof StaleTokenException) {
                return true;
            }
            if (error instanceof SQLException sql) {
                if (StaleTokenException.SQL_STATE.equals(sql.getSQLState())) {
                    return true;
                }
                SQLException next = sql.getNextException();
                if (next != null && next != error && isStale(next)) {
                    return true;
                }
            }
            if (error.getMessage() != null && error.getMessage().contains(MESSAGE)) {
                return true;
            }
            error = error.getCause() == error ? null : error.getCause();
        }
        return false;
    }

    /** {@code error} as a {@link StaleTokenException} when it is one, else unchanged. */
    static SQLException translate(SQLException error, Fence fence, String table, String sql) {
        if (error instanceof StaleTokenException || fence == null || !isStale(error)) {
            return error;
        }
        return new StaleTokenException(fence, table == null ? "a fenced table" : table, sql, error);
    }
}
