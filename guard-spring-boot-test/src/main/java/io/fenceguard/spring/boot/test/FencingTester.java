package io.fenceguard.spring.boot.test;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Shows in a test that a write path is fenced: {@link #supersede} makes a holder of a resource that was paused and
 * taken over, and its {@link SupersededHolder#run} calls the application's own code as that holder, whose writes
 * the resources must then refuse.
 *
 * <pre>{@code
 * SupersededHolder stale = fencing.supersede("account:a1", () -> accounts.deposit("a1", 5));
 * assertThatThrownBy(() -> stale.run(() -> accounts.deposit("a1", 7)))
 *         .isInstanceOf(ConcurrencyFailureException.class);
 * }</pre>
 *
 * Its methods use the test context's {@link LeaseManager}; a {@code @Fenced} method called inside their work
 * re-enters the lease they bound rather than taking a new one.
 */
public final class FencingTester {

    private final Supplier<LeaseManager> leases;

    /** @param leases the context's manager, asked for at the first use */
    public FencingTester(Supplier<LeaseManager> leases) {
        this.leases = Objects.requireNonNull(leases, "leases");
    }

    /**
     * A holder takes {@code resource} and pauses; the lock store forgets its lock, as when its lease runs out during
     * the pause; a newer holder takes the resource and runs {@code newerHolderWork} under its lease, so that the
     * resource records the newer token. The paused holder is returned still believing it holds the resource: its
     * lease stays valid in this process for the configured lease time, with its renewals withheld on the test
     * context's pausable store.
     *
     * @param newerHolderWork the newer holder's writes, typically the same call as the one then made as the
     *                        superseded holder; it must write to the resource, or nothing there knows the newer token
     * @throws IllegalArgumentException when the resource name is not valid; nothing is taken then
     * @throws Exception what {@code newerHolderWork} throws; the paused holder's lease is released then
     */
    public SupersededHolder supersede(String resource, SupersededHolder.Work newerHolderWork) throws Exception {
        Objects.requireNonNull(newerHolderWork, "newerHolderWork");
        if (LeaseContext.current().isPresent()) {
            throw new IllegalStateException("supersede(\"" + resource + "\") was called under a lease ("
                    + LeaseContext.current().get() + "): call it outside any lease, as the newer holder takes its own");
        }
        LeaseManager manager = leases.get();
        Lease older = acquireOnItsOwnThread(manager, resource);
        try {
            loseInStore(manager, older);
            Lease newer = manager.acquire(resource, manager.config().defaultWait());
            try (newer; LeaseContext.Scope bound = LeaseContext.bind(newer)) {
                newerHolderWork.run();
            }
            return new SupersededHolder(older, newer.fence());
        } catch (Exception | Error e) {
            older.close();
            throw e;
        }
    }

    /**
     * On a thread of its own, as another process would: a lease taken on this thread would be re-entered by the
     * newer holder's acquisition here instead of competing with it.
     */
    private static Lease acquireOnItsOwnThread(LeaseManager manager, String resource) throws Exception {
        Duration wait = manager.config().defaultWait();
        CompletableFuture<Lease> taken = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            try {
                taken.complete(manager.acquire(resource, wait));
            } catch (Throwable e) {
                taken.completeExceptionally(e);
            }
        }, "fenceguard-superseded-holder");
        holder.setDaemon(true);
        holder.start();
        try {
            return taken.get(wait.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new IllegalStateException("the holder to be superseded did not get '" + resource + "' within " + wait, e);
        }
    }

    /**
     * The store drops the paused holder's lock behind its manager's back, as when its lease ran out; its renewals
     * are withheld where the store is pausable, so that the manager does not learn of the loss before its next
     * write (which is what a pause looks like from the resource's side).
     */
    private static void loseInStore(LeaseManager manager, Lease older) {
        LeaseProvider provider = manager.provider();
        Duration leaseTime = manager.config().leaseTime();
        if (provider instanceof PausableLeaseProvider pausable) {
            pausable.pauseRenewals(older.resource(), leaseTime);
        }
        LeaseRequest request = new LeaseRequest(older.resource(), older.holder(), leaseTime, older.mode());
        if (!provider.release(request, new Grant(older.token(), System.nanoTime()))) {
            throw new FenceguardException("the lock store did not hold '" + older.resource() + "' for " + older.holder()
                    + " any more: its lease ran out before it could be superseded (lease time " + leaseTime + ")",
                    older.resource(), older.token());
        }
    }
}
