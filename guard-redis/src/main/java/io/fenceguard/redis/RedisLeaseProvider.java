package io.fenceguard.redis;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import io.fenceguard.core.spi.Renewal;
import io.fenceguard.redis.internal.ContentionRetry;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.internal.RedisCalls;
import io.fenceguard.redis.internal.RedisLeaseScripts;
import io.fenceguard.redis.internal.RedisReleaseRequests;
import io.fenceguard.redis.internal.ScriptCache;
import io.fenceguard.redis.internal.ReleaseWaiter;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases on Redis through a client that the application owns (never created or closed here), seen through
 * {@link RedisScriptClient}. One Lua script per grant checks, locks and mints the token: {@code max(last + 1, Redis TIME in
 * µs)} by default, or a counter on a durable epoch ({@link RedisLeaseConfig#tokenEpochSource()}); waiters
 * sleep on a pub/sub channel, one woken per release; a lost holder's resource stays closed for the
 * lock-delay. Every reply carries the server's time: a forward jump of the Redis clock loses the lease at
 * once ({@link LeaseLossReason#CLOCK_JUMP}), a backward jump is logged and counted. The store records which
 * epoch source its tokens rest on; a provider on another one (or on the clock floor next to one) is refused at
 * construction, or at its first acquire when Redis could not be reached then.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson)));
 * }</pre>
 */
public final class RedisLeaseProvider extends AbstractLeaseProvider {

    private static final Logger log = LoggerFactory.getLogger(RedisLeaseProvider.class);
    /** The clock floor's assumption is told once per process, not once per provider. */
    private static final AtomicBoolean CLOCK_FLOOR_TOLD = new AtomicBoolean();

    private final RedisLeaseConfig config;
    private final RedisScriptClient client;
    private final RedisLeaseScripts scripts;
    private final RedisCalls calls;
    private final ReleaseWaiter waiter;
    private final RedisReleaseRequests releaseRequests;
    private final ContentionRetry contention;
    private final ReplicaAcknowledgements replicas;
    private final ClockJumpHold clockJumpHold;
    private final DurableEpochs epochs;
    private final ServerClockWatches clocks;
    private final GiveUpMarks giveUps;

    private RedisLeaseProvider(RedisScriptClient client, RedisLeaseConfig config, CircuitBreaker breaker) {
        this.config = Objects.requireNonNull(config, "config");
        this.client = client;
        this.scripts = new RedisLeaseScripts(client);
        this.calls = RedisCalls.of(client, config, breaker);
        this.waiter = new ReleaseWaiter(client);
        this.releaseRequests = new RedisReleaseRequests(client, config.keyPrefix(), calls,
                config.callTimeout() != null ? config.callTimeout() : Duration.ofSeconds(2));
        this.contention = new ContentionRetry(config);
        this.replicas = new ReplicaAcknowledgements(config, client, calls);
        this.clockJumpHold = new ClockJumpHold(config.lockDelay(), this::renew, this::releaseQuietly);
        this.clocks = new ServerClockWatches(reading -> {
            // A Cluster's nodes keep clocks of their own: only a single server's clock holds grants back.
            if (!client.cluster()) {
                clockJumpHold.observe(reading);
            }
        });
        this.giveUps = new GiveUpMarks(config, scripts);
        loadScripts(client, RedisLeaseScripts.atStart(), config);
        this.epochs = new DurableEpochs(client, config);
        if (config.tokenEpochSource() == null && CLOCK_FLOOR_TOLD.compareAndSet(false, true)) {
            log.warn("fenceguard: Redis lease tokens rest on the Redis server's clock after a loss of their counter "
                    + "(FLUSHALL, a restart without persistence, a failover): a step back of that clock then lets a "
                    + "stale holder's writes through; set fenceguard.redis.token-epoch=database (Spring Boot) or "
                    + "RedisLeaseConfig.tokenEpochSource(JdbcTokenEpochSource.of(dataSource)) for tokens on a durable epoch "
                    + "from a database that outlives the application");
        }
        epochs.checkAtStart();
    }

