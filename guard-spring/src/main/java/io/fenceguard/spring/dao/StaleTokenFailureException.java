package io.fenceguard.spring.dao;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.StaleTokenException;
import java.util.Optional;
import org.springframework.dao.PessimisticLockingFailureException;

/**
 * A write refused because a holder with a newer token has already written: fenceguard-jdbc's
 * {@link StaleTokenException} (or the database's SQLSTATE {@value StaleTokenException#SQL_STATE}, raised by the
 * guard's function or its triggers) as Spring sees it. A {@code ConcurrencyFailureException}: the statement had
 * no effect and the transaction is rolled back; taking the lease anew and running the work again may succeed.
 */
public class StaleTokenFailureException extends PessimisticLockingFailureException {

    private final transient StaleTokenException staleToken;

    public StaleTokenFailureException(String message, Throwable cause, StaleTokenException staleToken) {
        super(message, cause);
        this.staleToken = staleToken;
    }

    /**
     * The guard's exception, with the fence, table and SQL; empty when the database raised the state on a path
     * the guard did not see (trigger mode on an unfenced connection).
     */
    public Optional<StaleTokenException> staleToken() {
        return Optional.ofNullable(staleToken);
    }

    /** The resource and token the refused statement presented, when the guard saw it. */
    public Optional<Fence> fence() {
        return staleToken().map(StaleTokenException::fence);
    }
}
