package io.fenceguard.redis;

import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.internal.RedisLeaseScripts;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks an acquire that gave up without an answer: an answer that comes later may still have granted the lock,
 * and the mark gives it back (or keeps a run of the request that Redis still has queued from taking it). The mark
 * is tried again on a thread of its own until it is set or the lease is over.
 */
final class GiveUpMarks implements AutoCloseable {

    // The provider's logger: one name to configure for everything the provider does.
    private static final Logger log = LoggerFactory.getLogger(RedisLeaseProvider.class);
    /** Between tries to mark an acquire that gave up without an answer. */
    private static final Duration PAUSE = Duration.ofMillis(200);
    private static final AtomicLong THREADS = new AtomicLong();

    private final RedisLeaseConfig config;
    private final RedisLeaseScripts scripts;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fenceguard-redis-give-up-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    GiveUpMarks(RedisLeaseConfig config, RedisLeaseScripts scripts) {
        this.config = config;
        this.scripts = scripts;
    }

    /** Marks {@code request} given up on {@code keys}, and gives back the lock if a late answer granted it. */
    void mark(LeaseRequest request, LeaseKeys keys) {
        // The marker outlives any run of the request that Redis may still have queued: the lease plus a call.
        long callNanos = config.callTimeout(request.leaseTime()).toNanos();
        long markerMs = request.leaseTime().toMillis() + TimeUnit.NANOSECONDS.toMillis(callNanos);
        // Redis may be frozen or gone right now: the marker is tried again until it is set or the lease is over
        // (a lock granted late expires with it then).
        int tries = (int) Math.max(1, request.leaseTime().toMillis() / PAUSE.toMillis());
        Retry retry = Retry.of(config.name() + "-give-up", RetryConfig.<Boolean>custom()
                .maxAttempts(tries).waitDuration(PAUSE).retryOnException(e -> true).build());
        retry.executeCompletionStage(retries, () -> scripts.giveUp(keys, request.holder(), markerMs, callNanos))
                .whenComplete((released, error) -> {
                    if (Boolean.TRUE.equals(released)) {
                        log.info("released the lock on '{}' that a late answer granted to holder {} after its acquire "
                                + "gave up", request.resource(), request.holder());
                    } else if (error != null) {
                        log.warn("could not release the lock on '{}' that a late answer may have granted to holder {}; "
                                + "it expires with its lease: {}", request.resource(), request.holder(), error.toString());
                    }
                });
    }

    /** Stops the retries: a mark not yet set is dropped, and a lock granted late expires with its lease. */
    @Override
    public void close() {
        retries.shutdownNow();
    }
}