    /**
     * A grant that fewer replicas acknowledged than required is given back and refused: a failover to a replica
     * without it would grant the lock again.
     */
    private void requireAcknowledged(LeaseRequest request, LeaseKeys keys, RedisLeaseScripts.AcquireReply reply,
                                     int required, long giveUpAt) {
        if (reply.status() != RedisLeaseScripts.ACQUIRED || ReplicaAcknowledgements.enough(reply.acknowledged(), required)) {
            return;
        }
        try {
            long until = Math.max(giveUpAt, System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos());
            calls.call(request.resource(), "release", until, () -> scripts.release(keys, request.holder(), until), null);
        } catch (RuntimeException e) {
            log.warn("could not give back the lock on '{}' that no replica acknowledged; it expires with its lease",
                    request.resource(), e);
        }
        throw replicas.refusal(request.resource(), reply.acknowledged(), required);
    }

    /**
     * A provider's scripts in the server's cache before their first use, with the replica count its first grant may
     * ask for ({@link ReplicaAcknowledgements}), waited for at most one call timeout: a first renewal or give-up
     * mark then costs one round trip. A server that cannot be reached now gets them at their first use instead.
     */
    static void loadScripts(RedisScriptClient client, List<String> scripts, RedisLeaseConfig config) {
        List<String> all = new java.util.ArrayList<>(scripts);
        all.add(RedisLeaseScripts.CONNECTED_REPLICAS);
        ScriptCache.load(client, all, config.callTimeout() != null ? config.callTimeout() : Duration.ofSeconds(1),
                "lease");
    }

    public static RedisLeaseProvider of(RedisScriptClient client) {
        return of(client, RedisLeaseConfig.defaults());
    }

    /**
     * Leases through {@code client}: {@link io.fenceguard.redis.redisson.RedissonScriptClient},
     * {@link io.fenceguard.redis.jedis.JedisScriptClient} or
     * {@link io.fenceguard.redis.springdata.SpringDataRedisScriptClient}, each on a client the application owns.
     * {@link #close()} stops what the provider started; the application's client stays open.
     */
    public static RedisLeaseProvider of(RedisScriptClient client, RedisLeaseConfig config) {
        return new RedisLeaseProvider(Objects.requireNonNull(client, "client"), config, null);
    }

    /** With a circuit breaker from the application's registry, so that it shows in its metrics. */
    public static RedisLeaseProvider of(RedisScriptClient client, RedisLeaseConfig config, CircuitBreaker breaker) {
        return new RedisLeaseProvider(Objects.requireNonNull(client, "client"), config,
                Objects.requireNonNull(breaker, "breaker"));
    }

    /** The breaker settings this provider uses when it builds its own, for registering one elsewhere. */
    public static CircuitBreakerConfig breakerConfig(RedisLeaseConfig config, RedisScriptClient client) {
        return RedisCalls.breakerConfig(config, client);
    }

    public RedisLeaseConfig config() {
        return config;
    }

    public CircuitBreaker circuitBreaker() {
        return calls.breaker();
    }

    /** Forward jumps of the Redis clock seen by renewals; each cost the lease it was seen on. */
    public long forwardClockJumps() {
        return clocks.forwardJumps();
    }

    /** Backward jumps of the Redis clock seen by renewals (the lease is kept; Redis keeps it longer). */
    public long backwardClockJumps() {
        return clocks.backwardJumps();
    }

