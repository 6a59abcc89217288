package io.fenceguard.spring.dao;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import java.util.Optional;
import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * A statement the guard refused to send (no lease, a form it cannot fence, raw driver access, …), as Spring
 * sees it: a programming or configuration error, not a race, so retrying does not help. Nothing reached the
 * database. The message quotes the SQL and says why ({@link #reason()}).
 */
public class FencingRefusedUsageException extends InvalidDataAccessApiUsageException {

    private final transient FencingRefusedException refusal;

    public FencingRefusedUsageException(String message, Throwable cause, FencingRefusedException refusal) {
        super(message, cause);
        this.refusal = refusal;
    }

    /**
     * The guard's exception; empty when the database refused a write without a token itself (trigger mode,
     * SQLSTATE 0AF02).
     */
    public Optional<FencingRefusedException> refusal() {
        return Optional.ofNullable(refusal);
    }

    /** Why the guard refused it, when the guard did. */
    public Optional<FencingRefusedException.Reason> reason() {
        return refusal().map(FencingRefusedException::reason);
    }

    /** The resource and token of the lease in context when it was refused; empty without a lease. */
    public Optional<Fence> fence() {
        return refusal().flatMap(FencingRefusedException::fence);
    }
}
