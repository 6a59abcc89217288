package io.fenceguard.redlock;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/** Settings of {@link RedlockLeaseProvider}; {@link #defaults()} suits masters on a local network. */
public final class RedlockLeaseConfig {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9:._-]{1,64}");

    private final String keyPrefix;
    private final Duration masterTimeout;
    private final double driftFactor;
    private final Duration minDrift;
    private final Duration minRetry;
    private final Duration maxRetry;

    private RedlockLeaseConfig(Builder b) {
        this.keyPrefix = Objects.requireNonNull(b.keyPrefix, "keyPrefix");
        if (!PREFIX.matcher(keyPrefix).matches()) {
            throw new IllegalArgumentException("keyPrefix must be 1-64 characters of A-Z a-z 0-9 : . _ -, got '"
                    + keyPrefix + "'");
        }
        this.masterTimeout = positive(b.masterTimeout, "masterTimeout");
        if (!(b.driftFactor >= 0 && b.driftFactor < 0.5)) {
            throw new IllegalArgumentException("driftFactor must be in [0, 0.5), got " + b.driftFactor);
        }
        this.driftFactor = b.driftFactor;
        Objects.requireNonNull(b.minDrift, "minDrift");
        if (b.minDrift.isNegative()) {
            throw new IllegalArgumentException("minDrift must not be negative, got " + b.minDrift);
        }
        this.minDrift = b.minDrift;
        this.minRetry = positive(b.minRetry, "minRetry");
        this.maxRetry = positive(b.maxRetry, "maxRetry");
        if (maxRetry.compareTo(minRetry) < 0) {
            throw new IllegalArgumentException("maxRetry (" + maxRetry + ") must not be below minRetry (" + minRetry + ")");
        }
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
        return d;
    }

    public static RedlockLeaseConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Start of every key (default {@code fgrl:}): {@code <prefix>{<resource>}:lock} and {@code …:token}. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * How long one step waits for a master's answer (default 100 ms); a master that does not answer in
     * time counts as a "no". It should be small against the lease time, so that a dead master costs
     * little of the validity. An acquire attempt takes at most two such steps.
     */
    public Duration masterTimeout() {
        return masterTimeout;
    }

    /** Share of the lease time allowed for clock-rate differences between the masters (default 0.01). */
    public double driftFactor() {
        return driftFactor;
    }

    /** Added to the drift allowance (default 2 ms), for the masters' expiry resolution. */
    public Duration minDrift() {
        return minDrift;
    }

    /** First random pause between attempts on a busy resource (default 5 ms; grows ×1.5 with ±50 % jitter). */
    public Duration minRetry() {
        return minRetry;
    }

    /** Largest pause between attempts (default 200 ms). */
    public Duration maxRetry() {
        return maxRetry;
    }

    /** The drift allowance for a lease of {@code leaseTime}: {@code leaseTime × driftFactor + minDrift}. */
    public Duration drift(Duration leaseTime) {
        return Duration.ofNanos((long) (leaseTime.toNanos() * driftFactor)).plus(minDrift);
    }

    public static final class Builder {
        private String keyPrefix = "fgrl:";
        private Duration masterTimeout = Duration.ofMillis(100);
        private double driftFactor = 0.01;
        private Duration minDrift = Duration.ofMillis(2);
        private Duration minRetry = Duration.ofMillis(5);
        private Duration maxRetry = Duration.ofMillis(200);

        private Builder() {
        }

        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        public Builder masterTimeout(Duration masterTimeout) {
            this.masterTimeout = masterTimeout;
            return this;
        }

        public Builder driftFactor(double driftFactor) {
            this.driftFactor = driftFactor;
            return this;
        }

        public Builder minDrift(Duration minDrift) {
            this.minDrift = minDrift;
            return this;
        }

        public Builder minRetry(Duration minRetry) {
            this.minRetry = minRetry;
            return this;
        }

        public Builder maxRetry(Duration maxRetry) {
            this.maxRetry = maxRetry;
            return this;
        }

        public RedlockLeaseConfig build() {
            return new RedlockLeaseConfig(this);
        }
    }
}
