package io.fenceguard.spring.boot.autoconfigure.redis;

import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.TokenEpochSource;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.redis.*}: how leases use Redis. Defaults are those of {@link RedisLeaseConfig}. */
@ConfigurationProperties("fenceguard.redis")
public class FenceguardRedisProperties {

    /** Prefix of every Redis key and channel of the leases; no braces (the resource is the cluster hash tag). */
    private String keyPrefix = "fg:";
    /** How long a resource stays closed after its holder was lost rather than released. */
    private Duration lockDelay = Duration.ofSeconds(5);
    /** How long a resource's token counter outlives its last lease; never less than lease-time + lock-delay + 1s. */
    private Duration tokenIdleTtl = Duration.ofMinutes(10);
    /**
     * The most a lease call waits for Redis beyond its own wait (acquire: wait + this; release: this), whatever
     * the Redis client's timeouts and retries; 0 means a quarter of lease-time, at most 1s.
     */
    private Duration callTimeout = Duration.ZERO;
    /** Name of the retry and the circuit breaker, as resilience4j's registry and metrics show them. */
    private String name = "fenceguard-redis";
    /** Tries per Redis call on transient errors (connection lost, timeout, fail-over). */
    private int attempts = 3;
    /** First pause between tries of a Redis call; doubled with jitter. */
    private Duration backoff = Duration.ofMillis(50);
    /** First pause between tries on a busy resource while its release is awaited. */
    private Duration contentionBackoff = Duration.ofMillis(2);
    /** Longest pause between tries on a busy resource. */
    private Duration contentionBackoffMax = Duration.ofMillis(100);

    /**
     * What tokens rest on when Redis has lost a resource's counter: database (the default: a sequence in the
     * application's one DataSource, asked only when the counter is missing; no clock involved, so a stale write
     * stays refused after a FLUSHALL and a step back of the Redis server's clock) or clock (the Redis server's
     * clock as floor; assumes it never steps back by more than the time between two grants, also across a
     * failover). Without a DataSource, or on an in-memory database (H2, HSQLDB, Derby), which does not outlive the
     * application, the default falls back to clock and says so once at start-up; database set explicitly on one
     * fails start-up. Every client of one Redis (key prefix) must use the same source. An application
     * TokenEpochSource bean is used in either case.
     */
    private TokenEpoch tokenEpoch = TokenEpoch.DATABASE;
    private boolean tokenEpochSet;
    /** The database sequence of token epochs ([schema.]name), created on first use. */
    private String tokenEpochSequence = "fenceguard_token_epoch";
    /**
     * The identity of the token epoch source the lock store records, when this application's source is to replace
     * it for good (as named by the start-up error): the new source is first advanced past every epoch the store
     * installed, then the record is swapped; clients still on the old source are refused from then on.
     */
    private String tokenEpochSourceReplaces;

    /**
     * How many replicas must acknowledge a grant (WAIT after the acquire) before it is handed out, so that a failover
     * cannot forget a lock it granted. Unset: one where the master has replicas, none otherwise; 0: never wait (a
     * failover right after a grant may then grant the lock again), said once at start-up.
     */
    private Integer replicaAcknowledgements;
    /** How long a grant waits for its replicas' acknowledgements before it is released and refused. */
    private Duration replicaTimeout = Duration.ofMillis(500);

    private final CircuitBreaker circuitBreaker = new CircuitBreaker();

    /** What tokens rest on when Redis has lost a resource's counter. */
    public enum TokenEpoch {
        /** The Redis server's clock (TIME in µs) as floor; no other dependency. */
        CLOCK,
        /** A sequence in the application's own database. */
        DATABASE
    }

    /**
     * The Redis settings as the provider takes them.
     *
     * @throws IllegalArgumentException naming the property prefix when a value is out of range
     */
    public RedisLeaseConfig toRedisLeaseConfig() {
        return toRedisLeaseConfig(null);
    }

