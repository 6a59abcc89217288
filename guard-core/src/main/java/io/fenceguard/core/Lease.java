package io.fenceguard.core;

import io.fenceguard.core.internal.LeaseState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A held lease on a resource with its fencing token. Close it to release (try-with-resources);
 * closing twice does nothing. Re-entrant acquisitions by the same holder share token and renewal:
 * the lock is released in Redis when the last of them is closed.
 *
 * <p>Being valid here is this process's view. A pause can outlast the lease between a check and a
 * write, which is why the resource itself checks the token.
 */
public final class Lease implements AutoCloseable {

    private final LeaseState state;
    private final LeaseManager manager;
    private final AtomicBoolean closed = new AtomicBoolean();

    Lease(LeaseState state, LeaseManager manager) {
        this.state = state;
        this.manager = manager;
    }

    /**
     * A token that a caller presented to this process (for example in an HTTP header) and that this
     * resource admitted. Binding it to {@link LeaseContext} makes this process's own writes carry the
     * caller's token, so the fence holds along the whole chain. It is not held here: nothing renews it,
     * it stays valid until closed, and closing touches no lock.
     *
     * @param source who presented it, for logs and {@link #holder()} (such as {@code "http:10.0.0.7"})
     */
    public static Lease presented(ResourceName resource, FencingToken token, String source) {
        if (resource == null || token == null || source == null) {
            throw new IllegalArgumentException("resource, token and source are required");
        }
        return new Lease(new LeaseState(resource, token, "presented:" + source, null, Long.MAX_VALUE / 4,
                System.nanoTime()), null);
    }

    /** Whether this is a {@link #presented} token rather than a lease held by this process. */
    public boolean isPresented() {
        return manager == null;
    }

    public ResourceName resource() {
        return state.resource();
    }

    public FencingToken token() {
        return state.token();
    }

    /** Who holds it: the manager's client id and the acquiring thread. */
    public String holder() {
        return state.holder();
    }

    /** Time left before the lease runs out unless renewed; zero once lost or released. */
    public Duration remaining() {
        return closed.get() ? Duration.ZERO : Duration.ofNanos(state.remainingNanos());
    }

    public boolean isValid() {
        return !closed.get() && state.isValid();
    }

    /** Why the lease was lost, if it was. */
    public Optional<LeaseLossReason> lossReason() {
        state.isValid();
        return Optional.ofNullable(state.lossReason());
    }

    /**
     * Fails fast when the lease can no longer be relied on.
     *
     * @throws LeaseLostException when it expired or Redis refused its renewal
     * @throws GuardException when it was already released
     */
    public void ensureValid() {
        if (state.isValid() && !closed.get()) {
            return;
        }
        LeaseLossReason reason = state.lossReason();
        if (reason != null) {
            throw new LeaseLostException(resource(), token(), reason);
        }
        throw new GuardException("lease on '" + resource() + "' with token " + token() + " was already released",
                resource(), token());
    }

    /** Tells {@code listener} when this lease is lost; at once if it already is. */
    public void onLost(LeaseListener listener) {
        state.onLost(reason -> listener.onLost(this, reason));
        LeaseLossReason reason = lossReason().orElse(null);
        if (reason != null) {
            listener.onLost(this, reason);
        }
    }

    /**
     * Fault injection: stops renewing this lease for {@code pause}, as a stop-the-world pause of the
     * holder would. The lease is lost if the pause outlasts it. Meant for tests and chaos drills.
     */
    public void suspendRenewal(Duration pause) {
        state.suspendRenewalUntil(System.nanoTime() + pause.toNanos());
    }

    boolean isFrom(LeaseManager candidate) {
        return manager == candidate;
    }

    LeaseState state() {
        return state;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            if (manager != null) {
                manager.release(this);
            } else {
                state.exit();
            }
        }
    }

    @Override
    public String toString() {
        return "Lease[" + resource() + ", token " + token() + ", holder " + holder()
                + (state.lossReason() != null ? ", lost" : "") + "]";
    }
}
