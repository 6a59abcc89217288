package io.fenceguard.core.spi;

import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.util.Objects;

/**
 * One holder's claim on a resource, as the {@link LeaseProvider} sees it.
 *
 * @param holder unique per lease (never reused by a later lease, even on the same thread), so that a
 *               lock left behind by a failed release is never taken for a new lease's own
 * @param leaseTime how long the lock store keeps the lock without a renewal
 * @param mode exclusive, or shared (only for providers whose {@link LeaseProvider#modes()} list it)
 */
public record LeaseRequest(ResourceName resource, String holder, Duration leaseTime, LeaseMode mode) {

    /** An exclusive request. */
    public LeaseRequest(ResourceName resource, String holder, Duration leaseTime) {
        this(resource, holder, leaseTime, LeaseMode.EXCLUSIVE);
    }

    public LeaseRequest {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (holder.isEmpty()) {
            throw new IllegalArgumentException("holder must not be empty");
        }
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive, got " + leaseTime);
        }
    }
}
