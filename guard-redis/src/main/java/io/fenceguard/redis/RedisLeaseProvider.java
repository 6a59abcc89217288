package io.fenceguard.redis;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.internal.ContentionRetry;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.internal.RedisCalls;
import io.fenceguard.redis.internal.RedisLeaseScripts;
import io.fenceguard.redis.internal.ReleaseWaiter;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RedissonClient;

/**
 * Leases on Redis through a {@link RedissonClient} that the application owns (never created or closed
 * here). One Lua script per grant checks, locks and mints {@code max(last + 1, Redis TIME in µs)};
 * waiters sleep on a pub/sub channel, one woken per release; a lost holder's resource stays closed
 * for the lock-delay.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(redisson));
 * }</pre>
 */
public final class RedisLeaseProvider implements LeaseProvider {

    private final RedisLeaseConfig config;
    private final RedisLeaseScripts scripts;
    private final RedisCalls calls;
    private final ReleaseWaiter waiter;
    private final ContentionRetry contention;

    private RedisLeaseProvider(RedissonClient redisson, RedisLeaseConfig config, CircuitBreaker breaker) {
        this.config = Objects.requireNonNull(config, "config");
        this.scripts = new RedisLeaseScripts(Objects.requireNonNull(redisson, "redisson"));
        this.calls = RedisCalls.of(config, breaker);
        this.waiter = new ReleaseWaiter(redisson);
        this.contention = new ContentionRetry(config);
    }

    public static RedisLeaseProvider of(RedissonClient redisson) {
        return of(redisson, RedisLeaseConfig.defaults());
    }

    public static RedisLeaseProvider of(RedissonClient redisson, RedisLeaseConfig config) {
        return new RedisLeaseProvider(redisson, config, null);
    }

    /** With a circuit breaker from the application's registry, so that it shows in its metrics. */
    public static RedisLeaseProvider of(RedissonClient redisson, RedisLeaseConfig config, CircuitBreaker breaker) {
        return new RedisLeaseProvider(redisson, config, Objects.requireNonNull(breaker, "breaker"));
    }

    /** The breaker settings this provider uses when it builds its own, for registering one elsewhere. */
    public static CircuitBreakerConfig breakerConfig(RedisLeaseConfig config) {
        return RedisCalls.breakerConfig(config);
    }

    public RedisLeaseConfig config() {
        return config;
    }

    public CircuitBreaker circuitBreaker() {
        return calls.breaker();
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        Objects.requireNonNull(request, "request");
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive, got " + wait);
        }
        ResourceName resource = request.resource();
        LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), resource);
        ContentionRetry.Attempt attempt = attempt(request, keys);
        if (!attempt.acquired() && !wait.isZero()) {
            long deadline = System.nanoTime() + wait.toNanos();
            try (ReleaseWaiter.Subscription releases = calls.call(resource, "wait for", () -> waiter.subscribe(keys))) {
                attempt = contention.await(resource, deadline, releases, () -> attempt(request, keys));
            }
        }
        if (!attempt.acquired()) {
            throw new LeaseTimeoutException(resource, wait, attempt.describe());
        }
        return new Grant(FencingToken.of(attempt.value()), attempt.sentAtNanos());
    }

    private ContentionRetry.Attempt attempt(LeaseRequest request, LeaseKeys keys) {
        long sentAt = System.nanoTime();
        long leaseMs = request.leaseTime().toMillis();
        long[] reply = calls.call(request.resource(), "acquire", () -> scripts.acquire(keys, request.holder(),
                leaseMs, config.lockDelay().toMillis(), sequenceTtlMs(leaseMs)));
        return new ContentionRetry.Attempt(reply[0], reply[1], sentAt);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        long leaseMs = request.leaseTime().toMillis();
        return scripts.renew(LeaseKeys.of(config.keyPrefix(), request.resource()), request.holder(),
                leaseMs, config.lockDelay().toMillis(), sequenceTtlMs(leaseMs));
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), request.resource());
        return calls.call(request.resource(), "release", () -> scripts.release(keys, request.holder()));
    }

    /** The counter must outlive a held lock and its lock-delay, so that a busy resource never loses it. */
    private long sequenceTtlMs(long leaseMs) {
        return Math.max(config.tokenIdleTtl().toMillis(), leaseMs + config.lockDelay().toMillis() + 1000);
    }

    @Override
    public String describe() {
        return "redis (key prefix " + config.keyPrefix() + ")";
    }
}
