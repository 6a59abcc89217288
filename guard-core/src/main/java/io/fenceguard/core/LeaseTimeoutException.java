package io.fenceguard.core;

import java.time.Duration;

/** The lease could not be obtained within the wait timeout: another holder kept it, or lock-delay ran. */
public class LeaseTimeoutException extends FenceguardException {

    private final Duration waited;

    public LeaseTimeoutException(ResourceName resource, Duration waited, String detail) {
        super("no lease on '" + resource + "' within " + waited.toMillis() + " ms: " + detail, resource, null);
        this.waited = waited;
    }

    public Duration waited() {
        return waited;
    }
}
