package io.fenceguard.core;

/**
 * The lease behind a guarded call is no longer held: it expired, its renewal was refused, or the lock
 * store could not be reached before it ran out. Failing here is an optimisation; the resource's own token
 * check is what keeps a late write out.
 */
public class LeaseLostException extends FenceguardException {

    private final LeaseLossReason reason;

    public LeaseLostException(ResourceName resource, FencingToken token, LeaseLossReason reason) {
        super("lease on '" + resource + "' with token " + token + " is lost: " + reason.describe(), resource, token);
        this.reason = reason;
    }

    public LeaseLossReason reason() {
        return reason;
    }
}