    /** With tokens on {@code epochs} ({@code null}: the clock floor). */
    public RedisLeaseConfig toRedisLeaseConfig(TokenEpochSource epochs) {
        try {
            RedisLeaseConfig.Builder builder = RedisLeaseConfig.builder().keyPrefix(keyPrefix).tokenEpochSource(epochs)
                    .tokenEpochSourceReplaces(tokenEpochSourceReplaces)
                    .callTimeout(callTimeout.isZero() ? null : callTimeout).lockDelay(lockDelay).tokenIdleTtl(tokenIdleTtl)
                    .name(name).attempts(attempts).backoff(backoff)
                    .contentionBackoff(contentionBackoff).contentionBackoffMax(contentionBackoffMax)
                    .failureRateThreshold(circuitBreaker.failureRateThreshold)
                    .slidingWindowSize(circuitBreaker.slidingWindowSize)
                    .openStateDuration(circuitBreaker.openStateDuration)
                    .replicaTimeout(replicaTimeout);
            if (replicaAcknowledgements != null) {
                builder.replicaAcknowledgements(replicaAcknowledgements, replicaTimeout);
            }
            return builder.build();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fenceguard.redis.* properties: " + e.getMessage(), e);
        }
    }

    /** {@code fenceguard.redis.circuit-breaker.*}: the breaker that makes a Redis outage fail fast. */
    public static class CircuitBreaker {
        /** Percentage of failed Redis calls among the recent ones that opens the breaker, in (0, 100]. */
        private float failureRateThreshold = 50;
        /** Number of recent Redis calls judged. */
        private int slidingWindowSize = 10;
        /** How long the breaker stays open (leases fail fast) before trial calls. */
        private Duration openStateDuration = Duration.ofSeconds(1);

        public float getFailureRateThreshold() {
            return failureRateThreshold;
        }

        public void setFailureRateThreshold(float failureRateThreshold) {
            this.failureRateThreshold = failureRateThreshold;
        }

        public int getSlidingWindowSize() {
            return slidingWindowSize;
        }

        public void setSlidingWindowSize(int slidingWindowSize) {
            this.slidingWindowSize = slidingWindowSize;
        }

        public Duration getOpenStateDuration() {
            return openStateDuration;
        }

        public void setOpenStateDuration(Duration openStateDuration) {
            this.openStateDuration = openStateDuration;
        }
    }

    public Integer getReplicaAcknowledgements() {
        return replicaAcknowledgements;
    }

    public void setReplicaAcknowledgements(Integer replicaAcknowledgements) {
        this.replicaAcknowledgements = replicaAcknowledgements;
    }

    public Duration getReplicaTimeout() {
        return replicaTimeout;
    }

    public void setReplicaTimeout(Duration replicaTimeout) {
        this.replicaTimeout = replicaTimeout;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getLockDelay() {
        return lockDelay;
    }

    public void setLockDelay(Duration lockDelay) {
        this.lockDelay = lockDelay;
    }

    public Duration getTokenIdleTtl() {
        return tokenIdleTtl;
    }

    public void setTokenIdleTtl(Duration tokenIdleTtl) {
        this.tokenIdleTtl = tokenIdleTtl;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public int getAttempts() {
        return attempts;
    }

    public void setAttempts(int attempts) {
        this.attempts = attempts;
    }

    public Duration getBackoff() {
        return backoff;
    }

    public void setBackoff(Duration backoff) {
        this.backoff = backoff;
    }

    public Duration getContentionBackoff() {
        return contentionBackoff;
    }

    public void setContentionBackoff(Duration contentionBackoff) {
        this.contentionBackoff = contentionBackoff;
    }

    public Duration getContentionBackoffMax() {
        return contentionBackoffMax;
    }

    public void setContentionBackoffMax(Duration contentionBackoffMax) {
        this.contentionBackoffMax = contentionBackoffMax;
    }

    public Duration getCallTimeout() {
        return callTimeout;
    }

    public void setCallTimeout(Duration callTimeout) {
        this.callTimeout = callTimeout;
    }

    public TokenEpoch getTokenEpoch() {
        return tokenEpoch;
    }

    public void setTokenEpoch(TokenEpoch tokenEpoch) {
        this.tokenEpochSet = true;
        this.tokenEpoch = tokenEpoch;
    }

    /** Whether {@code fenceguard.redis.token-epoch} was set, rather than left at its default. */
    public boolean isTokenEpochSet() {
        return tokenEpochSet;
    }

    public String getTokenEpochSequence() {
        return tokenEpochSequence;
    }

    public void setTokenEpochSequence(String tokenEpochSequence) {
        this.tokenEpochSequence = tokenEpochSequence;
    }

    public String getTokenEpochSourceReplaces() {
        return tokenEpochSourceReplaces;
    }

    public void setTokenEpochSourceReplaces(String tokenEpochSourceReplaces) {
        this.tokenEpochSourceReplaces = tokenEpochSourceReplaces;
    }

    public CircuitBreaker getCircuitBreaker() {
        return circuitBreaker;
    }
}
