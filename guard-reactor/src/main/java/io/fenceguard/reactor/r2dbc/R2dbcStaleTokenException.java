package io.fenceguard.reactor.r2dbc;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.StaleTokenException;
import io.r2dbc.spi.R2dbcRollbackException;

/**
 * The database refused an R2DBC write because a holder with a newer token has already written the row:
 * the JDBC module's {@link StaleTokenException} (its cause, with the same message, SQLSTATE
 * {@value StaleTokenException#SQL_STATE} and accessors) as the R2DBC error type of its class: a
 * rollback, which Spring's R2DBC translation turns into a {@code PessimisticLockingFailureException}, as
 * it does the JDBC one. The statement had no effect; the transaction is aborted.
 */
public class R2dbcStaleTokenException extends R2dbcRollbackException {

    private final transient StaleTokenException staleToken;

    public R2dbcStaleTokenException(StaleTokenException staleToken) {
        super(staleToken.getMessage(), staleToken.getSQLState(), 0, staleToken.sql(), staleToken);
        this.staleToken = staleToken;
    }

    /** The JDBC module's form of the same refusal. */
    public StaleTokenException staleToken() {
        return staleToken;
    }

    /** The resource and token the refused statement presented. */
    public Fence fence() {
        return staleToken.fence();
    }

    public ResourceName resource() {
        return staleToken.resource();
    }

    public FencingToken token() {
        return staleToken.token();
    }

    /** The fenced table that refused it. */
    public String table() {
        return staleToken.table();
    }
}
