package io.fenceguard.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The highest token {@link HazelcastLeaseProvider} has minted for a resource. A fence is the index of the Raft log
 * entry that granted the lock, and the fences of one lock strictly increase: while the resource's lock is held, the
 * answer is the holder's fence, read from the CP group by a linearizable query of the lock's ownership (Hazelcast's
 * public API tells a fence to its holder's thread only, so the query is the proxy's own, called by reflection). While
 * it is free (or the query is not available) the answer is the fence of a FencedLock of this reader's own in the same
 * CP group ({@code <lockNamePrefix>%issued@<cpGroup>}), taken and given back at once: all locks of the group share one
 * log, so that fence is above every fence granted before and below every fence granted after. Never empty while the
 * group answers. Calls run on a thread of this reader (a FencedLock belongs to the thread that locks it) and are
 * waited for at most the configuration's call timeout, so a group without a majority fails the call instead of
 * stalling it. For {@code MarkHealing} on the admission side; give it the instance and configuration of the provider.
 */
public final class HazelcastIssuedTokens implements IssuedTokens {

    /** '%' is no character of a resource name, so no resource's lock has this name. */
    private static final String PROBE = "%issued";
    private static final Method OWNERSHIP = ownershipQuery();

    private final HazelcastInstance hazelcast;
    private final HazelcastLeaseConfig config;
    private final ExecutorService probes = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "fenceguard-hazelcast-issued-tokens");
        thread.setDaemon(true);
        return thread;
    });

    private HazelcastIssuedTokens(HazelcastInstance hazelcast, HazelcastLeaseConfig config) {
        this.hazelcast = Objects.requireNonNull(hazelcast, "hazelcast");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** The tokens minted by a {@link HazelcastLeaseProvider} on {@code hazelcast} with {@code config}. */
    public static HazelcastIssuedTokens of(HazelcastInstance hazelcast, HazelcastLeaseConfig config) {
        return new HazelcastIssuedTokens(hazelcast, config);
    }

    /** @throws IllegalStateException when the CP group does not grant the lock within the call timeout */
    @Override
    public Optional<FencingToken> highestIssued(ResourceName resource) {
        long timeout = config.callTimeout().toNanos();
        Future<Long> fence = probes.submit(() -> {
            long held = holderFence(hazelcast.getCPSubsystem().getLock(lockName(resource)));
            if (held > 0) {
                return held;
            }
            FencedLock probe = hazelcast.getCPSubsystem().getLock(config.lockNamePrefix() + PROBE + "@" + config.cpGroup());
            long taken = probe.tryLockAndGetFence(timeout, TimeUnit.NANOSECONDS);
            if (taken != FencedLock.INVALID_FENCE) {
                probe.unlock();
            }
            return taken;
        });
        try {
            long taken = fence.get(timeout, TimeUnit.NANOSECONDS);
            if (taken == FencedLock.INVALID_FENCE) {
                throw new IllegalStateException("the CP group " + config.cpGroup() + " did not grant its probe lock"
                        + " within " + config.callTimeout() + " to tell the fences of '" + resource + "'");
            }
            return Optional.of(FencingToken.of(taken));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the fences of '" + resource + "'", e);
        } catch (TimeoutException e) {
            // Left to finish in the background: it gives the lock back if it ever gets it.
            throw new IllegalStateException("the CP group " + config.cpGroup() + " did not answer within "
                    + config.callTimeout() + " to tell the fences of '" + resource + "'", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the CP group " + config.cpGroup() + " could not tell the fences of '"
                    + resource + "': " + e.getCause(), e.getCause());
        }
    }

    private String lockName(ResourceName resource) {
        // as HazelcastLeaseProvider names it
        return config.lockNamePrefix() + resource.value().replace("@", "%40") + "@" + config.cpGroup();
    }

    /** The holder's fence, 0 when the lock is free or its proxy cannot tell. */
    private static long holderFence(FencedLock lock) throws Exception {
        Method query = OWNERSHIP;
        if (query == null || !query.getDeclaringClass().isInstance(lock)) {
            return 0;
        }
        Object state = ((Future<?>) query.invoke(lock)).get();
        if (!(Boolean) state.getClass().getMethod("isLocked").invoke(state)) {
            return 0;
        }
        return (Long) state.getClass().getMethod("getFence").invoke(state);
    }

    private static Method ownershipQuery() {
        try {
            Method query = Class.forName("com.hazelcast.cp.internal.datastructures.lock.proxy.AbstractFencedLockProxy")
                    .getDeclaredMethod("doGetLockOwnershipState");
            query.setAccessible(true);
            return query;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // another Hazelcast: the probe lock answers, above the holder's fence
        }
    }

    @Override
    public String toString() {
        return "HazelcastIssuedTokens[" + config.lockNamePrefix() + "@" + config.cpGroup() + "]";
    }
}
