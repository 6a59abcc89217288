package io.fenceguard.jdbc;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import java.util.Objects;

/**
 * What a statement is fenced with: the resource, the token, and the holder's own validity check
 * (a lease's {@link Lease#ensureValid()}), which runs before every guarded statement.
 */
public final class Fence {

    private final ResourceName resource;
    private final FencingToken token;
    private final Runnable validityCheck;

    private Fence(ResourceName resource, FencingToken token, Runnable validityCheck) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.token = Objects.requireNonNull(token, "token");
        this.validityCheck = Objects.requireNonNull(validityCheck, "validityCheck");
    }

    public static Fence of(Lease lease) {
        return new Fence(lease.resource(), lease.token(), lease::ensureValid);
    }

    /**
     * A fence without a lease behind it, for jobs that got their token elsewhere and for tests that
     * play a holder whose own view of its lease is out of date.
     */
    public static Fence of(ResourceName resource, FencingToken token) {
        return new Fence(resource, token, () -> { });
    }

    /** A fence with its own validity check, which throws (a {@code GuardException}) once it must not be used. */
    public static Fence of(ResourceName resource, FencingToken token, Runnable validityCheck) {
        return new Fence(resource, token, validityCheck);
    }

    public ResourceName resource() {
        return resource;
    }

    public FencingToken token() {
        return token;
    }

    /** @throws io.fenceguard.core.LeaseLostException when the lease behind it is lost */
    public void ensureValid() {
        validityCheck.run();
    }

    /** Same resource and token. */
    public boolean sameAs(Fence other) {
        return other != null && resource.equals(other.resource) && token.equals(other.token);
    }

    @Override
    public String toString() {
        return "Fence[" + resource + ", token " + token + "]";
    }
}
