package io.fenceguard.redis;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.internal.ServerClockWatch;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each lease's last view of the Redis server's clock, by holder: a forward jump seen by a renewal costs the lease
 * ({@link LeaseLossReason#CLOCK_JUMP}), a backward one is logged. Both are counted for
 * {@link RedisLeaseProvider#forwardClockJumps()} and {@link RedisLeaseProvider#backwardClockJumps()}.
 */
final class ServerClockWatches {

    // The provider's logger: one name to configure for everything the provider does.
    private static final Logger log = LoggerFactory.getLogger(RedisLeaseProvider.class);

    private final Map<String, ServerClockWatch> byHolder = new ConcurrentHashMap<>();
    private final AtomicLong pruneAt = new AtomicLong(4096);
    private final AtomicLong forwardJumps = new AtomicLong();
    private final AtomicLong backwardJumps = new AtomicLong();
    /** What every reply tells of the server's clock, beside the lease it came for. */
    private final Consumer<ServerClockWatch.Reading> server;

    ServerClockWatches(Consumer<ServerClockWatch.Reading> server) {
        this.server = server;
    }

    long forwardJumps() {
        return forwardJumps.get();
    }

    long backwardJumps() {
        return backwardJumps.get();
    }

    /** A reply's server time, read between {@code sentAt} and now, told to the server's observer. */
    ServerClockWatch.Reading reading(long serverMicros, long sentAt) {
        ServerClockWatch.Reading reading = new ServerClockWatch.Reading(serverMicros, sentAt, System.nanoTime());
        server.accept(reading);
        return reading;
    }

    /** Keeps the grant's server time as the lease's first reading; leases never watched nor released are dropped. */
    void track(LeaseRequest request, ServerClockWatch.Reading reading) {
        long size = byHolder.size();
        long at = pruneAt.get();
        // A scan per acquire would cost O(held leases) each: scan when the map doubled since the last scan.
        if (size >= at && pruneAt.compareAndSet(at, Long.MAX_VALUE)) {
            long horizon = System.nanoTime() - 2 * request.leaseTime().toNanos();
            byHolder.values().removeIf(w -> !w.isWatched() && w.createdNanos() - horizon < 0);
            pruneAt.set(Math.max(4096, 2L * byHolder.size()));
        }
        byHolder.put(request.holder(), new ServerClockWatch(reading));
    }

    /**
     * A renewal's answer with the server time of its call: false when the server's clock jumped forward (the lease
     * is told it is lost, {@code CLOCK_JUMP}).
     */
    boolean check(LeaseRequest request, long serverMicros, long sentAt) {
        ServerClockWatch.Reading reading = reading(serverMicros, sentAt);
        ServerClockWatch watch = byHolder.computeIfAbsent(request.holder(), h -> new ServerClockWatch(null));
        ServerClockWatch.Step step = watch.observe(reading);
        if (step.forward()) {
            forwardJumps.incrementAndGet();
            log.warn("Redis clock jumped forward by {} ms more than passed here; lease on '{}' (holder {}) is lost: "
                    + "Redis may expire it early", step.excessNanos() / 1_000_000, request.resource(), request.holder());
            watch.tellLost();
            return false;
        }
        if (step.backward()) {
            backwardJumps.incrementAndGet();
            log.warn("Redis clock jumped back by {} ms; lease on '{}' (holder {}) is kept, but Redis keeps it that much "
                    + "longer if it is not released", -step.excessNanos() / 1_000_000, request.resource(), request.holder());
        }
        return true;
    }

    /** Tells {@code lost} of a forward jump seen on the lease; closing the result stops watching it. */
    AutoCloseable watch(LeaseRequest request, Consumer<LeaseLossReason> lost) {
        ServerClockWatch watch = byHolder.computeIfAbsent(request.holder(), h -> new ServerClockWatch(null));
        watch.onLost(lost);
        return () -> byHolder.remove(request.holder(), watch);
    }

    /** Drops the lease's watch: released, or given up. */
    void forget(LeaseRequest request) {
        byHolder.remove(request.holder());
    }
}
