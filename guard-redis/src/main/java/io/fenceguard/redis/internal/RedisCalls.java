package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.util.function.Supplier;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNodeNotFoundException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisReconnectedException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;

/**
 * Every synchronous Redis call of a lease goes through here: a resilience4j {@link Retry} with
 * jittered exponential back-off for transient errors, around a {@link CircuitBreaker} that turns a
 * Redis outage into a fast, clear {@link LeaseUnavailableException}.
 */
public final class RedisCalls {

    private final CircuitBreaker breaker;
    private final Retry retry;

    private RedisCalls(CircuitBreaker breaker, Retry retry) {
        this.breaker = breaker;
        this.retry = retry;
    }

    /** Uses {@code breaker} when given (for example one from a registry), else builds one from the config. */
    public static RedisCalls of(RedisLeaseConfig config, CircuitBreaker breaker) {
        CircuitBreaker cb = breaker != null ? breaker
                : CircuitBreaker.of(config.name(), breakerConfig(config));
        Retry retry = Retry.of(config.name(), RetryConfig.custom()
                .maxAttempts(config.attempts())
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(config.backoff(), 2.0, 0.5))
                .retryExceptions(RedisConnectionException.class, RedisTimeoutException.class,
                        RedisRetryException.class, RedisReadonlyException.class,
                        RedisNodeNotFoundException.class, RedisReconnectedException.class)
                .ignoreExceptions(CallNotPermittedException.class)
                .build());
        return new RedisCalls(cb, retry);
    }

    /** Opens on the configured share of failed Redis calls and stays open the configured time. */
    public static CircuitBreakerConfig breakerConfig(RedisLeaseConfig config) {
        return CircuitBreakerConfig.custom()
                .failureRateThreshold(config.failureRateThreshold())
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(config.slidingWindowSize())
                .minimumNumberOfCalls(Math.min(5, config.slidingWindowSize()))
                .waitDurationInOpenState(config.openStateDuration())
                .permittedNumberOfCallsInHalfOpenState(2)
                .recordExceptions(RedisException.class)
                .build();
    }

    public CircuitBreaker breaker() {
        return breaker;
    }

    public Retry retry() {
        return retry;
    }

    /** Runs {@code call}; Redis failures come out as {@link LeaseUnavailableException} naming the resource. */
    public <T> T call(ResourceName resource, String what, Supplier<T> call) {
        Supplier<T> guarded = Retry.decorateSupplier(retry, CircuitBreaker.decorateSupplier(breaker, call));
        try {
            return guarded.get();
        } catch (CallNotPermittedException e) {
            throw new LeaseUnavailableException("cannot " + what + " '" + resource + "': Redis is unavailable and "
                    + "circuit breaker '" + breaker.getName() + "' is open; failing fast", resource, e);
        } catch (RedisException e) {
            throw new LeaseUnavailableException("cannot " + what + " '" + resource + "': Redis failed: "
                    + e.getMessage(), resource, e);
        }
    }
}
