package io.fenceguard.spring.integration;

import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} on a fenceguard
 * {@link LeaseManager} (any store: Redis, ZooKeeper, a database, in memory). Each key's lock holds a lease
 * on the resource {@code <prefix><key>} and binds it to the holding thread's
 * {@link io.fenceguard.core.LeaseContext}, so SQL writes and outgoing calls made under the lock carry its
 * fencing token; a holder that lost its lease is refused at the resource.
 *
 * <p>Use it wherever Spring Integration takes a registry: {@code LockRegistryLeaderInitiator} (leader
 * election), aggregators and {@code LockRequestHandlerAdvice}.
 */
public final class FenceguardLockRegistry implements ExpirableLockRegistry<FencedLock> {

    /** Prefix of the resource names: the lock {@code orders} is the resource {@code lock:orders}. */
    public static final String DEFAULT_PREFIX = "lock:";

    private final LeaseManager manager;
    private final String prefix;
    private final Duration waitSlice;
    private final ConcurrentMap<String, FencedLock> locks = new ConcurrentHashMap<>();

    private FenceguardLockRegistry(LeaseManager manager, String prefix) {
        this.manager = Objects.requireNonNull(manager, "manager");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        // lock() and lockInterruptibly() wait in slices of the manager's default wait, as long as it takes
        this.waitSlice = manager.config().defaultWait();
    }

    public static FenceguardLockRegistry of(LeaseManager manager) {
        return new FenceguardLockRegistry(manager, DEFAULT_PREFIX);
    }

    public static FenceguardLockRegistry of(LeaseManager manager, String prefix) {
        return new FenceguardLockRegistry(manager, prefix);
    }

    /**
     * The lock of {@code lockKey} (its {@code toString()}): the same instance for the same key until it is
     * expired unused.
     *
     * @throws IllegalArgumentException when {@code <prefix><key>} is not a valid resource name
     */
    @Override
    public FencedLock obtain(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey");
        String key = lockKey.toString();
        return locks.computeIfAbsent(key, k -> new FencedLock(manager, resource(k), waitSlice));
    }

    private ResourceName resource(String key) {
        try {
            return ResourceName.of(prefix + key);
        } catch (InvalidResourceNameException e) {
            throw new IllegalArgumentException("lock key '" + key + "' does not make a resource name: " + e.getMessage(), e);
        }
    }

    /** Forgets locks that nobody holds and that were last locked more than {@code age} milliseconds ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        locks.entrySet().removeIf(e -> !e.getValue().isLocked() && now - e.getValue().lastUsed() > age);
    }
}
