package io.fenceguard.redis;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.internal.ReadWriteScripts;
import io.fenceguard.redis.internal.RedisCalls;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A fair read-write lease on Redis: {@link LeaseMode#SHARED shared} leases (readers) held together,
 * {@link LeaseMode#EXCLUSIVE exclusive} ones (writers) alone, and waiters served in the order they
 * arrived (a queue in Redis, one Lua script per attempt). Readers that queue behind a writer wait for it,
 * so writers are never starved.
 *
 * <p><b>Tokens</b> come from one counter per resource for both modes, {@code max(last + 1, Redis TIME
 * in µs)} as in {@link RedisLeaseProvider} (with the same clock assumption after a data loss). A writer
 * is granted only when every earlier lease is gone, so its token is greater than every earlier reader's
 * and writer's: once the writer has written, the resource refuses a stale reader's or writer's write.
 * {@code Lease.mode()} carries the mode beside the token, as Chubby's sequencer does.
 *
 * <p>Waiters poll (a random pause between {@code contentionBackoff} and {@code contentionBackoffMax},
 * resilience4j's jittered interval), refreshing their place in the queue each time; a waiter that dies
 * loses its place after {@link #TICKET_TTL}. Keys live under {@code <prefix>rw:{<resource>}:}, apart from
 * the exclusive provider's: a resource is locked through one of the two, not both.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(RedisReadWriteLeaseProvider.of(RedissonScriptClient.of(redisson)));
 * try (Lease read = guard.acquireShared("report:7", Duration.ofSeconds(5))) { … }
 * try (Lease write = guard.acquire("report:7", Duration.ofSeconds(5))) { … }
 * }</pre>
 */
public final class RedisReadWriteLeaseProvider extends AbstractLeaseProvider {

    /** How long a waiter keeps its place in the queue without polling. */
    public static final Duration TICKET_TTL = Duration.ofSeconds(2);

    private final RedisLeaseConfig config;
    private final ReadWriteScripts scripts;
    private final RedisCalls calls;
    private final IntervalFunction pauses;
    private final ReplicaAcknowledgements replicas;

    private RedisReadWriteLeaseProvider(RedisScriptClient client, RedisLeaseConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(client, "client");
        this.scripts = new ReadWriteScripts(client);
        this.calls = RedisCalls.of(client, config, null);
        this.replicas = new ReplicaAcknowledgements(config, client, calls);
        RedisLeaseProvider.loadScripts(client, ReadWriteScripts.all(), config);
        this.pauses = IntervalFunction.ofExponentialRandomBackoff(config.contentionBackoff(), 1.5, 0.5,
                config.contentionBackoffMax());
    }

    public static RedisReadWriteLeaseProvider of(RedisScriptClient client) {
        return of(client, RedisLeaseConfig.defaults());
    }

    /** Uses the key prefix, token idle TTL, contention back-off, retry and breaker settings of {@code config}. */
    public static RedisReadWriteLeaseProvider of(RedisScriptClient client, RedisLeaseConfig config) {
        return new RedisReadWriteLeaseProvider(client, config);
    }

    @Override
    public Set<LeaseMode> modes() {
        return Set.of(LeaseMode.EXCLUSIVE, LeaseMode.SHARED);
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        ResourceName resource = request.resource();
        ReadWriteScripts.Keys keys = ReadWriteScripts.Keys.of(config.keyPrefix(), resource);
        long leaseMs = request.leaseTime().toMillis();
        boolean queue = !wait.isZero();
        boolean granted = false;
        try {
            int required = replicas.required(resource, keys.holders(),
                    System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos());
            for (int n = 1; ; n++) {
                long sent = System.nanoTime();
                // One call's budget, also past the wait: an answer that comes later still may have granted it.
                long giveUpAt = Math.max(deadline, sent) + config.callTimeout(request.leaseTime()).toNanos();
                ReadWriteScripts.Answer answer = calls.call(resource, "acquire", giveUpAt, () -> scripts.acquire(keys,
                                request.holder(), request.mode(), leaseMs, TICKET_TTL.toMillis(), sequenceTtlMs(leaseMs),
                                queue, required, config.replicaTimeout(), giveUpAt),
                        (late, error) -> {
                            if (late == null || late.token() > 0) {
                                releaseQuietly(keys, request);
                            }
                        });
                if (answer.token() > 0) {
                    if (!ReplicaAcknowledgements.enough(answer.acknowledged(), required)) {
                        giveBack(keys, request);
                        throw replicas.refusal(resource, answer.acknowledged(), required);
                    }
                    granted = true;
                    return new Grant(FencingToken.of(answer.token()), sent);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new LeaseTimeoutException(resource, wait, request.mode() == LeaseMode.SHARED
                            ? "a writer holds it or is queued before this reader"
                            : "it is held, or other waiters are queued before this writer");
                }
                pause(resource, Math.min(left, TimeUnit.MILLISECONDS.toNanos(pauses.apply(n))));
            }
        } finally {
            if (!granted && queue) {
                abandon(keys, request);
            }
        }
    }

    /**
     * Gives back a grant that too few replicas acknowledged before the acquire fails, waiting at most one call: a
     * failover to a replica without it would grant it again. Not given back, it lapses with its lease.
     */
    private void giveBack(ReadWriteScripts.Keys keys, LeaseRequest request) {
        long giveUpAt = System.nanoTime() + callTimeoutNanos(request);
        try {
            calls.call(request.resource(), "release", giveUpAt,
                    () -> scripts.release(keys, request.holder(), callTimeoutNanos(request)), null);
        } catch (RuntimeException e) {
            // It lapses with its lease.
        }
    }

    /** Leaves the queue, also when interrupted (the flag is restored); a place not left lapses after {@link #TICKET_TTL}. */
    private void abandon(ReadWriteScripts.Keys keys, LeaseRequest request) {
        boolean interrupted = Thread.interrupted();
        try {
            scripts.abandon(keys, request.holder(), request.mode(), callTimeoutNanos(request));
        } catch (RuntimeException e) {
            // Its ticket runs out by itself.
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        long leaseMs = request.leaseTime().toMillis();
        return scripts.renew(ReadWriteScripts.Keys.of(config.keyPrefix(), request.resource()), request.holder(),
                leaseMs, sequenceTtlMs(leaseMs), TimeUnit.MILLISECONDS.toNanos(leaseMs));
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        ReadWriteScripts.Keys keys = ReadWriteScripts.Keys.of(config.keyPrefix(), request.resource());
        long giveUpAt = System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos();
        return calls.call(request.resource(), "release", giveUpAt, () -> scripts.release(keys, request.holder(), callTimeoutNanos(request)), null);
    }

    /** Gives back what a reply that came after the acquire gave up may have granted; it lapses by itself otherwise. */
    private void releaseQuietly(ReadWriteScripts.Keys keys, LeaseRequest request) {
        try {
            scripts.release(keys, request.holder(), callTimeoutNanos(request));
        } catch (RuntimeException e) {
            // The lease runs out by itself.
        }
    }

    private long callTimeoutNanos(LeaseRequest request) {
        return config.callTimeout(request.leaseTime()).toNanos();
    }

    private long sequenceTtlMs(long leaseMs) {
        return Math.max(config.tokenIdleTtl().toMillis(), leaseMs + 1000);
    }

    @Override
    public String describe() {
        return "redis read-write (key prefix " + config.keyPrefix() + "rw:)";
    }
}
