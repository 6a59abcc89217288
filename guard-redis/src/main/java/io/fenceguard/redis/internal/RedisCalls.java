package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.RedisLeaseConfig;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Every synchronous Redis call of a lease goes through here, with one time budget: the caller's deadline.
 * Transient errors (connection, timeout, failover, read-only replica) are tried again with jittered
 * exponential back-off while the budget lasts; a {@link CircuitBreaker} turns an outage into a fast, clear
 * {@link LeaseUnavailableException}. The call waits for Redis's answer only until the deadline, whatever
 * the client's own timeouts and retries are: a frozen or slow server costs the caller its budget, never
 * more. An answer that comes after the caller gave up is handed to a {@code late} handler, so that a lock
 * granted by it can be released.
 */
public final class RedisCalls {

    private final RedisScriptClient client;
    private final CircuitBreaker breaker;
    private final IntervalFunction backoff;
    private final int attempts;

    private RedisCalls(RedisScriptClient client, CircuitBreaker breaker, IntervalFunction backoff, int attempts) {
        this.client = client;
        this.breaker = breaker;
        this.backoff = backoff;
        this.attempts = attempts;
    }

    /** Uses {@code breaker} when given (for example one from a registry), else builds one from the config. */
    public static RedisCalls of(RedisScriptClient client, RedisLeaseConfig config, CircuitBreaker breaker) {
        CircuitBreaker cb = breaker != null ? breaker : CircuitBreaker.of(config.name(), breakerConfig(config, client));
        return new RedisCalls(client, cb, IntervalFunction.ofExponentialRandomBackoff(config.backoff(), 2.0, 0.5),
                config.attempts());
    }

    /**
     * Opens on the configured share of failed (or unanswered) Redis calls of {@code client} and stays open the
     * configured time.
     */
    public static CircuitBreakerConfig breakerConfig(RedisLeaseConfig config, RedisScriptClient client) {
        return CircuitBreakerConfig.custom()
                .failureRateThreshold(config.failureRateThreshold())
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(config.slidingWindowSize())
                .minimumNumberOfCalls(Math.min(5, config.slidingWindowSize()))
                .waitDurationInOpenState(config.openStateDuration())
                .permittedNumberOfCallsInHalfOpenState(2)
                .recordException(e -> e instanceof TimeoutException
                        || client.isRedisFailure(e))
                .build();
    }

    public CircuitBreaker breaker() {
        return breaker;
    }

    /**
     * Runs {@code call} until {@code deadlineNanos} ({@link System#nanoTime()}); Redis failures and a missing
     * answer come out as {@link LeaseUnavailableException} naming the resource.
     *
     * @param late given each answer that arrives after this method gave up on it (null value on an error)
     */
    public <T> T call(ResourceName resource, String what, long deadlineNanos, Supplier<? extends CompletionStage<T>> call,
                      BiConsumer<T, Throwable> late) {
        for (int attempt = 1; ; attempt++) {
            if (!breaker.tryAcquirePermission()) {
                throw new LeaseUnavailableException("cannot " + what + " '" + resource + "': Redis is unavailable and "
                        + "circuit breaker '" + breaker.getName() + "' is open; failing fast", resource,
                        CallNotPermittedException.createCallNotPermittedException(breaker));
            }
            long start = System.nanoTime();
            CompletableFuture<T> future;
            try {
                future = call.get().toCompletableFuture();
            } catch (RuntimeException e) {
                if (!client.isRedisFailure(e)) {
                    breaker.releasePermission();
                    throw e;
                }
                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
                throw failed(resource, what, e);
            }
            try {
                T value = future.get(Math.max(0, deadlineNanos - start), TimeUnit.NANOSECONDS);
                breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                return value;
            } catch (TimeoutException e) {
                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
                handLate(future, late);
                throw new LeaseUnavailableException("cannot " + what + " '" + resource + "': Redis did not answer "
                        + "within the time left (" + TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - start))
                        + " ms)", resource, e);
            } catch (InterruptedException e) {
                breaker.releasePermission();
                handLate(future, late);
                Thread.currentThread().interrupt();
                throw new FenceguardException("interrupted while waiting for Redis to " + what + " '" + resource + "'",
                        resource, null, e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, cause);
                if (!client.isRedisFailure(cause)) {
                    throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
                }
                Throwable redis = cause;
                long pause = backoff.apply(attempt) * 1_000_000L;
                if (!client.isTransient(redis) || attempt >= attempts || System.nanoTime() + pause >= deadlineNanos) {
                    if (late != null && client.isTimeout(redis)) {
                        late.accept(null, redis); // the command may still have run: its effect is undone
                    }
                    throw failed(resource, what, redis);
                }
                sleep(resource, pause);
            }
        }
    }

    private static <T> void handLate(CompletableFuture<T> future, BiConsumer<T, Throwable> late) {
        if (late != null) {
            future.whenComplete(late);
        }
    }

    private static LeaseUnavailableException failed(ResourceName resource, String what, Throwable e) {
        return new LeaseUnavailableException("cannot " + what + " '" + resource + "': Redis failed: " + e.getMessage(),
                resource, e);
    }

    private static void sleep(ResourceName resource, long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while waiting to try Redis again for '" + resource + "'",
                    resource, null, e);
        }
    }
}
