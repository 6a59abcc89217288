package io.fenceguard.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.cp.lock.FencedLock;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A lease provider on Hazelcast's CP Subsystem, through the application's {@link HazelcastInstance} (a member or a
 * client; never created or shut down here).
 *
 * <p><b>Acquire</b> takes the CP {@link FencedLock} {@code <prefix><resource>@<group>} with
 * {@link FencedLock#tryLockAndGetFence(long, TimeUnit)}, waiting in the lock's queue (first come, first served) for
 * at most the acquire's wait. A FencedLock belongs to the thread that locked it; here each lease is its lock's owner
 * instead, under an owner id of its own ({@code LockOwner}), and the threads of the provider's pool make its calls;
 * callers hand them over and wait for the answer with a timeout of their own. So a lease is released from any thread,
 * a held lease keeps no thread, and every wait holds even when the CP group has lost its majority and Hazelcast's own
 * calls would retry for minutes. The pool's threads are kept for a minute once idle (also after {@link #close()}, as
 * locks may still be given back in the background), so that a call does not pay for a thread's start.
 *
 * <p><b>Token</b>: the lock's fence. The CP group orders every operation in one Raft log, and the fence is the index of
 * the entry that granted the lock: it only grows, across leader changes and restarts of members, with no clock. A lock
 * is granted only once the one before it was given back, so the fences of one resource strictly increase; every lock
 * of a provider lives in the same CP group, so the same holds for a resource across providers of the same group.
 *
 * <p><b>Lifetime</b>: the lock lives as long as the CP session of the member (or client) that took it, which that
 * instance keeps alive by heartbeats. When the session ends (the instance paused or was cut off for longer than the
 * session's time to live, or an operator force-closed it) the CP group frees the lock and the next holder gets it.
 * {@link #renew} asks the group whether the lock is still held by the lease's thread, so a closed session is found at
 * the next renewal ({@link LeaseLossReason#RENEWAL_REJECTED}); an unanswered renewal puts the lease at risk.
 * {@link #watch} reports {@link LeaseLossReason#REVOKED} at once when the instance shuts down or a client loses the
 * cluster: its session cannot be kept alive then. A holder whose process is alive but stops renewing keeps the lock
 * at most its lease time past its last renewal: the provider gives it back then, as the session would not.
 *
 * <p>The CP Subsystem must be enabled ({@code cp-member-count} at least 3): without it Hazelcast runs FencedLock in
 * its unsafe mode, on partitions that a split can duplicate, and a member says so at once here. From Hazelcast 5.5
 * on, the CP Subsystem needs an Enterprise license; 5.4 is the last version whose Community Edition has it.
 */
public final class HazelcastLeaseProvider extends AbstractLeaseProvider {

    private final HazelcastInstance hazelcast;
    private final HazelcastLeaseConfig config;
    private final ConcurrentMap<Key, LockOwner> held = new ConcurrentHashMap<>();
    private final UUID lifecycleListener;
    /** The threads that make the leases' calls on their locks: as many as calls under way. */
    private final ThreadPoolExecutor lockThreads;
    /** Tells the leases when their lease time passes without a renewal. */
    private final ExpiryTimer expiries;
    private volatile boolean closed;

    private HazelcastLeaseProvider(HazelcastInstance hazelcast, HazelcastLeaseConfig config) {
        this.hazelcast = hazelcast;
        this.config = config;
        this.lifecycleListener = hazelcast.getLifecycleService().addLifecycleListener(this::lifecycle);
        this.lockThreads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemons("fenceguard-hazelcast-lock-"));
        this.expiries = new ExpiryTimer(daemons("fenceguard-hazelcast-expiry-"));
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return work -> {
            Thread thread = new Thread(work, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Locks named {@value HazelcastLeaseConfig#DEFAULT_LOCK_NAME_PREFIX}... in the default CP group. */
    public static HazelcastLeaseProvider of(HazelcastInstance hazelcast) {
        return of(hazelcast, HazelcastLeaseConfig.defaults());
    }

    /**
     * A provider on the application's Hazelcast instance, which it neither starts nor shuts down.
     *
     * @throws IllegalStateException when the instance is not running, or is a member whose CP Subsystem is not enabled
     */
    public static HazelcastLeaseProvider of(HazelcastInstance hazelcast, HazelcastLeaseConfig config) {
        Objects.requireNonNull(hazelcast, "hazelcast");
        Objects.requireNonNull(config, "config");
        if (!hazelcast.getLifecycleService().isRunning()) {
            throw new IllegalStateException("the Hazelcast instance " + hazelcast.getName() + " is not running");
        }
        int cpMembers;
        try {
            cpMembers = hazelcast.getConfig().getCPSubsystemConfig().getCPMemberCount();
        } catch (UnsupportedOperationException client) {
            cpMembers = -1; // a client cannot read the cluster's configuration: its first lock call tells
        }
        if (cpMembers == 0) {
            throw new IllegalStateException("the CP Subsystem of Hazelcast instance " + hazelcast.getName()
                    + " is not enabled (cp-member-count is 0): FencedLock would run in its unsafe mode, whose fences a"
                    + " network split can repeat; set cp-subsystem.cp-member-count to 3 or more");
        }
        return new HazelcastLeaseProvider(hazelcast, config);
    }

    public HazelcastLeaseConfig config() {
        return config;
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        if (closed) {
            throw new IllegalStateException("the provider is closed");
        }
        ResourceName resource = request.resource();
        long sent = System.nanoTime();
        if (!hazelcast.getLifecycleService().isRunning()) {
            throw new LeaseUnavailableException("the Hazelcast instance " + hazelcast.getName() + " is not running",
                    resource, null);
        }
        Key key = Key.of(request);
        LockOwner[] self = new LockOwner[1];
        String name = lockName(resource);
        LockOwner owner = new LockOwner(hazelcast, () -> hazelcast.getCPSubsystem().getLock(name), resource,
                request.leaseTime().toNanos(), sent, deadline, lockThreads, expiries,
                () -> held.remove(key, self[0]));
        self[0] = owner;
        CompletableFuture<Long> granted = owner.start();
        long fence;
        try {
            long limit = Math.max(0, deadline - System.nanoTime()) + config.callTimeout().toNanos();
            fence = granted.get(limit, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            owner.abandon();
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while waiting for a lease on '" + resource + "'", resource, null, e);
        } catch (TimeoutException e) {
            if (owner.abandon()) {
                throw new LeaseUnavailableException("the Hazelcast CP group did not answer the lock of '" + resource
                        + "' in time (" + describe() + ")", resource, e);
            }
            fence = granted.join(); // granted just as the wait ran out: the lease is taken after all
        } catch (ExecutionException e) {
            // Also a CP Subsystem that is not there: from Hazelcast 5.5 on, without an Enterprise license.
            throw new LeaseUnavailableException("Hazelcast failed to lock '" + resource + "' (" + describe() + "): "
                    + e.getCause(), resource, e.getCause());
        }
        if (fence == FencedLock.INVALID_FENCE) {
            throw new LeaseTimeoutException(resource, wait, "held by another holder on " + describe());
        }
        held.put(key, owner);
        return new Grant(FencingToken.of(fence), sent);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        LockOwner owner = owner(request, grant);
        if (owner == null) {
            return CompletableFuture.completedFuture(false);
        }
        long limit = Math.min(config.callTimeout().toNanos(), request.leaseTime().toNanos());
        return owner.renew(System.nanoTime()).orTimeout(limit, TimeUnit.NANOSECONDS);
    }

    /** Unlocks on the lease's own thread if the lock is still this holder's; another holder's lock is never touched. */
    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        Key key = Key.of(request);
        LockOwner owner = owner(request, grant);
        if (owner == null || !held.remove(key, owner)) {
            return false;
        }
        try {
            return owner.release().get(config.callTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while releasing '" + request.resource()
                    + "' (the lock is given back in the background)", request.resource(), grant.token(), e);
        } catch (TimeoutException | ExecutionException e) {
            throw new LeaseUnavailableException("Hazelcast did not release '" + request.resource() + "' in time ("
                    + describe() + "); the lock is given back in the background, or freed with the CP session",
                    request.resource(), e instanceof ExecutionException ? e.getCause() : e);
        }
    }

    /** Reports {@link LeaseLossReason#REVOKED} once when the instance shuts down or its client loses the cluster. */
    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        LockOwner owner = owner(request, grant);
        return owner == null ? () -> { } : owner.watch(lost);
    }

    @Override
    public String describe() {
        return "Hazelcast CP group '" + config.cpGroup() + "' of " + hazelcast.getName();
    }

    /** Gives back the locks still held (in the background): without renewals they would be given back anyway. */
    @Override
    public void close() {
        closed = true;
        try {
            hazelcast.getLifecycleService().removeLifecycleListener(lifecycleListener);
        } catch (RuntimeException stopped) {
            // An instance that has shut down has no listeners left.
        }
        for (Key key : held.keySet()) {
            LockOwner owner = held.remove(key);
            if (owner != null) {
                owner.release();
            }
        }
    }

    private void lifecycle(LifecycleEvent event) {
        LifecycleEvent.LifecycleState state = event.getState();
        if (state == LifecycleEvent.LifecycleState.SHUTTING_DOWN || state == LifecycleEvent.LifecycleState.SHUTDOWN
                || state == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
            for (LockOwner owner : held.values()) {
                owner.revoke();
            }
        }
    }

    private LockOwner owner(LeaseRequest request, Grant grant) {
        LockOwner owner = held.get(Key.of(request));
        return owner != null && owner.fence() == grant.token().value() ? owner : null;
    }

    private String lockName(ResourceName resource) {
        // '@' would name a CP group: escaped as %40 ('%' is no character of a resource name, so no two names meet).
        return config.lockNamePrefix() + resource.value().replace("@", "%40") + "@" + config.cpGroup();
    }

    /** One holder's lease on one resource. */
    private record Key(ResourceName resource, String holder) {
        static Key of(LeaseRequest request) {
            return new Key(request.resource(), request.holder());
        }
    }
}
