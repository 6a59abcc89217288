package io.fenceguard.jdbc;

import java.sql.SQLNonTransientException;

/**
 * The fencing configuration does not fit the database: a fenced table that does not exist or lacks its
 * token column, a rule or view the guard cannot fence, the function {@code fenceguard_stale} missing.
 * Raised by {@link FencedDataSource#verify()} and, until a catalog check passes, by every statement
 * on a fenced connection but a plain read, before anything is sent; the message is one line naming
 * the fix.
 */
public class FencingConfigurationException extends SQLNonTransientException {

    public static final String SQL_STATE = "F0F01";

    public FencingConfigurationException(String message) {
        this(message, null);
    }

    public FencingConfigurationException(String message, Throwable cause) {
        super("fenceguard configuration: " + message, SQL_STATE, cause);
    }
}
