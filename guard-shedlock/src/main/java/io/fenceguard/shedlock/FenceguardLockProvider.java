package io.fenceguard.shedlock;

import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} on a fenceguard {@link LeaseManager}: a
 * {@code @SchedulerLock} job runs under a lease bound to its thread's {@link LeaseContext}, so the SQL
 * and HTTP writes it makes carry the lease's fencing token and a stale run is refused at the resource.
 *
 * <p>The lock named {@code report} is the resource {@code shedlock:report} (the prefix can be chosen).
 * A name that cannot be a {@link ResourceName} is refused with an {@link IllegalArgumentException}
 * before anything is sent to the store.
 *
 * <p>ShedLock's contract, and how it is kept:
 * <ul>
 *   <li><b>lockAtMostFor</b>: the lease is taken through the manager, which renews it, and this provider
 *   releases it when lockAtMostFor has passed since {@code lock()}, whether or not the job has finished.
 *   The job's own context then holds a closed lease, so fenced writes fail closed, and the next holder
 *   gets a higher token. Trade-off: the lease time is the manager's, not per lock, so if this process
 *   dies the store lock lapses one lease time after its last renewal instead of at lockAtMostFor. Keep
 *   the manager's lease time no longer than the shortest lockAtMostFor and the lock never outlives it;
 *   a longer one is logged once per lock name.</li>
 *   <li><b>lockAtLeastFor</b>: {@code unlock()} unbinds the context at once; if lockAtLeastFor has not
 *   passed since {@code lock()}, the lease stays held (and renewed) and is released then, on this
 *   provider's scheduler thread. If the process dies meanwhile, others get in one lease time later.</li>
 *   <li><b>extend</b>: supported; the lease is renewed anyway, so extending only moves the two release
 *   times, counted from the call.</li>
 * </ul>
 *
 * <p>{@code lock()} and {@code unlock()} must run on the same thread, as ShedLock does. Close the
 * provider on shutdown: pending lockAtLeastFor releases are dropped, and those leases expire in the
 * store once the manager stops renewing them.
 */
public final class FenceguardLockProvider implements ExtensibleLockProvider, AutoCloseable {

    static final String DEFAULT_PREFIX = "shedlock:";
    private static final System.Logger log = System.getLogger(FenceguardLockProvider.class.getName());

    private final LeaseManager manager;
    private final String prefix;
    private final ScheduledExecutorService scheduler;
    /** Lock names held or waiting for their lockAtLeastFor; the manager would let the same thread re-enter them. */
    private final Set<String> taken = ConcurrentHashMap.newKeySet();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    public FenceguardLockProvider(LeaseManager manager) {
        this(manager, DEFAULT_PREFIX);
    }

    /** @param prefix put before every lock name to make its resource name; may be empty */
    public FenceguardLockProvider(LeaseManager manager, String prefix) {
        this.manager = Objects.requireNonNull(manager, "manager");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        if (!prefix.isEmpty()) {
            ResourceName.of(prefix); // refuse a prefix no name could follow
        }
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "fenceguard-shedlock-release");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * The resource that the lock {@code lockName} is taken on.
     *
     * @throws IllegalArgumentException when the name cannot be part of a resource name
     */
    public ResourceName resourceFor(String lockName) {
        if (lockName == null) {
            throw new IllegalArgumentException("ShedLock lock name must not be null");
        }
        try {
            return ResourceName.of(prefix + lockName);
        } catch (InvalidResourceNameException e) {
            throw new IllegalArgumentException("ShedLock lock name '" + lockName + "' cannot be used by fenceguard: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        Objects.requireNonNull(config, "lockConfiguration");
        ResourceName resource = resourceFor(config.getName());
        Duration atMost = config.getLockAtMostFor();
        if (atMost.isNegative() || atMost.isZero()) {
            throw new IllegalArgumentException("lockAtMostFor of '" + config.getName() + "' must be positive, got " + atMost);
        }
        if (!taken.add(config.getName())) {
            return Optional.empty();
        }
        Lease lease;
        try {
            lease = manager.tryAcquire(resource).orElse(null);
        } catch (RuntimeException e) {
            taken.remove(config.getName());
            throw e;
        }
        if (lease == null) {
            taken.remove(config.getName());
            return Optional.empty();
        }
        warnIfLeaseOutlives(config);
        HeldLock held = new HeldLock(config.getName(), lease, LeaseContext.bind(lease), Thread.currentThread(), this);
        held.releaseAfter(atMost.toNanos());
        return Optional.of(new FenceguardSimpleLock(config, held, System.nanoTime()));
    }

    private void warnIfLeaseOutlives(LockConfiguration config) {
        Duration leaseTime = manager.config().leaseTime();
        if (leaseTime.compareTo(config.getLockAtMostFor()) > 0 && warned.add(config.getName())) {
            log.log(Level.WARNING, () -> "lock '" + config.getName() + "' has lockAtMostFor " + config.getLockAtMostFor()
                    + ", shorter than the lease time " + leaseTime + ": if this process dies holding it,"
                    + " it stays locked up to the lease time");
        }
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    void released(String lockName) {
        taken.remove(lockName);
    }

    public LeaseManager manager() {
        return manager;
    }

    /** Stops the scheduler; does not close the manager. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
