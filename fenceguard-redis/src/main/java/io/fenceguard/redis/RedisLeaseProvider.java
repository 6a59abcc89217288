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
import io.fenceguard.redis.internal.EpochSourceRecord;
import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.internal.RedisCalls;
import io.fenceguard.redis.internal.RedisLeaseScripts;
import io.fenceguard.redis.internal.RedisReleaseRequests;
import io.fenceguard.redis.internal.ReleaseWaiter;
import io.fenceguard.redis.internal.ServerClockWatch;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
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
    /** Tries of the loss path of a durable-epoch grant before giving up: claim, epoch, install. */
    private static final int EPOCH_ROUNDS = 4;
    /** Between tries to mark an acquire that gave up without an answer. */
    private static final Duration GIVE_UP_PAUSE = Duration.ofMillis(200);
    private static final AtomicLong GIVE_UP_THREADS = new AtomicLong();
    /** The clock floor's assumption is told once per process, not once per provider. */
    private static final java.util.concurrent.atomic.AtomicBoolean CLOCK_FLOOR_TOLD = new java.util.concurrent.atomic.AtomicBoolean();

    private final RedisLeaseConfig config;
    private final RedisScriptClient client;
    private final RedisLeaseScripts scripts;
    private final RedisCalls calls;
    private final ReleaseWaiter waiter;
    private final RedisReleaseRequests releaseRequests;
    private final ContentionRetry contention;
    /** The server's clock as every reply of this provider reports it (not on a Cluster). */
    private final ServerClockWatch serverClock = new ServerClockWatch(null);
    private final java.util.concurrent.atomic.AtomicReference<Jump> lastJump = new java.util.concurrent.atomic.AtomicReference<>();
    /** Each held lease's last view of the server clock, by holder. */
    private final Map<String, ServerClockWatch> clocks = new ConcurrentHashMap<>();
    private final AtomicLong pruneClocksAt = new AtomicLong(4096);
    private final AtomicLong forwardJumps = new AtomicLong();
    private final AtomicLong backwardJumps = new AtomicLong();
    private final AtomicLong epochsTaken = new AtomicLong();
    private final EpochSourceRecord epochSourceRecord;
    /** Whether the store's recorded epoch source was found to be this provider's (checked again on each epoch taken). */
    private volatile boolean epochSourceChecked;
    private final ScheduledExecutorService giveUpRetries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fenceguard-redis-give-up-" + GIVE_UP_THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private RedisLeaseProvider(RedisScriptClient client, RedisLeaseConfig config, CircuitBreaker breaker) {
        this.config = Objects.requireNonNull(config, "config");
        this.client = client;
        this.scripts = new RedisLeaseScripts(client);
        this.calls = RedisCalls.of(client, config, breaker);
        this.waiter = new ReleaseWaiter(client);
        this.releaseRequests = new RedisReleaseRequests(client, config.keyPrefix(), calls,
                config.callTimeout() != null ? config.callTimeout() : Duration.ofSeconds(2));
        this.contention = new ContentionRetry(config);
        if (config.replicaAcknowledgements() > 0 && !client.waitsForReplicas()) {
            throw new IllegalArgumentException("replicaAcknowledgements(" + config.replicaAcknowledgements()
                    + ", …) needs a client that can wait for replicas (Redisson, Jedis); " + client.name() + " cannot");
        }
        this.replicas = config.replicaAcknowledgements() >= 0 ? config.replicaAcknowledgements()
                : client.waitsForReplicas() ? -1 : 0;
        loadScripts(client, RedisLeaseScripts.all(), config);
        this.epochSourceRecord = new EpochSourceRecord(client, config.keyPrefix());
        if (config.tokenEpochSource() == null && CLOCK_FLOOR_TOLD.compareAndSet(false, true)) {
            log.warn("fenceguard: Redis lease tokens rest on the Redis server's clock after a loss of their counter "
                    + "(FLUSHALL, a restart without persistence, a failover): a step back of that clock then lets a "
                    + "stale holder's writes through; set fenceguard.redis.token-epoch=database (Spring Boot) or "
                    + "RedisLeaseConfig.tokenEpochSource(JdbcTokenEpochSource.of(dataSource)) for tokens on a durable epoch");
        }
        checkEpochSourceAtStart();
    }

    /**
     * Compares the store's recorded epoch source with this provider's now, so that a client on another source fails
     * at start-up; a store or source that cannot be reached now is checked at the first acquire instead.
     */
    private void checkEpochSourceAtStart() {
        Duration timeout = config.callTimeout() != null ? config.callTimeout() : Duration.ofSeconds(1);
        try {
            checkEpochSource(System.nanoTime() + timeout.toNanos());
        } catch (MismatchedEpochSource e) {
            throw e;
        } catch (RuntimeException e) {
            log.info("fenceguard: could not compare the lock store's token epoch source with this provider's now ({}); "
                    + "compared at the first acquire", e.toString());
        }
    }

    /**
     * Records this provider's epoch source in Redis when none is recorded, and refuses a store that records another
     * one, or any one when this provider mints tokens on the clock floor.
     *
     * @throws MismatchedEpochSource naming both sources
     * @throws RuntimeException      when Redis or the source cannot be reached
     */
    private void checkEpochSource(long deadlineNanos) {
        TokenEpochSource source = config.tokenEpochSource();
        String own = source == null ? null : source.identity();
        if (source != null && own == null) {
            epochSourceChecked = true; // a source that cannot name itself is not checked
            return;
        }
        String recorded;
        try {
            recorded = epochSourceRecord.record(own, deadlineNanos).toCompletableFuture()
                    .get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + epochSourceRecord.key(), e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot read " + epochSourceRecord.key() + " in Redis: " + e, e);
        }
        if (source == null && recorded != null) {
            throw new MismatchedEpochSource("Redis (key prefix " + config.keyPrefix() + ") records that its token epochs "
                    + "come from " + recorded + ", but this client mints tokens on the Redis clock floor, which can fall "
                    + "below those epochs' tokens after a loss: give it the same TokenEpochSource "
                    + "(fenceguard.redis.token-epoch=database on the same database) or a key prefix of its own");
        }
        if (source != null && !own.equals(recorded)) {
            throw new MismatchedEpochSource("Redis (key prefix " + config.keyPrefix() + ") records that its token epochs "
                    + "come from " + recorded + ", but this client's TokenEpochSource is " + own + ": every client of "
                    + "one lock store must take its epochs from the same source (or use a key prefix of its own)");
        }
        epochSourceChecked = true;
    }

    /** A client whose token source differs from the one the lock store records: a configuration error, not retried. */
    private static final class MismatchedEpochSource extends IllegalStateException {
        MismatchedEpochSource(String message) {
            super(message);
        }
    }

    /** Replicas that acknowledge each grant; -1 until the master was asked how many it has (at the first acquire). */
    private volatile int replicas;

    /** {@link RedisLeaseConfig#replicaAcknowledgements()}, asking the master once when it is left to the provider. */
    private int replicasToWaitFor(ResourceName resource, LeaseKeys keys, long giveUpAt) {
        int known = replicas;
        if (known >= 0) {
            return known;
        }
        int connected = calls.call(resource, "count the replicas for", giveUpAt,
                () -> client.connectedReplicas(keys.lock(), giveUpAt), null);
        known = connected > 0 ? 1 : 0;
        if (known > 0) {
            log.info("fenceguard: the Redis master has {} replica(s); each grant waits for one to acknowledge it "
                    + "(at most {} ms)", connected, config.replicaTimeout().toMillis());
        }
        replicas = known;
        return known;
    }

    /**
     * A grant that fewer replicas acknowledged than required is given back: a failover to a replica without it would
     * grant the lock again.
     */
    private void requireAcknowledged(LeaseRequest request, LeaseKeys keys, RedisLeaseScripts.AcquireReply reply,
                                     int required, long giveUpAt) {
        if (required <= 0 || reply.status() != RedisLeaseScripts.ACQUIRED || reply.acknowledged() >= required) {
            return;
        }
        try {
            long until = Math.max(giveUpAt, System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos());
            calls.call(request.resource(), "release", until, () -> scripts.release(keys, request.holder(), until), null);
        } catch (RuntimeException e) {
            log.warn("could not give back the lock on '{}' that no replica acknowledged; it expires with its lease",
                    request.resource(), e);
        }
        throw new LeaseUnavailableException("cannot acquire '" + request.resource() + "': " + reply.acknowledged()
                + " of " + required + " replica(s) acknowledged the grant within " + config.replicaTimeout().toMillis()
                + " ms; it was given back, since a failover could grant it again", request.resource(), null);
    }

    /**
     * The scripts in the server's cache before their first use, waited for at most one call timeout: a first
     * renewal or give-up mark then costs one round trip. A server that cannot be reached now gets them at their
     * first use instead.
     */
    static void loadScripts(RedisScriptClient client, List<String> scripts, RedisLeaseConfig config) {
        Duration timeout = config.callTimeout() != null ? config.callTimeout() : Duration.ofSeconds(1);
        try {
            client.load(scripts).toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.info("fenceguard: could not load the lease scripts into Redis now ({}); each is sent at its first use",
                    e.toString());
        }
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
        return forwardJumps.get();
    }

    /** Backward jumps of the Redis clock seen by renewals (the lease is kept; Redis keeps it longer). */
    public long backwardClockJumps() {
        return backwardJumps.get();
    }

    /** Epochs taken from the durable source (0 with the clock floor): one per counter Redis lost. */
    public long epochsTaken() {
        return epochsTaken.get();
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        ResourceName resource = request.resource();
        if (!epochSourceChecked) {
            try {
                checkEpochSource(deadline + config.callTimeout(request.leaseTime()).toNanos());
            } catch (MismatchedEpochSource e) {
                throw e;
            } catch (RuntimeException e) {
                throw new LeaseUnavailableException("cannot acquire '" + resource + "': could not compare the lock "
                        + "store's token epoch source with this client's: " + e.getMessage(), resource, e);
            }
        }
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
        track(request, attempt.reading());
        Grant grant = new Grant(FencingToken.of(attempt.value()), attempt.sentAtNanos());
        Jump jump = lastJump.get();
        if (jump != null) {
            // A holder whose lock the jump cut short believes in its lease until at most the jump after Redis let the
            // lock go, which was before this grant (not before the jump was seen: a refused acquire may have seen it
            // long before the lock ran out); and no later than a lease and its lock-delay after the jump, since a
            // renewal after the jump would have told it of the jump.
            long now = System.nanoTime();
            long holdUntil = Math.min(
                    jump.seenAtNanos() + request.leaseTime().toNanos() + config.lockDelay().toNanos(),
                    now + jump.excessNanos());
            if (holdUntil - now > 0) {
                return holdAfterJump(request, wait, grant, holdUntil, deadline, jump);
            }
        }
        return grant;
    }

    /**
     * A forward jump of the server's clock, seen by this provider, expired locks in Redis early: a holder that Redis
     * dropped may still believe it holds its lease until its own deadline, up to the jump later. The new grant is
     * kept (renewed, so that nobody else gets it) but handed out only once that time has passed; when that is past
     * the caller's wait, it is given back and the acquire fails, saying why.
     */
    private Grant holdAfterJump(LeaseRequest request, Duration wait, Grant grant, long holdUntil, long deadline, Jump jump) {
        ResourceName resource = request.resource();
        String why = "the Redis server's clock jumped forward by " + jump.excessNanos() / 1_000_000 + " ms more than "
                + "passed here, so Redis may have expired an earlier holder's lock while that holder still holds it";
        if (holdUntil - deadline > 0) {
            releaseQuietly(request, grant);
            throw new LeaseTimeoutException(resource, wait, why + "; the resource stays closed for "
                    + (holdUntil - System.nanoTime()) / 1_000_000 + " ms more");
        }
        log.warn("{}: the lease on '{}' is handed out in {} ms", why, resource, (holdUntil - System.nanoTime()) / 1_000_000);
        long aliveFrom = grant.sentAtNanos();
        long step = Math.max(1, request.leaseTime().toNanos() / 3);
        try {
            for (long left = holdUntil - System.nanoTime(); left > 0; left = holdUntil - System.nanoTime()) {
                pause(resource, Math.min(left, step));
                long sent = System.nanoTime();
                Boolean ours = renew(request, grant).toCompletableFuture()
                        .get(request.leaseTime().toNanos(), TimeUnit.NANOSECONDS);
                if (!Boolean.TRUE.equals(ours)) {
                    throw new LeaseUnavailableException("lost the lease on '" + resource + "' while waiting out a "
                            + "forward jump of the Redis server's clock", resource, null);
                }
                aliveFrom = sent;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releaseQuietly(request, grant);
            throw new io.fenceguard.core.FenceguardException("interrupted while waiting for a lease on '" + resource
                    + "'", resource, null, e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            releaseQuietly(request, grant);
            throw new LeaseUnavailableException("could not renew the lease on '" + resource + "' while waiting out a "
                    + "forward jump of the Redis server's clock: " + e, resource, e);
        } catch (RuntimeException e) {
            releaseQuietly(request, grant);
            throw e;
        }
        return new Grant(grant.token(), aliveFrom);
    }

    private void releaseQuietly(LeaseRequest request, Grant grant) {
        try {
            release(request, grant);
        } catch (RuntimeException e) {
            log.debug("could not give back the lease on '{}'; it expires with its lease: {}", request.resource(), e.toString());
        }
    }

    /** What a reply of any lease call tells of the server's clock: a forward jump holds the grants that follow. */
    private void observeServer(ServerClockWatch.Reading reading) {
        if (client.cluster()) {
            return; // the nodes of a Cluster keep clocks of their own
        }
        ServerClockWatch.Step step = serverClock.observe(reading);
        if (step.forward()) {
            lastJump.set(new Jump(System.nanoTime(), step.excessNanos()));
        }
    }

    /** A forward jump of the server's clock: when it was seen here and how far it went beyond what passed here. */
    private record Jump(long seenAtNanos, long excessNanos) {
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
        int acknowledgements = replicasToWaitFor(request.resource(), keys, giveUpAt);
        Duration replicaTimeout = config.replicaTimeout();
        if (config.tokenEpochSource() == null) {
            long sentAt = System.nanoTime();
            long until = giveUpAt;
            RedisLeaseScripts.AcquireReply reply = calls.call(request.resource(), "acquire", giveUpAt,
                    () -> scripts.acquire(keys, request.holder(), leaseMs, delayMs, ttlMs, acknowledgements,
                            replicaTimeout, until), late);
            requireAcknowledged(request, keys, reply, acknowledgements, giveUpAt);
            return new ContentionRetry.Attempt(reply.status(), reply.value(), reading(reply, sentAt));
        }
        long epoch = 0;
        long claim = 0;
        for (int round = 1; ; round++) {
            long e = epoch;
            long c = claim;
            long sentAt = System.nanoTime();
            long until = giveUpAt;
            RedisLeaseScripts.AcquireReply reply = calls.call(request.resource(), "acquire", giveUpAt,
                    () -> scripts.acquireWithEpoch(keys, request.holder(), leaseMs, delayMs, ttlMs, e, c, freshClaim(),
                            acknowledgements, replicaTimeout, until), late);
            requireAcknowledged(request, keys, reply, acknowledgements, giveUpAt);
            if (reply.status() != RedisLeaseScripts.NEED_EPOCH) {
                long value = reply.status() == RedisLeaseScripts.ACQUIRED
                        ? EpochTokens.token(reply.value(), reply.extra()) : reply.value();
                return new ContentionRetry.Attempt(reply.status(), value, reading(reply, sentAt));
            }
            if (round == EPOCH_ROUNDS) {
                throw new LeaseUnavailableException("cannot acquire '" + request.resource() + "': Redis lost its token "
                        + "counter again before a new epoch could be installed, " + EPOCH_ROUNDS + " times",
                        request.resource(), null);
            }
            // The epoch is taken only now, after Redis recorded the claim: it is above every epoch in use before.
            claim = reply.value();
            epoch = nextEpoch(request.resource(), System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos());
            // The epoch source has its own time (a database round trip): the install that follows gets one call's
            // time of its own, so a slow epoch source never turns into a Redis timeout.
            giveUpAt = Math.max(giveUpAt, System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos());
        }
    }

    private void releaseLate(LeaseRequest request, LeaseKeys keys) {
        clocks.remove(request.holder());
        // The marker outlives any run of the request that Redis may still have queued: the lease plus a call.
        long callNanos = config.callTimeout(request.leaseTime()).toNanos();
        long markerMs = request.leaseTime().toMillis() + TimeUnit.NANOSECONDS.toMillis(callNanos);
        // Redis may be frozen or gone right now: the marker is tried again until it is set or the lease is over
        // (a lock granted late expires with it then).
        int tries = (int) Math.max(1, request.leaseTime().toMillis() / GIVE_UP_PAUSE.toMillis());
        Retry retry = Retry.of(config.name() + "-give-up", RetryConfig.<Boolean>custom()
                .maxAttempts(tries).waitDuration(GIVE_UP_PAUSE).retryOnException(e -> true).build());
        retry.executeCompletionStage(giveUpRetries, () -> scripts.giveUp(keys, request.holder(), markerMs, callNanos))
                .whenComplete((released, error) -> {
                    if (Boolean.TRUE.equals(released)) {
                        log.info("released the lock on '{}' that a late answer granted to holder {} after its acquire "
                                + "gave up", request.resource(), request.holder());
                    } else if (error != null) {
                        log.warn("could not release the lock on '{}' that a late answer may have granted to holder {}; "
                                + "it expires with its lease: {}", request.resource(), request.holder(), error.toString());
                    }
                });
    }

    private long nextEpoch(ResourceName resource, long deadlineNanos) {
        long epoch;
        try {
            // The loss that calls for an epoch may have taken the record too: recorded again, or compared, first.
            checkEpochSource(deadlineNanos);
            epoch = config.tokenEpochSource().nextEpoch();
        } catch (MismatchedEpochSource e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LeaseUnavailableException("cannot acquire '" + resource + "': Redis has no token counter for it "
                    + "and the token epoch source failed: " + e.getMessage(), resource, e);
        }
        if (epoch <= 0 || epoch > EpochTokens.MAX_EPOCH) {
            throw new LeaseUnavailableException("cannot acquire '" + resource + "': the token epoch source returned "
                    + epoch + ", outside 1.." + EpochTokens.MAX_EPOCH, resource, null);
        }
        epochsTaken.incrementAndGet();
        return epoch;
    }

    private static long freshClaim() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }

    private ServerClockWatch.Reading reading(RedisLeaseScripts.AcquireReply reply, long sentAt) {
        ServerClockWatch.Reading reading = new ServerClockWatch.Reading(reply.serverMicros(), sentAt, System.nanoTime());
        observeServer(reading);
        return reading;
    }

    /** Keeps the grant's server time as the lease's first reading; leases never watched nor released are dropped. */
    private void track(LeaseRequest request, ServerClockWatch.Reading reading) {
        long size = clocks.size();
        long pruneAt = pruneClocksAt.get();
        // A scan per acquire would cost O(held leases) each: scan when the map doubled since the last scan.
        if (size >= pruneAt && pruneClocksAt.compareAndSet(pruneAt, Long.MAX_VALUE)) {
            long horizon = System.nanoTime() - 2 * request.leaseTime().toNanos();
            clocks.values().removeIf(w -> !w.isWatched() && w.createdNanos() - horizon < 0);
            pruneClocksAt.set(Math.max(4096, 2L * clocks.size()));
        }
        clocks.put(request.holder(), new ServerClockWatch(reading));
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
                .thenApply(reply -> {
                    ServerClockWatch.Reading reading = new ServerClockWatch.Reading(reply.serverMicros(), sentAt, System.nanoTime());
                    return checkClock(request, reading) && reply.ours();
                });
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
                    .thenApply(reply -> {
                        ServerClockWatch.Reading reading = new ServerClockWatch.Reading(reply.serverMicros(), sentAt,
                                System.nanoTime());
                        return checkClock(request, reading) && reply.ours();
                    }));
        }
        return answers;
    }

    /** False when the server's clock jumped forward: the lease is told it is lost ({@code CLOCK_JUMP}). */
    private boolean checkClock(LeaseRequest request, ServerClockWatch.Reading reading) {
        observeServer(reading);
        ServerClockWatch watch = clocks.computeIfAbsent(request.holder(), h -> new ServerClockWatch(null));
        ServerClockWatch.Step step = watch.observe(reading);
        if (step.forward()) {
            forwardJumps.incrementAndGet();
            log.warn("Redis clock jumped forward by {} ms more than passed here; lease on '{}' (holder {}) is lost: "
                    + "Redis may expire it early", step.excessNanos() / 1_000_000, request.resource(), request.holder());
            watch.tellLost();
            return false;
        }
        if (step.backward()) {
            backwardJumps.incrementAndGet();
            log.warn("Redis clock jumped back by {} ms; lease on '{}' (holder {}) is kept, but Redis keeps it that much "
                    + "longer if it is not released", -step.excessNanos() / 1_000_000, request.resource(), request.holder());
        }
        return true;
    }

    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        ServerClockWatch watch = clocks.computeIfAbsent(request.holder(), h -> new ServerClockWatch(null));
        watch.onLost(lost);
        return () -> clocks.remove(request.holder(), watch);
    }

    /** Release requests go through Redis pub/sub: they reach the holders in every process on this Redis. */
    @Override
    public Optional<ReleaseRequestChannel> releaseRequests() {
        return Optional.of(releaseRequests);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        clocks.remove(request.holder());
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
        giveUpRetries.shutdownNow();
        client.close();
    }

    @Override
    public String describe() {
        return "redis via " + client.name() + " (key prefix " + config.keyPrefix() + ", tokens on "
                + (config.tokenEpochSource() != null ? "a durable epoch" : "the Redis clock floor") + ")";
    }
}
