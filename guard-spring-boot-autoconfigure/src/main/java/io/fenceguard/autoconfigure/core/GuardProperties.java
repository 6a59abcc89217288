package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code guard.*}: leases and fencing tokens. Defaults are those of {@link LeaseConfig}. */
@ConfigurationProperties("guard")
public class GuardProperties {

    /** Whether to create a LeaseManager. */
    private boolean enabled = true;
    /** How long a lease lives in Redis without renewal. */
    private Duration leaseTime = Duration.ofSeconds(30);
    /** How often the watchdog renews a held lease; empty means a third of the lease time. */
    private Duration renewInterval;
    /** How long a resource stays closed after its holder was lost without releasing. */
    private Duration lockDelay = Duration.ofSeconds(5);
    /** How long an idle resource's token sequence is kept in Redis (at least lease + lock-delay + 1 s). */
    private Duration tokenIdleTtl = Duration.ofMinutes(10);
    /** Wait for a busy resource where the caller gives none (for example @Fenced methods). */
    private Duration defaultWait = Duration.ofSeconds(10);
    /** Prefix of every Redis key and channel. */
    private String keyPrefix = "fg:";
    /** Start of this instance's holder identities. */
    private String clientName = "fenceguard";
    private final Redis redis = new Redis();
    private final Contention contention = new Contention();
    private final CircuitBreaker circuitBreaker = new CircuitBreaker();

    public LeaseConfig toLeaseConfig() {
        return LeaseConfig.builder()
                .leaseTime(leaseTime).renewInterval(renewInterval).lockDelay(lockDelay)
                .tokenIdleTtl(tokenIdleTtl).defaultWait(defaultWait)
                .keyPrefix(keyPrefix).clientName(clientName)
                .redisAttempts(redis.attempts).redisBackoff(redis.backoff)
                .contentionBackoff(contention.backoff).contentionBackoffMax(contention.backoffMax)
                .failureRateThreshold(circuitBreaker.failureRateThreshold)
                .slidingWindowSize(circuitBreaker.slidingWindowSize)
                .openStateDuration(circuitBreaker.openStateDuration)
                .build();
    }

    /** Retries of a Redis call on transient errors. */
    public static class Redis {
        /** Attempts per Redis call. */
        private int attempts = 3;
        /** First back-off between attempts; doubles with jitter. */
        private Duration backoff = Duration.ofMillis(50);

        public int getAttempts() { return attempts; }
        public void setAttempts(int attempts) { this.attempts = attempts; }
        public Duration getBackoff() { return backoff; }
        public void setBackoff(Duration backoff) { this.backoff = backoff; }
    }

    /** Back-off between attempts on a busy resource. */
    public static class Contention {
        /** First back-off after a busy attempt. */
        private Duration backoff = Duration.ofMillis(2);
        /** Largest back-off after a busy attempt. */
        private Duration backoffMax = Duration.ofMillis(100);

        public Duration getBackoff() { return backoff; }
        public void setBackoff(Duration backoff) { this.backoff = backoff; }
        public Duration getBackoffMax() { return backoffMax; }
        public void setBackoffMax(Duration backoffMax) { this.backoffMax = backoffMax; }
    }

    /** The breaker that makes a Redis outage fail fast. */
    public static class CircuitBreaker {
        /** Percentage of failed calls in the window that opens it. */
        private float failureRateThreshold = 50;
        /** Number of recent calls judged. */
        private int slidingWindowSize = 10;
        /** How long it stays open before a trial call. */
        private Duration openStateDuration = Duration.ofSeconds(10);

        public float getFailureRateThreshold() { return failureRateThreshold; }
        public void setFailureRateThreshold(float v) { this.failureRateThreshold = v; }
        public int getSlidingWindowSize() { return slidingWindowSize; }
        public void setSlidingWindowSize(int v) { this.slidingWindowSize = v; }
        public Duration getOpenStateDuration() { return openStateDuration; }
        public void setOpenStateDuration(Duration v) { this.openStateDuration = v; }
    }

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public Duration getLeaseTime() { return leaseTime; }
    public void setLeaseTime(Duration leaseTime) { this.leaseTime = leaseTime; }
    public Duration getRenewInterval() { return renewInterval; }
    public void setRenewInterval(Duration renewInterval) { this.renewInterval = renewInterval; }
    public Duration getLockDelay() { return lockDelay; }
    public void setLockDelay(Duration lockDelay) { this.lockDelay = lockDelay; }
    public Duration getTokenIdleTtl() { return tokenIdleTtl; }
    public void setTokenIdleTtl(Duration tokenIdleTtl) { this.tokenIdleTtl = tokenIdleTtl; }
    public Duration getDefaultWait() { return defaultWait; }
    public void setDefaultWait(Duration defaultWait) { this.defaultWait = defaultWait; }
    public String getKeyPrefix() { return keyPrefix; }
    public void setKeyPrefix(String keyPrefix) { this.keyPrefix = keyPrefix; }
    public String getClientName() { return clientName; }
    public void setClientName(String clientName) { this.clientName = clientName; }
    public Redis getRedis() { return redis; }
    public Contention getContention() { return contention; }
    public CircuitBreaker getCircuitBreaker() { return circuitBreaker; }
}
