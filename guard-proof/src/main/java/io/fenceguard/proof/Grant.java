package io.fenceguard.proof;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;

/**
 * A lock held by a client with the token it was granted. With fencing the lease is bound to the
 * thread's {@link LeaseContext}, so the JDBC wrapper and the HTTP client carry its token; without,
 * the token is only recorded.
 */
public final class Grant implements AutoCloseable {

    private final long token;
    private final Lease lease;
    private final PausableLeaseProvider renewals;
    private final Duration leaseTime;
    private final Runnable release;

    /** A fenceguard lease, renewed through {@code renewals}, which a pause holds back. */
    static Grant fenced(Lease lease, PausableLeaseProvider renewals, Duration leaseTime) {
        return new Grant(lease.token().value(), lease, renewals, leaseTime, lease::close);
    }

    /** An unfenced lock: its token is only recorded. */
    static Grant unfenced(long token, Runnable release) {
        return new Grant(token, null, null, null, release);
    }

    private Grant(long token, Lease lease, PausableLeaseProvider renewals, Duration leaseTime, Runnable release) {
        this.token = token;
        this.lease = lease;
        this.renewals = renewals;
        this.leaseTime = leaseTime;
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
            renewals.pauseRenewals(lease.resource(), withheld(millis));
        }
        Thread.sleep(millis);
        if (lease != null && pastLocalCheck) {
            return LeaseContext.bind(Lease.presented(lease.fence(), "resumed-after-pause"));
        }
        return () -> { };
    }

    /**
     * How long this resource's renewals are held back: while the holder sleeps, but no longer than a lease
     * and a little more. By then the lease has run out here (any renewal that was still answered was sent
     * before the pause) and nothing renews it again; holding back longer would also starve the next holder
     * of the resource in this JVM, which cannot get it before the lease ran out in Redis and the lock-delay
     * (a quarter of the lease) passed.
     */
    private Duration withheld(long pauseMillis) {
        return Duration.ofMillis(Math.min(pauseMillis, leaseTime.toMillis() + 100));
    }

    @Override
    public void close() {
        release.run();
    }
}
