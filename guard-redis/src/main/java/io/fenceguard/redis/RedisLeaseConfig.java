package io.fenceguard.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RedisLeaseProvider} uses Redis: key names, Chubby's lock-delay, how long a resource's
 * token counter outlives its last lease, what tokens rest on when the counter is lost (the Redis clock or
 * a durable epoch), and how Redis failures are retried and cut off.
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
    private final TokenEpochSource tokenEpochSource;
    private final String tokenEpochSourceReplaces;
    private final Duration callTimeout;
    private static final long MAX_DEFAULT_CALL_TIMEOUT_NANOS = 1_000_000_000L;
    private final boolean releaseInBackground;
    /** Replicas that acknowledge a grant; -1: as found at start-up (one where the master has replicas). */
    private final int replicaAcknowledgements;
    private final Duration replicaTimeout;

    /** How long a grant waits for a replica's acknowledgement when none was configured. */
    public static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofMillis(500);

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
        this.tokenEpochSource = b.tokenEpochSource;
        if (b.tokenEpochSourceReplaces != null && (b.tokenEpochSource == null || b.tokenEpochSourceReplaces.isBlank())) {
            throw new IllegalArgumentException(b.tokenEpochSource == null
                    ? "tokenEpochSourceReplaces needs a tokenEpochSource to move the lock store to"
                    : "tokenEpochSourceReplaces must name the recorded epoch source, got a blank value");
        }
        this.tokenEpochSourceReplaces = b.tokenEpochSourceReplaces;
        this.callTimeout = b.callTimeout == null ? null : positive(b.callTimeout, "callTimeout");
        this.releaseInBackground = b.releaseInBackground;
        this.replicaAcknowledgements = b.replicaAcknowledgements;
        this.replicaTimeout = positive(b.replicaTimeout, "replicaTimeout");
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

    /**
     * Where tokens get their floor when Redis has lost a resource's counter. {@code null} (the default):
     * the Redis server's clock ({@code TIME} in µs), no other dependency, resting on this assumption: <b>the
     * clock of the server that mints a token after a loss is not behind the clock that minted the last one
     * by more than the time that passed in between</b> (no step back by NTP or a restored VM snapshot, and
     * master and replicas in step across a failover). Set: epochs from a durable, linearizable source (the
     * application's database sequence, {@link JdbcTokenEpochSource}), asked only when the counter is
     * missing, so tokens rest on no clock at all. Every client of one store (key prefix) must use the same
     * source: the provider records its {@link TokenEpochSource#identity()} in Redis
     * ({@code <prefix>epoch-source}) and refuses to work with a store that records another one, or any one
     * when it runs on the clock floor.
     */
    public TokenEpochSource tokenEpochSource() {
        return tokenEpochSource;
    }

    /**
     * The identity of the epoch source this provider's {@link #tokenEpochSource()} replaces ({@code null}: none, the
     * default). When the store records exactly this identity, the provider moves the store to its own source: it
     * advances its source past the highest epoch the store records as installed
     * ({@link TokenEpochSource#advancePast(long)}), then replaces the record only if it still holds that identity and
     * that epoch. Clients still on the old source are refused from then on. Another recorded identity is refused as
     * without it.
     */
    public String tokenEpochSourceReplaces() {
        return tokenEpochSourceReplaces;
    }

    /**
     * The most a lease call waits for Redis beyond its own wait: an acquire returns within its wait plus
     * this, a release within this, whatever the Redis client's own timeouts and retries are (a renewal waits
     * at most the lease). {@code null} (the default): a quarter of the lease, at most 1 s; raise it on links
     * whose round trip is longer.
     */
    public Duration callTimeout() {
        return callTimeout;
    }

    /**
     * Whether a release returns as soon as it is sent, without waiting for Redis's answer (default
     * {@code false}). It saves the caller one round trip per lease; the trade: the caller no longer learns
     * whether the lock was still its own, and a release that fails (Redis down, a timeout) is only logged,
     * so the lock stays until its lease runs out (and the resource until the lock-delay after that), as
     * after a crash. Tokens and compare-and-delete are unchanged: the lock of another holder is never
     * touched, and no other holder can be granted the lock before the release has run.
     */
    public boolean releaseInBackground() {
        return releaseInBackground;
    }

    /**
     * How many replicas must acknowledge a grant before it is handed out ({@code WAIT n timeout} after the acquire,
     * on the same connection); a grant that fewer acknowledge within {@link #replicaTimeout()} is released and the
     * acquire fails ({@link UnacknowledgedGrantException}, saying so). So a failover to a replica that acknowledged
     * cannot forget a lock it granted and grant it again. {@code -1} (the default): one where the master has
     * replicas when the provider first asks ({@code INFO replication}, once), none otherwise; {@code 0}: never.
     * Used by {@link RedisLeaseProvider} and {@link RedisReadWriteLeaseProvider} on every client (Redisson, Jedis,
     * Spring Data Redis on Lettuce or Jedis); Spring Data Redis on a Redis Cluster cannot wait, so its default there is
     * none and a number is refused.
     */
    public int replicaAcknowledgements() {
        return replicaAcknowledgements;
    }

    /** How long a grant waits for its replicas' acknowledgements ({@link #replicaAcknowledgements()}). */
    public Duration replicaTimeout() {
        return replicaTimeout;
    }

    /** {@link #callTimeout()} for a lease of {@code leaseTime}. */
    public Duration callTimeout(Duration leaseTime) {
        if (callTimeout != null) {
            return callTimeout;
        }
        // In nanoseconds: Duration.dividedBy goes through BigDecimal, and this runs on every lease call.
        return Duration.ofNanos(Math.min(leaseTime.toNanos() / 4, MAX_DEFAULT_CALL_TIMEOUT_NANOS));
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
        private Duration openStateDuration = Duration.ofSeconds(1);
        private TokenEpochSource tokenEpochSource;
        private String tokenEpochSourceReplaces;
        private Duration callTimeout;
        private boolean releaseInBackground;
        private int replicaAcknowledgements = -1;
        private Duration replicaTimeout = DEFAULT_REPLICA_TIMEOUT;

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
        /** Tokens on a durable epoch instead of the Redis clock; {@code null} for the clock floor. */
        public Builder tokenEpochSource(TokenEpochSource v) { tokenEpochSource = v; return this; }
        /** See {@link RedisLeaseConfig#tokenEpochSourceReplaces()}; {@code null} for none. */
        public Builder tokenEpochSourceReplaces(String v) { tokenEpochSourceReplaces = v; return this; }
        /** {@code null}: a quarter of the lease, at most 1 s. */
        public Builder callTimeout(Duration v) { callTimeout = v; return this; }
        /** See {@link RedisLeaseConfig#releaseInBackground()}. */
        public Builder releaseInBackground(boolean v) { releaseInBackground = v; return this; }

        /**
         * Grants handed out only once {@code replicas} replicas acknowledged them, waiting at most {@code timeout}
         * ({@code 0}: never wait); see {@link RedisLeaseConfig#replicaAcknowledgements()}.
         */
        public Builder replicaAcknowledgements(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas must not be negative, got " + replicas);
            }
            replicaAcknowledgements = replicas;
            replicaTimeout = positive(timeout, "timeout");
            return this;
        }

        /**
         * How long a grant waits for its replicas' acknowledgements, keeping the number of replicas as it is (by
         * default: one where the master has replicas).
         */
        public Builder replicaTimeout(Duration timeout) {
            replicaTimeout = positive(timeout, "timeout");
            return this;
        }

        public RedisLeaseConfig build() {
            return new RedisLeaseConfig(this);
        }
    }
}
