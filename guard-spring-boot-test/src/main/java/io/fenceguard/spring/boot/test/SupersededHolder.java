package io.fenceguard.spring.boot.test;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;

/**
 * A holder that was paused and superseded ({@link FencingTester#supersede}): in this process its lease is still
 * valid, while the resource has seen a newer holder's token. What {@link #run} calls writes as this holder, so a
 * fenced write path refuses it. Close it (or let the test end) to release its lease.
 */
public final class SupersededHolder implements AutoCloseable {

    /** The application's code to run as a holder; it may throw what that code throws. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    private final Lease lease;
    private final Fence newer;

    SupersededHolder(Lease lease, Fence newer) {
        this.lease = lease;
        this.newer = newer;
    }

    /**
     * Runs {@code work} as this holder: its lease is bound to this thread's {@link LeaseContext}, so the writes of
     * {@code work} carry its older token, and a {@code @Fenced} method it calls on the same resource re-enters this
     * lease rather than taking a new one.
     *
     * @throws IllegalStateException when it was closed
     */
    public void run(Work work) throws Exception {
        if (!lease.isValid()) {
            throw new IllegalStateException(lease + " is closed or ran out: supersede the resource again");
        }
        try (LeaseContext.Scope bound = LeaseContext.bind(lease)) {
            work.run();
        }
    }

    /** This holder's resource and older token: what its writes carry (and its calls' {@code Fencing-Token} header). */
    public Fence fence() {
        return lease.fence();
    }

    /** The newer holder's resource and token: what the resource has seen since. */
    public Fence newerFence() {
        return newer;
    }

    /** Releases the lease (the store no longer holds it for this holder, so nothing else is touched); closing twice does nothing. */
    @Override
    public void close() {
        lease.close();
    }
}
