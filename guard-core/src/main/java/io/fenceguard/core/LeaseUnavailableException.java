package io.fenceguard.core;

/**
 * The lock store could not be used: it failed after retries, or a circuit breaker is open after
 * repeated failures and calls fail fast until it half-opens again.
 */
public class LeaseUnavailableException extends FenceguardException {

    public LeaseUnavailableException(String message, ResourceName resource, Throwable cause) {
        super(message, resource, null, cause);
    }
}
