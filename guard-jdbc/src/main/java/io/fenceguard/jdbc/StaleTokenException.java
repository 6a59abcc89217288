package io.fenceguard.jdbc;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.SQLTransactionRollbackException;
import java.util.Objects;

/**
 * The database refused a write because a holder with a newer token has already written the row or
 * claimed the mark. The statement had no effect (it is all or nothing); on PostgreSQL the
 * transaction is aborted.
 *
 * <p>SQLState {@value #SQL_STATE}: class 40 (transaction rollback), and the JDBC subclass of that class, so
 * that every translator that reads either (Spring's, Hibernate's, MyBatis' through Spring's) sees a
 * concurrency failure, not a generic error: Spring's {@code SQLExceptionTranslator}s turn it into a
 * {@code PessimisticLockingFailureException}, a {@code ConcurrencyFailureException}, and fenceguard-spring's
 * translator into its {@code StaleTokenFailureException}. The database functions raise the same state.
 */
public class StaleTokenException extends SQLTransactionRollbackException {

    public static final String SQL_STATE = "40F01";

    private final transient Fence fence;
    private final String table;
    private final String sql;

    /**
     * @param fence the resource and token the refused statement presented
     * @param table the fenced table, or the high-water table, that refused it
     * @param sql the application's SQL
     */
    public StaleTokenException(Fence fence, String table, String sql, Throwable cause) {
        super("stale fencing token " + Objects.requireNonNull(fence, "fence").token() + " for resource '"
                + fence.resource() + "': a newer holder has written to " + table + "; statement refused: " + sql,
                SQL_STATE, 0, cause);
        this.fence = fence;
        this.table = table;
        this.sql = sql;
    }

    /** The resource and token the refused statement presented. */
    public Fence fence() {
        return fence;
    }

    /** The resource whose lease presented the token. */
    public ResourceName resource() {
        return fence == null ? null : fence.resource();
    }

    /** The token the refused statement presented. */
    public FencingToken token() {
        return fence == null ? null : fence.token();
    }

    /** The fenced table, or the high-water table, that refused it. */
    public String table() {
        return table;
    }

    /** The application's SQL. */
    public String sql() {
        return sql;
    }
}
