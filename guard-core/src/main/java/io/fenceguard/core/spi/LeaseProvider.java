package io.fenceguard.core.spi;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import java.time.Duration;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A lock store that grants leases with fencing tokens. {@code LeaseManager} does the rest (re-entry,
 * renewal schedule, loss detection, listeners, context), so a provider only talks to its store.
 *
 * <p>Every provider passes the contract suite in {@code fenceguard-test-support}
 * ({@code LeaseProviderContract}): mutual exclusion, strictly increasing tokens per resource,
 * compare-and-delete release, renewal refused once the lock is gone.
 */
public interface LeaseProvider extends AutoCloseable {

    /**
     * Obtains the lock for {@code request.holder()}, waiting up to {@code wait} while another holder has
     * it.
     *
     * @throws LeaseTimeoutException when it was not obtained within the wait
     * @throws LeaseUnavailableException when the store cannot be used
     * @throws io.fenceguard.core.FenceguardException when interrupted (with the interrupt flag set again)
     */
    Grant acquire(LeaseRequest request, Duration wait);

    /**
     * Extends the lock by {@code request.leaseTime()} from now. Completes with {@code true} when it is
     * still this holder's, {@code false} when the store no longer holds it for this holder (the lease is
     * lost), exceptionally when the answer is unknown (it is tried again). Must not block the caller.
     */
    CompletionStage<Boolean> renew(LeaseRequest request, Grant grant);

    /**
     * Renews several leases at once: the watchdog hands over every lease due in one beat, so that a store
     * that can extend many locks in one call (one script per Redis node) keeps renewal traffic flat however
     * many leases a client holds. The answer for each lease has the meaning of {@link #renew}, one stage
     * per renewal in the same order; each lease's own answer decides its fate. Must not block the caller.
     * By default, one {@link #renew} per lease.
     */
    default List<CompletionStage<Boolean>> renewAll(List<Renewal> renewals) {
        List<CompletionStage<Boolean>> replies = new ArrayList<>(renewals.size());
        for (Renewal r : renewals) {
            CompletionStage<Boolean> reply;
            try {
                reply = renew(r.request(), r.grant());
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            replies.add(reply);
        }
        return replies;
    }

    /**
     * Releases the lock when it is still this holder's (compare-and-delete); a lock of another holder is
     * never touched.
     *
     * @return whether it was still this holder's
     * @throws LeaseUnavailableException when the store cannot be used; the lock then expires by itself
     */
    boolean release(LeaseRequest request, Grant grant);

    /**
     * For stores that learn of a loss by themselves (a ZooKeeper session that expired): call
     * {@code lost} when the lock is gone. Closed when the lease is released. Stores without such a
     * signal leave it to renewals.
     */
    default AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        return () -> { };
    }

    /**
     * The channel that carries release requests ({@code LeaseManager.requestRelease}) through this store to holders
     * in other processes. Empty by default: a request then reaches the holders of the same {@code LeaseManager} only.
     */
    default Optional<ReleaseRequestChannel> releaseRequests() {
        return Optional.empty();
    }

    /**
     * The lease modes this provider grants. {@link LeaseMode#EXCLUSIVE} always; a provider that lists
     * {@link LeaseMode#SHARED} grants shared leases for requests of that mode, with tokens from the same
     * counter as its exclusive ones. {@code LeaseManager} refuses shared leases on any other provider.
     */
    default Set<LeaseMode> modes() {
        return Set.of(LeaseMode.EXCLUSIVE);
    }

    /** A short description for logs and health: the store and where it is. */
    default String describe() {
        return getClass().getSimpleName();
    }

    /** Frees what the provider created; never a client the application owns. */
    @Override
    default void close() {
    }
}
