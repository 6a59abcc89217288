package io.fenceguard.core;

import io.fenceguard.core.internal.LeaseState;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Optional;

/**
 * A held lease on a resource with its fencing token. Close it to release (try-with-resources);
 * closing twice does nothing. Re-entrant acquisitions by the same holder share token and renewal:
 * the lock is released in the store when the last of them is closed.
 *
 * <p>Being valid here is this process's view. A pause can outlast the lease between a check and a
 * write, which is why the resource itself checks the token.
 */
public final class Lease implements AutoCloseable {

    /**
     * What a presented fence has left: the time a lease of {@code Long.MAX_VALUE / 4} nanoseconds would have, less
     * its drift allowance. Nothing renews or expires a presented fence, so no clock is read for it.
     */
    private static final Duration PRESENTED_REMAINING =
            Duration.ofNanos(Long.MAX_VALUE / 4 - (Long.MAX_VALUE / 4 / 100 + 2_000_000L));

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Lease.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Fence fence;
    /** What this process knows of a lease it holds; null for a {@link #presented} fence, which it does not hold. */
    private final LeaseState state;
    private final LeaseManager manager;
    private final String holder;
    /** Who presented a {@link #presented} fence; its holder name is made only when asked for. */
    private final String presentedBy;
    /** Set once by {@link #close}, through {@link #CLOSED}: no object of its own per lease. */
    private volatile boolean closed;

    Lease(LeaseState state, LeaseManager manager, String holder) {
        this(state.fence(), state, manager, holder, null);
    }

    private Lease(Fence fence, LeaseState state, LeaseManager manager, String holder, String presentedBy) {
        this.fence = fence;
        this.state = state;
        this.manager = manager;
        this.holder = holder;
        this.presentedBy = presentedBy;
    }

    /**
     * A fence that a caller presented to this process (for example in an HTTP header or a message) and
     * that this resource admitted. Binding it to {@link LeaseContext} makes this process's own writes
     * carry the caller's token, so the fence holds along the whole chain. It is not held here: nothing
     * renews it, it stays valid until closed, and closing touches no lock.
     *
     * @param source who presented it, for logs and {@link #holder()} (such as {@code "http:10.0.0.7"})
     */
    public static Lease presented(Fence fence, String source) {
        if (fence == null || source == null) {
            throw new IllegalArgumentException("fence and source are required");
        }
        // a consumer presents one per message: no lease state (clock, deadline, listeners) is kept for what is
        // neither renewed nor lost, and the holder's name, seldom read, is not built here
        return new Lease(fence, null, null, null, source);
    }

    /** Whether this is a {@link #presented} fence rather than a lease held by this process. */
    public boolean isPresented() {
        return manager == null;
    }

    /** The resource and token: what the writes under this lease are fenced with. */
    public Fence fence() {
        return fence;
    }

    public ResourceName resource() {
        return fence.resource();
    }

    public FencingToken token() {
        return fence.token();
    }

    /**
     * Exclusive or shared. A shared lease's token fences like any other: it is below the token of every
     * exclusive lease granted after it. A presented fence counts as exclusive.
     */
    public LeaseMode mode() {
        return state == null ? LeaseMode.EXCLUSIVE : state.request().mode();
    }

    /** Who holds it: unique per lease (client id, thread, sequence), or {@code presented:<source>}. */
    public String holder() {
        return presentedBy == null ? holder : "presented:" + presentedBy;
    }

    /** Time left before the lease runs out unless renewed; zero once lost or released. */
    public Duration remaining() {
        if (closed) {
            return Duration.ZERO;
        }
        return state == null ? PRESENTED_REMAINING : Duration.ofNanos(state.remainingNanos());
    }

    public boolean isValid() {
        return !closed && (state == null || state.isValid());
    }

    /** Why the lease was lost, if it was. */
    public Optional<LeaseLossReason> lossReason() {
        if (state == null) {
            return Optional.empty();
        }
        state.isValid();
        return Optional.ofNullable(state.lossReason());
    }

    /**
     * Fails fast when the lease can no longer be relied on.
     *
     * @throws LeaseLostException when it expired or the store refused its renewal
     * @throws FenceguardException when it was already released
     */
    public void ensureValid() {
        if (isValid()) {
            return;
        }
        LeaseLossReason reason = state == null ? null : state.lossReason();
        if (reason != null) {
            throw new LeaseLostException(resource(), token(), reason);
        }
        throw new FenceguardException("lease on '" + resource() + "' with token " + token() + " was already released",
                resource(), token());
    }

    /**
     * Tells {@code listener} once when this lease is lost (not when it is released); at once if it
     * already is. Listeners run on the manager's event executor, each on its own: one that blocks or
     * throws delays no renewal and no other listener.
     */
    public void onLost(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        if (manager != null) {
            state.onLost(reason -> listener.onLost(this, reason));
        }
    }

    /**
     * Whether this lease is at risk now: its renewals fail or go unanswered and less than
     * {@link LeaseConfig#atRiskShare()} of it is left. False once lost or released.
     */
    public boolean isAtRisk() {
        return manager != null && !closed && state.isAtRisk();
    }

    /**
     * Tells {@code listener} when this lease is at risk of being lost: its renewals fail (or go unanswered) and less
     * than {@link LeaseConfig#atRiskShare()} of it is left. Once per risk episode, at once if one is under way; a
     * renewal that succeeds again ends the episode, and the next one is told again. Never once the lease is lost or
     * released. Listeners run on the manager's event executor, each on its own, as {@link #onLost} listeners do.
     */
    public void onAtRisk(LeaseAtRiskListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        if (manager != null) {
            state.onAtRisk(remaining -> listener.onAtRisk(this, Duration.ofNanos(remaining)));
        }
    }

    /**
     * Tells {@code listener} of each request to release this lease ({@link LeaseManager#requestRelease}), from this
     * process or, where the lease provider carries them, from others. The holder decides whether to close the lease.
     * Never once the lease is lost or released. Listeners run on the manager's event executor, each on its own.
     *
     * @throws LeaseUnavailableException when the store could not be asked to carry the requests to this lease
     */
    public void onReleaseRequested(ReleaseRequestListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        if (manager != null) {
            manager.onReleaseRequested(this, listener);
        }
    }

    boolean isFrom(LeaseManager candidate) {
        return manager == candidate;
    }

    /** Only for leases from a manager: a presented fence has none. */
    LeaseState state() {
        return state;
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            if (manager != null) {
                manager.release(this);
            }
        }
    }

    @Override
    public String toString() {
        return "Lease[" + fence() + ", holder " + holder() + (state != null && state.lossReason() != null ? ", lost" : "") + "]";
    }
}
