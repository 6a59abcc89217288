package io.fenceguard.jdbc;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.SQLException;

/**
 * The database refused a write because a holder with a newer token has already written the row or
 * claimed the gate. The statement had no effect (it is all or nothing); on PostgreSQL the
 * transaction is aborted.
 *
 * <p>SQLState {@value #SQL_STATE}: class 40 (transaction rollback), which Spring's
 * {@code SQLExceptionTranslator}s turn into a {@code PessimisticLockingFailureException}, a
 * {@code ConcurrencyFailureException}. The database functions raise the same state.
 */
public class StaleTokenException extends SQLException {

    public static final String SQL_STATE = "40F01";

    private final transient ResourceName resource;
    private final transient FencingToken token;
    private final String table;
    private final String sql;

    public StaleTokenException(ResourceName resource, FencingToken token, String table, String sql, Throwable cause) {
        super("stale fencing token " + token + " for resource '" + resource + "': a newer holder has written to "
                + table + "; statement refused: " + sql, SQL_STATE, 0, cause);
        this.resource = resource;
        this.token = token;
        this.table = table;
        this.sql = sql;
    }

    /** The resource whose lease presented the token. */
    public ResourceName resource() {
        return resource;
    }

    /** The token the refused statement presented. */
    public FencingToken token() {
        return token;
    }

    /** The fenced table, or the gate table, that refused it. */
    public String table() {
        return table;
    }

    /** The application's SQL. */
    public String sql() {
        return sql;
    }
}
