package io.fenceguard.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RedisLeaseProvider} uses Redis: key names, Chubby's lock-delay, how long a resource's
 * token counter outlives its last lease, and how Redis failures are retried and cut off.
 */
public final class RedisLeaseConfig {

    private final String keyPrefix;
    private final Duration lockDelay;
    private final Duration tokenIdleTtl;
    private final String name;
    private final int attempts;
    private final Duration backoff;
    private final Duration contentionBackoff;
    private final Duration contentionBackoffMax;
    private final float failureRateThreshold;
    private final int slidingWindowSize;
    private final Duration openStateDuration;

    private RedisLeaseConfig(Builder b) {
        this.keyPrefix = Objects.requireNonNull(b.keyPrefix, "keyPrefix");
        if (keyPrefix.contains("{") || keyPrefix.contains("}")) {
            throw new IllegalArgumentException("keyPrefix must not contain braces: " + keyPrefix);
        }
        this.lockDelay = notNegative(b.lockDelay, "lockDelay");
        this.tokenIdleTtl = positive(b.tokenIdleTtl, "tokenIdleTtl");
        this.name = Objects.requireNonNull(b.name, "name");
        if (b.attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1");
        }
        this.attempts = b.attempts;
        this.backoff = positive(b.backoff, "backoff");
        this.contentionBackoff = positive(b.contentionBackoff, "contentionBackoff");
        Duration max = positive(b.contentionBackoffMax, "contentionBackoffMax");
        this.contentionBackoffMax = max.compareTo(contentionBackoff) >= 0 ? max : contentionBackoff;
        if (!(b.failureRateThreshold > 0 && b.failureRateThreshold <= 100)) {
            throw new IllegalArgumentException("failureRateThreshold must be in (0, 100]");
        }
        this.failureRateThreshold = b.failureRateThreshold;
        if (b.slidingWindowSize < 1) {
            throw new IllegalArgumentException("slidingWindowSize must be at least 1");
        }
        this.slidingWindowSize = b.slidingWindowSize;
        this.openStateDuration = positive(b.openStateDuration, "openStateDuration");
    }

    public static RedisLeaseConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Prefix of every key (default {@code fg:}); braces are not allowed, the resource is the hash tag. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** How long a resource stays closed after its holder was lost rather than released (default 5 s). */
    public Duration lockDelay() {
        return lockDelay;
    }

    /** How long a resource's token counter outlives its last lease (default 10 min; at least lease + lock-delay + 1 s). */
    public Duration tokenIdleTtl() {
        return tokenIdleTtl;
    }

    /** Name of the retry and circuit breaker (default {@code fenceguard-redis}). */
    public String name() {
        return name;
    }

    /** Tries per Redis call on transient errors (default 3). */
    public int attempts() {
        return attempts;
    }

    /** First back-off between tries, doubled with jitter (default 50 ms). */
    public Duration backoff() {
        return backoff;
    }

    /** First pause between tries on a busy resource (default 2 ms). */
    public Duration contentionBackoff() {
        return contentionBackoff;
    }

    /** Longest pause between tries on a busy resource (default 100 ms). */
    public Duration contentionBackoffMax() {
        return contentionBackoffMax;
    }

    public float failureRateThreshold() {
        return failureRateThreshold;
    }

    public int slidingWindowSize() {
        return slidingWindowSize;
    }

    public Duration openStateDuration() {
        return openStateDuration;
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
        return d;
    }

    private static Duration notNegative(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, got " + d);
        }
        return d;
    }

    public static final class Builder {
        private String keyPrefix = "fg:";
        private Duration lockDelay = Duration.ofSeconds(5);
        private Duration tokenIdleTtl = Duration.ofMinutes(10);
        private String name = "fenceguard-redis";
        private int attempts = 3;
        private Duration backoff = Duration.ofMillis(50);
        private Duration contentionBackoff = Duration.ofMillis(2);
        private Duration contentionBackoffMax = Duration.ofMillis(100);
        private float failureRateThreshold = 50;
        private int slidingWindowSize = 10;
        private Duration openStateDuration = Duration.ofSeconds(10);

        private Builder() {
        }

        public Builder keyPrefix(String v) { keyPrefix = v; return this; }
        public Builder lockDelay(Duration v) { lockDelay = v; return this; }
        public Builder tokenIdleTtl(Duration v) { tokenIdleTtl = v; return this; }
        public Builder name(String v) { name = v; return this; }
        public Builder attempts(int v) { attempts = v; return this; }
        public Builder backoff(Duration v) { backoff = v; return this; }
        public Builder contentionBackoff(Duration v) { contentionBackoff = v; return this; }
        public Builder contentionBackoffMax(Duration v) { contentionBackoffMax = v; return this; }
        public Builder failureRateThreshold(float v) { failureRateThreshold = v; return this; }
        public Builder slidingWindowSize(int v) { slidingWindowSize = v; return this; }
        public Builder openStateDuration(Duration v) { openStateDuration = v; return this; }

        public RedisLeaseConfig build() {
            return new RedisLeaseConfig(this);
        }
    }
}
