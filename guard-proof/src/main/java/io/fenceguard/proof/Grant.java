package io.fenceguard.proof;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
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
    private final Runnable release;

    Grant(String resource, long token, Lease lease, Runnable release) {
        this.resource = resource;
        this.token = token;
        this.lease = lease;
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
            lease.suspendRenewal(Duration.ofMillis(millis + 1_000));
        }
        Thread.sleep(millis);
        if (lease != null && pastLocalCheck) {
            return LeaseContext.bind(Lease.presented(ResourceName.of(resource), lease.token(), "resumed-after-pause"));
        }
        return () -> { };
    }

    @Override
    public void close() {
        release.run();
    }
}
