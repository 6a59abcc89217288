package io.fenceguard.reactor.r2dbc;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.r2dbc.spi.R2dbcNonTransientException;
import java.util.Optional;

/**
 * The guard refused to send an R2DBC statement because it could not be fenced; nothing reached the
 * database. The JDBC module's {@link FencingRefusedException} (its cause, with the same message, reason
 * and SQLSTATE {@value FencingRefusedException#SQL_STATE}) as an R2DBC error: a programming or
 * configuration error (or a lost lease), not a race; retrying does not help.
 */
public class R2dbcFencingRefusedException extends R2dbcNonTransientException {

    private final transient FencingRefusedException refusal;

    public R2dbcFencingRefusedException(FencingRefusedException refusal) {
        super(refusal.getMessage(), refusal.getSQLState(), 0, refusal.sql(), refusal);
        this.refusal = refusal;
    }

    /** The JDBC module's form of the same refusal. */
    public FencingRefusedException refusal() {
        return refusal;
    }

    public FencingRefusedException.Reason reason() {
        return refusal.reason();
    }

    /** The resource and token of the lease in context when it was refused; empty without a lease. */
    public Optional<Fence> fence() {
        return refusal.fence();
    }
}
