package io.fenceguard.messaging;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.util.Optional;

/** The fence header value an outgoing message gets: the current lease's, checked to be still valid. */
public final class OutgoingFence {

    private OutgoingFence() {
    }

    /**
     * The header value of the innermost lease bound to this thread, or empty when none is bound.
     *
     * @throws io.fenceguard.core.LeaseLostException when the bound lease was lost: a message sent now
     *         would go out under a lease this process no longer holds
     */
    public static Optional<String> headerValue() {
        Optional<Lease> current = LeaseContext.current();
        if (current.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = current.get();
        lease.ensureValid();
        return Optional.of(FenceHeader.of(lease.fence()).value());
    }
}
