package io.fenceguard.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link LeaseManager}. Defaults: lease 30 s renewed every 10 s, lock-delay 5 s, token
 * memory 10 min, wait 10 s, three Redis attempts 50 ms apart (doubling, jittered), and a circuit
 * breaker that opens when half of the last 10 Redis calls failed and stays open 10 s.
 */
public final class LeaseConfig {

    private final Duration leaseTime;
    private final Duration renewInterval;
    private final Duration lockDelay;
    private final Duration tokenIdleTtl;
    private final Duration defaultWait;
    private final String keyPrefix;
    private final String clientName;
    private final int redisAttempts;
    private final Duration redisBackoff;
    private final Duration contentionBackoff;
    private final Duration contentionBackoffMax;
    private final float failureRateThreshold;
    private final int slidingWindowSize;
    private final Duration openStateDuration;

    private LeaseConfig(Builder b) {
        this.leaseTime = positive(b.leaseTime, "leaseTime");
        this.renewInterval = b.renewInterval != null ? positive(b.renewInterval, "renewInterval") : leaseTime.dividedBy(3);
        if (renewInterval.compareTo(leaseTime) >= 0) {
            throw new IllegalArgumentException("renewInterval " + renewInterval + " must be shorter than leaseTime " + leaseTime);
        }
        this.lockDelay = notNegative(b.lockDelay, "lockDelay");
        Duration ttl = positive(b.tokenIdleTtl, "tokenIdleTtl");
        // The sequence must outlive a held lock and its lock-delay so that a busy resource never loses it.
        this.tokenIdleTtl = max(ttl, leaseTime.plus(lockDelay).plusSeconds(1));
        this.defaultWait = notNegative(b.defaultWait, "defaultWait");
        this.keyPrefix = Objects.requireNonNull(b.keyPrefix, "keyPrefix");
        if (keyPrefix.contains("{") || keyPrefix.contains("}")) {
            throw new IllegalArgumentException("keyPrefix must not contain braces: " + keyPrefix);
        }
        this.clientName = Objects.requireNonNull(b.clientName, "clientName");
        if (b.redisAttempts < 1) {
            throw new IllegalArgumentException("redisAttempts must be at least 1");
        }
        this.redisAttempts = b.redisAttempts;
        this.redisBackoff = positive(b.redisBackoff, "redisBackoff");
        this.contentionBackoff = positive(b.contentionBackoff, "contentionBackoff");
        this.contentionBackoffMax = max(positive(b.contentionBackoffMax, "contentionBackoffMax"), contentionBackoff);
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

    public static LeaseConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Duration leaseTime() { return leaseTime; }
    public Duration renewInterval() { return renewInterval; }
    public Duration lockDelay() { return lockDelay; }
    public Duration tokenIdleTtl() { return tokenIdleTtl; }
    public Duration defaultWait() { return defaultWait; }
    public String keyPrefix() { return keyPrefix; }
    public String clientName() { return clientName; }
    public int redisAttempts() { return redisAttempts; }
    public Duration redisBackoff() { return redisBackoff; }
    public Duration contentionBackoff() { return contentionBackoff; }
    public Duration contentionBackoffMax() { return contentionBackoffMax; }
    public float failureRateThreshold() { return failureRateThreshold; }
    public int slidingWindowSize() { return slidingWindowSize; }
    public Duration openStateDuration() { return openStateDuration; }

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

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Builds a {@link LeaseConfig}; every setting has a default. */
    public static final class Builder {
        private Duration leaseTime = Duration.ofSeconds(30);
        private Duration renewInterval;
        private Duration lockDelay = Duration.ofSeconds(5);
        private Duration tokenIdleTtl = Duration.ofMinutes(10);
        private Duration defaultWait = Duration.ofSeconds(10);
        private String keyPrefix = "fg:";
        private String clientName = "fenceguard";
        private int redisAttempts = 3;
        private Duration redisBackoff = Duration.ofMillis(50);
        private Duration contentionBackoff = Duration.ofMillis(2);
        private Duration contentionBackoffMax = Duration.ofMillis(100);
        private float failureRateThreshold = 50;
        private int slidingWindowSize = 10;
        private Duration openStateDuration = Duration.ofSeconds(10);

        private Builder() {
        }

        /** How long a lease lives in Redis without renewal. */
        public Builder leaseTime(Duration v) { leaseTime = v; return this; }
        /** How often the watchdog renews; default a third of the lease time. */
        public Builder renewInterval(Duration v) { renewInterval = v; return this; }
        /** How long a resource stays closed after its holder was lost (not after a clean release). */
        public Builder lockDelay(Duration v) { lockDelay = v; return this; }
        /** How long an idle resource's token sequence is kept; raised to at least lease + lock-delay + 1 s. */
        public Builder tokenIdleTtl(Duration v) { tokenIdleTtl = v; return this; }
        /** Wait used by the forms that take no wait timeout. */
        public Builder defaultWait(Duration v) { defaultWait = v; return this; }
        /** Prefix of every Redis key and channel. */
        public Builder keyPrefix(String v) { keyPrefix = v; return this; }
        /** Start of the holder identities of this manager, to tell clients apart in Redis and logs. */
        public Builder clientName(String v) { clientName = v; return this; }
        /** Attempts per Redis call on transient errors (connection, timeout, failover). */
        public Builder redisAttempts(int v) { redisAttempts = v; return this; }
        /** First back-off between Redis attempts; doubles, with ±50 % jitter. */
        public Builder redisBackoff(Duration v) { redisBackoff = v; return this; }
        /** First back-off after a busy attempt; grows 1.5× with ±50 % jitter up to the maximum. */
        public Builder contentionBackoff(Duration v) { contentionBackoff = v; return this; }
        public Builder contentionBackoffMax(Duration v) { contentionBackoffMax = v; return this; }
        /** Percentage of failed Redis calls in the window that opens the circuit breaker. */
        public Builder failureRateThreshold(float v) { failureRateThreshold = v; return this; }
        /** Number of recent Redis calls the circuit breaker judges. */
        public Builder slidingWindowSize(int v) { slidingWindowSize = v; return this; }
        /** How long an open circuit breaker fails calls fast before it lets a trial call through. */
        public Builder openStateDuration(Duration v) { openStateDuration = v; return this; }

        public LeaseConfig build() {
            return new LeaseConfig(this);
        }
    }
}
