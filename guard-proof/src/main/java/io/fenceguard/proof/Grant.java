package io.fenceguard.proof;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.testsupport.faults.PausableLeaseProvider;
import java.time.Duration;

/**
 * A lock held by a client with the token it was granted. With fencing the lease is bound to the
 * thread's {@link LeaseContext}, so the JDBC wrapper and the HTTP client carry its token; without,
 * the token is only recorded.
 */
public final class Grant implements AutoCloseable {

    private final String resource;
    private final long token;
    private final Lease lease;
    private final PausableLeaseProvider renewals;
    private final Runnable release;

    /** A fenceguard lease, renewed through {@code renewals}, which the nemesis can hold back. */
    static Grant fenced(Lease lease, PausableLeaseProvider renewals) {
        return new Grant(lease.resource().value(), lease.token().value(), lease, renewals, lease::close);
    }

    /** An unfenced lock: its token is only recorded. */
    static Grant unfenced(String resource, long token, Runnable release) {
        return new Grant(resource, token, null, null, release);
    }

    private Grant(String resource, long token, Lease lease, PausableLeaseProvider renewals, Runnable release) {
        this.resource = resource;
        this.token = token;
        this.lease = lease;
        this.renewals = renewals;
        this.release = release;
    }

    public long token() {
        return token;
    }

    public boolean fenced() {
        return lease != null;
    }

    /** Binds the lease (when fenced) for the layers below; a no-op scope otherwise. */
    public AutoCloseable bind() {
        return lease != null ? LeaseContext.bind(lease) : () -> { };
    }

    /**
     * A stop-the-world pause of the holder: renewal stops, the thread sleeps past the lease. When
     * {@code pastLocalCheck}, the rest of the operation runs under the same token as presented, not
     * as a held lease: the pause struck after the client's own validity check (the window no local
     * check can close), so only the resource's fence stands between the stale token and the data.
     */
    public AutoCloseable pause(long millis, boolean pastLocalCheck) throws InterruptedException {
        if (lease != null) {
            // Renewals of this resource are held back for as long as the holder sleeps, as a GC pause of this
            // JVM would hold them back. The pause outlasts the lease, so it runs out in Redis meanwhile.
            renewals.pauseRenewals(lease.resource(), Duration.ofMillis(millis));
        }
        Thread.sleep(millis);
        if (lease != null && pastLocalCheck) {
            return LeaseContext.bind(Lease.presented(lease.fence(), "resumed-after-pause"));
        }
        return () -> { };
    }

    @Override
    public void close() {
        release.run();
    }
}
