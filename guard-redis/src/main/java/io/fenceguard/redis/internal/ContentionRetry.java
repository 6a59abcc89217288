package io.fenceguard.redis.internal;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.core.ResourceName;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Waiting for a busy resource: each try sleeps on the release channel until a release is announced
 * or the holder's time runs out, then resilience4j {@link Retry} tries again after a random pause, so
 * that woken waiters do not all hit Redis at the same instant.
 */
public final class ContentionRetry {

    /** One acquire attempt: the script's status and value (the token when acquired), and the server's time. */
    public record Attempt(long status, long value, ServerClockWatch.Reading reading, boolean woken, boolean givenUp) {

        public Attempt(long status, long value, ServerClockWatch.Reading reading) {
            this(status, value, reading, false, false);
        }

        /** When the request that obtained it was sent. */
        public long sentAtNanos() {
            return reading.sentNanos();
        }

        public boolean acquired() {
            return status == RedisLeaseScripts.ACQUIRED;
        }

        Attempt after(boolean wasWoken, boolean giveUp) {
            return new Attempt(status, value, reading, wasWoken, giveUp);
        }

        /** Why the last attempt did not succeed, for the timeout message. */
        public String describe() {
            if (status == RedisLeaseScripts.DELAYED) {
                return "its previous holder was lost and lock-delay keeps it closed for another " + value + " ms";
            }
            return "another holder has it for up to " + value + " ms more";
        }
    }

    private final Retry retry;
    private final long contentionBackoffNanos;

    public ContentionRetry(RedisLeaseConfig config) {
        this.contentionBackoffNanos = config.contentionBackoff().toNanos();
        IntervalFunction backoff = IntervalFunction.ofExponentialRandomBackoff(
                config.contentionBackoff(), 1.5, 0.5, config.contentionBackoffMax());
        IntervalBiFunction<Attempt> interval = (n, outcome) -> {
            if (outcome.isRight() && outcome.get().woken()) {
                // A release was announced: the resource is probably free; just spread the herd.
                return ThreadLocalRandom.current().nextLong(contentionBackoffNanos + 1) / 1_000_000L;
            }
            return backoff.apply(n);
        };
        this.retry = Retry.of(config.name() + "-contention", RetryConfig.<Attempt>custom()
                .maxAttempts(Integer.MAX_VALUE)
                .retryOnResult(a -> !a.acquired() && !a.givenUp())
                .retryOnException(e -> false)
                .intervalBiFunction(interval)
                .build());
    }

    /** Tries until acquired or {@code deadlineNanos}; returns the last attempt. */
    public Attempt await(ResourceName resource, long deadlineNanos, ReleaseWaiter.Subscription releases,
                         Supplier<Attempt> attempt) {
        return retry.executeSupplier(() -> {
            releases.attempting();
            Attempt a = attempt.get();
            long remaining = deadlineNanos - System.nanoTime();
            if (a.acquired() || remaining <= 0) {
                return a.after(false, true);
            }
            long holderLeft = a.value() > 0 ? a.value() * 1_000_000L : remaining;
            boolean woken;
            try {
                woken = releases.await(Math.min(remaining, holderLeft));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FenceguardException("interrupted while waiting for a lease on '" + resource + "'", resource, null, e);
            }
            return a.after(woken, deadlineNanos - System.nanoTime() <= 0);
        });
    }
}
