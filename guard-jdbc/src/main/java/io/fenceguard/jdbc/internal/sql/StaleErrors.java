package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.internal.catalog.Catalog;
import java.sql.SQLException;

/** Recognises the database's stale-token error (SQLSTATE 40F01) under whatever the driver wrapped it in. */
public final class StaleErrors {

    private static final String MESSAGE = "fenceguard: stale fencing token";

    private StaleErrors() {
    }

    /** PostgreSQL 42883 (undefined function) or MariaDB 1305 (does not exist) about the stale function. */
    static boolean isMissingStaleFunction(SQLException error) {
        String message = error.getMessage();
        return message != null && message.contains(Catalog.STALE_FUNCTION)
                && ("42883".equals(error.getSQLState()) || error.getErrorCode() == 1305
                        || message.contains("does not exist") || message.contains("not found"));
    }

    /** Whether {@code error} is the stale-token error raised for {@code table} (the function names its table). */
    public static boolean isStaleOn(SQLException error, String table) {
        return isStale(error) && String.valueOf(error.getMessage()).contains(" on table " + table + ",");
    }

    public static boolean isStale(Throwable error) {
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

    /**
     * {@code error} as a {@link StaleTokenException} when it is one, as a {@link FencingConfigurationException}
     * when the database did not find {@code fenceguard_stale}, else unchanged.
     */
    public static SQLException translate(SQLException error, Fence fence, String table, String sql) {
        if (isMissingStaleFunction(error)) {
            return new FencingConfigurationException("the database did not find function "
                    + Catalog.STALE_FUNCTION + " (" + error.getMessage().lines().findFirst().orElse("")
                    + "); apply the guard's migrations (FenceguardMigrations.migrate) to the database of the fenced"
                    + " tables, put their schema on the search_path, or leave the catalog check on"
                    + " (FencingConfig verifyCatalog) so that the guard names the function schema-qualified", error);
        }
        if (error instanceof StaleTokenException || fence == null || !isStale(error)) {
            return error;
        }
        return new StaleTokenException(fence, table == null ? "a fenced table" : table, sql, error);
    }
}
