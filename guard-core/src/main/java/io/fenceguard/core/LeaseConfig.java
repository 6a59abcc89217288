package io.fenceguard.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link LeaseManager} holds leases, whatever the store: how long a lease lasts without renewal,
 * how often it is renewed, how long callers wait by default. Store settings (key prefix, lock-delay,
 * retries) belong to each provider's own configuration.
 */
public final class LeaseConfig {

    private final Duration leaseTime;
    private final Duration renewInterval;
    private final Duration defaultWait;
    private final String clientName;
    private final double atRiskShare;

    private LeaseConfig(Builder b) {
        this.leaseTime = positive(b.leaseTime, "leaseTime");
        this.renewInterval = b.renewInterval != null ? positive(b.renewInterval, "renewInterval") : leaseTime.dividedBy(3);
        if (renewInterval.compareTo(leaseTime) >= 0) {
            throw new IllegalArgumentException("renewInterval " + renewInterval + " must be shorter than leaseTime " + leaseTime);
        }
        Objects.requireNonNull(b.defaultWait, "defaultWait");
        if (b.defaultWait.isNegative()) {
            throw new IllegalArgumentException("defaultWait must not be negative, got " + b.defaultWait);
        }
        this.defaultWait = b.defaultWait;
        this.clientName = Objects.requireNonNull(b.clientName, "clientName");
        if (clientName.isBlank() || clientName.contains(":")) {
            throw new IllegalArgumentException("clientName must be non-blank and without ':', got '" + clientName + "'");
        }
        if (!(b.atRiskShare > 0 && b.atRiskShare < 1)) {
            throw new IllegalArgumentException("atRiskShare must be between 0 and 1 (exclusive), got " + b.atRiskShare);
        }
        this.atRiskShare = b.atRiskShare;
    }

    public static LeaseConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How long the store keeps a lease without renewal (default 30 s). */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** How often a held lease is renewed (default a third of the lease time). */
    public Duration renewInterval() {
        return renewInterval;
    }

    /** The wait of calls that name none (default 10 s). */
    public Duration defaultWait() {
        return defaultWait;
    }

    /** The first part of every holder id, for telling instances apart in the store (default "fenceguard"). */
    public String clientName() {
        return clientName;
    }

    /**
     * The share of the lease time below which a lease whose renewals fail (or go unanswered) is reported at risk,
     * before it is lost (default 0.5). Keep it below 1 − renewInterval / leaseTime, or a renewal that is merely
     * under way when the share is reached counts as at risk.
     */
    public double atRiskShare() {
        return atRiskShare;
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
        return d;
    }

    public static final class Builder {
        private Duration leaseTime = Duration.ofSeconds(30);
        private Duration renewInterval;
        private Duration defaultWait = Duration.ofSeconds(10);
        private String clientName = "fenceguard";
        private double atRiskShare = 0.5;

        private Builder() {
        }

        public Builder leaseTime(Duration v) {
            leaseTime = v;
            return this;
        }

        /** Unset means a third of the lease time. */
        public Builder renewInterval(Duration v) {
            renewInterval = v;
            return this;
        }

        public Builder defaultWait(Duration v) {
            defaultWait = v;
            return this;
        }

        public Builder clientName(String v) {
            clientName = v;
            return this;
        }

        /** Between 0 and 1 (exclusive); see {@link LeaseConfig#atRiskShare()}. */
        public Builder atRiskShare(double v) {
            atRiskShare = v;
            return this;
        }

        public LeaseConfig build() {
            return new LeaseConfig(this);
        }
    }
}
