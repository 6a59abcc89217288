package io.fenceguard.spring.dao;

import io.fenceguard.jdbc.FencingRefusedException;
import org.springframework.dao.PessimisticLockingFailureException;

/**
 * A statement refused because the lease in context was lost or released before it
 * ({@link FencingRefusedException.Reason#LEASE_LOST}): nothing was sent. A {@code ConcurrencyFailureException}:
 * another holder may have the resource now; taking the lease anew and running the work again may succeed.
 */
public class LeaseLostFailureException extends PessimisticLockingFailureException {

    private final transient FencingRefusedException refusal;

    public LeaseLostFailureException(String message, FencingRefusedException refusal) {
        super(message, refusal);
        this.refusal = refusal;
    }

    /** The guard's refusal, with the SQL and the fence of the lost lease. */
    public FencingRefusedException refusal() {
        return refusal;
    }
}