    /** Epochs taken from the durable source (0 with the clock floor): one per counter Redis lost. */
    public long epochsTaken() {
        return epochs.taken();
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        ResourceName resource = request.resource();
        epochs.checkAtAcquire(resource, deadline + config.callTimeout(request.leaseTime()).toNanos());
        LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), resource);
        long callTimeout = config.callTimeout(request.leaseTime()).toNanos();
        // One budget for everything below: the wait, plus one call's time for the answer to the last try.
        long giveUpAt = deadline + callTimeout;
        ContentionRetry.Attempt attempt = attempt(request, keys, giveUpAt);
        if (!attempt.acquired() && !wait.isZero()) {
            try (ReleaseWaiter.Subscription releases = waiter.subscribe(resource, keys,
                    Math.min(callTimeout, Math.max(0, deadline - System.nanoTime())))) {
                attempt = contention.await(resource, deadline, releases, () -> attempt(request, keys, giveUpAt));
            }
        }
        if (!attempt.acquired()) {
            throw new LeaseTimeoutException(resource, wait, attempt.describe());
        }
        clocks.track(request, attempt.reading());
        Grant grant = new Grant(FencingToken.of(attempt.value()), attempt.sentAtNanos());
        return clockJumpHold.handOut(request, wait, grant, deadline);
    }

    private void releaseQuietly(LeaseRequest request, Grant grant) {
        try {
            release(request, grant);
        } catch (RuntimeException e) {
            log.debug("could not give back the lease on '{}'; it expires with its lease: {}", request.resource(), e.toString());
        }
    }

    private ContentionRetry.Attempt attempt(LeaseRequest request, LeaseKeys keys, long giveUpAt) {
        long leaseMs = request.leaseTime().toMillis();
        long delayMs = config.lockDelay().toMillis();
        long ttlMs = sequenceTtlMs(leaseMs);
        // An answer that comes after this acquire gave up may still have granted the lock: give it back.
        BiConsumer<RedisLeaseScripts.AcquireReply, Throwable> late = (reply, error) -> {
            if (reply == null || reply.status() == RedisLeaseScripts.ACQUIRED) {
                releaseLate(request, keys);
            }
        };
        int acknowledgements = replicas.required(request.resource(), keys.lock(), giveUpAt);
        Duration replicaTimeout = config.replicaTimeout();
        if (config.tokenEpochSource() == null) {
            long sentAt = System.nanoTime();
            RedisLeaseScripts.AcquireReply reply = calls.call(request.resource(), "acquire", giveUpAt,
                    () -> scripts.acquire(keys, request.holder(), leaseMs, delayMs, ttlMs, acknowledgements,
                            replicaTimeout, giveUpAt), late);
            requireAcknowledged(request, keys, reply, acknowledgements, giveUpAt);
            return new ContentionRetry.Attempt(reply.status(), reply.value(),
                    clocks.reading(reply.serverMicros(), sentAt));
        }
        long[] sentAt = new long[1];
        DurableEpochs.Outcome outcome = epochs.acquire(request, giveUpAt, (epoch, claim, freshClaim, until) -> {
            sentAt[0] = System.nanoTime();
            RedisLeaseScripts.AcquireReply reply = calls.call(request.resource(), "acquire", until,
                    () -> scripts.acquireWithEpoch(keys, request.holder(), leaseMs, delayMs, ttlMs, epoch, claim,
                            freshClaim, acknowledgements, replicaTimeout, until), late);
            requireAcknowledged(request, keys, reply, acknowledgements, until);
            return reply;
        });
        return new ContentionRetry.Attempt(outcome.reply().status(), outcome.value(),
                clocks.reading(outcome.reply().serverMicros(), sentAt[0]));
    }

    private void releaseLate(LeaseRequest request, LeaseKeys keys) {
        clocks.forget(request);
        giveUps.mark(request, keys);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        long leaseMs = request.leaseTime().toMillis();
        long sentAt = System.nanoTime();
        // An answer later than the lease is worth nothing: stop waiting then, so a renewal sent to a Redis that
        // froze leaves its place to the next one (the watchdog keeps a few in flight and tries again).
        return scripts.renew(LeaseKeys.of(config.keyPrefix(), request.resource()), config.tokenEpochSource() != null,
                request.holder(), leaseMs, config.lockDelay().toMillis(), sequenceTtlMs(leaseMs),
                        request.leaseTime().toNanos())
                .toCompletableFuture()
                .thenApply(reply -> clocks.check(request, reply.serverMicros(), sentAt) && reply.ours());
    }

    /**
     * All renewals of one watchdog beat in as few calls as the topology allows (one script per node, per
     * slot on a Cluster); each lease's own answer and the server time of its call decide its fate, as in
     * {@link #renew}.
     */
    @Override
    public List<CompletionStage<Boolean>> renewAll(List<Renewal> renewals) {
        if (renewals.size() == 1) {
            return List.of(renew(renewals.get(0).request(), renewals.get(0).grant()));
        }
        List<RedisLeaseScripts.RenewItem> items = new ArrayList<>(renewals.size());
        for (Renewal r : renewals) {
            long leaseMs = r.request().leaseTime().toMillis();
            items.add(new RedisLeaseScripts.RenewItem(LeaseKeys.of(config.keyPrefix(), r.request().resource()),
                    r.request().holder(), leaseMs, sequenceTtlMs(leaseMs)));
        }
        long sentAt = System.nanoTime();
        long timeout = renewals.stream().mapToLong(r -> r.request().leaseTime().toNanos()).max().orElseThrow();
        List<CompletionStage<RedisLeaseScripts.RenewReply>> replies = scripts.renewAll(items,
                config.tokenEpochSource() != null, config.lockDelay().toMillis(), timeout);
        List<CompletionStage<Boolean>> answers = new ArrayList<>(renewals.size());
        for (int i = 0; i < renewals.size(); i++) {
            LeaseRequest request = renewals.get(i).request();
            answers.add(replies.get(i).toCompletableFuture()
                    .orTimeout(request.leaseTime().toNanos(), TimeUnit.NANOSECONDS)
                    .thenApply(reply -> clocks.check(request, reply.serverMicros(), sentAt) && reply.ours()));
        }
        return answers;
    }

    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        return clocks.watch(request, lost);
    }

    /** Release requests go through Redis pub/sub: they reach the holders in every process on this Redis. */
    @Override
    public Optional<ReleaseRequestChannel> releaseRequests() {
        return Optional.of(releaseRequests);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        clocks.forget(request);
        LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), request.resource());
        if (config.releaseInBackground()) {
            releaseInBackground(request, keys);
            return true;
        }
        long giveUpAt = System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos();
        return calls.call(request.resource(), "release", giveUpAt, () -> scripts.release(keys, request.holder(), giveUpAt),
                null);
    }

    /** Sends the release and returns; only a failure is heard of, in the log: the lock then expires with its lease. */
    private void releaseInBackground(LeaseRequest request, LeaseKeys keys) {
        try {
            scripts.releaseAsync(keys, request.holder(), config.callTimeout(request.leaseTime()).toNanos()).whenComplete((released, error) -> {
                if (error != null) {
                    log.warn("could not release the lock on '{}' of holder {}; it expires with its lease: {}",
                            request.resource(), request.holder(), error.toString());
                } else if (!Boolean.TRUE.equals(released)) {
                    log.debug("the lock on '{}' was no longer held by {} at release", request.resource(), request.holder());
                }
            });
        } catch (RuntimeException e) {
            log.warn("could not send the release of the lock on '{}' of holder {}; it expires with its lease: {}",
                    request.resource(), request.holder(), e.toString());
        }
    }

    /** The counter must outlive a held lock and its lock-delay, so that a busy resource never loses it. */
    private long sequenceTtlMs(long leaseMs) {
        return Math.max(config.tokenIdleTtl().toMillis(), leaseMs + config.lockDelay().toMillis() + 1000);
    }

    /**
     * Stops the provider's threads and, with Jedis, gives the pool back the connection that release wake-ups keep
     * subscribed; the Redis client or pool stays the application's. Leases still held expire with their lease.
     */
    @Override
    public void close() {
        giveUps.close();
        client.close();
    }

    @Override
    public String describe() {
        return "redis via " + client.name() + " (key prefix " + config.keyPrefix() + ", tokens on "
                + (config.tokenEpochSource() != null ? "a durable epoch" : "the Redis clock floor") + ")";
    }
}
