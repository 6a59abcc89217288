package io.fenceguard.redlock;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redlock.internal.RedlockKeys;
import io.fenceguard.redlock.internal.RedlockScripts;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;

/**
 * Leases over N independent Redis masters (the Redlock algorithm), with fencing tokens that need no
 * clock. Each master is the application's own {@link RedissonClient} (never closed here) on a server
 * of its own: not replicas of one another, not shards of one Cluster.
 *
 * <h2>Acquire</h2>
 * One attempt is two steps, each sent to every master at once and bounded by
 * {@link RedlockLeaseConfig#masterTimeout()}:
 * <ol>
 *   <li><b>lock</b>: on each master, one script sets the lock to the holder id with the lease time as
 *       expiry when it is free, and returns the highest token that master has seen;</li>
 *   <li><b>commit</b>: when a majority ({@code N/2 + 1}) locked, the token is {@code max(seen over every
 *       answer) + 1}; one script on every master raises that master's highest token to it and says
 *       whether the lock there is still the holder's.</li>
 * </ol>
 * The grant stands when a majority answered "still locked" to the commit and the validity
 * {@code lease − elapsed − drift} (drift = {@code lease × driftFactor + minDrift}) is still positive; the
 * local lease counts that validity, not the full lease. Otherwise the attempt is undone on every master
 * (compare-and-delete) and tried again after a random pause (resilience4j's jittered exponential interval)
 * until the wait runs out, so that competing clients which split the masters between them do not meet
 * again in step. An acquire returns within {@code wait + 3 × masterTimeout}.
 *
 * <h2>Why tokens only grow</h2>
 * Let lease A be granted before lease B on the same resource. A's commit was acknowledged as "still
 * locked" by a majority C<sub>A</sub>; B locked a majority L<sub>B</sub>. Two majorities of the same N
 * masters always share at least one master x. On x, A's commit ran while A's lock was there, and B's lock
 * could only be set after A's lock was gone, so B's lock script ran after A's commit on that one key
 * and read a highest token of at least A's: B's token is at least A's + 1. The argument is about the
 * order of operations on one key of one master: no clock is involved (clocks only bound the validity,
 * as in every Redlock). It needs x to keep its data between the two: a master restarted empty or
 * flushed can answer "0". Every commit therefore goes to all masters (locked or not) and every lock
 * step reads all of them, so with all N masters up a token sits on all N, and up to {@code N − majority}
 * masters may lose their data without tokens going back; the next commit writes the token back to the
 * ones that lost it.
 *
 * <h2>Renew and release</h2>
 * A renewal extends the holder's own lock on every master and succeeds when a majority did; it never
 * takes a free lock back (a lock that expired may have had another holder in between). Release deletes
 * the holder's lock on every master and reports whether a majority still had it.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(RedlockLeaseProvider.of(List.of(redisA, redisB, redisC)));
 * }</pre>
 */
public final class RedlockLeaseProvider extends AbstractLeaseProvider {

    private final RedlockLeaseConfig config;
    private final RedlockScripts scripts;
    private final int quorum;
    private final IntervalFunction pauses;
    private volatile boolean closed;

    private RedlockLeaseProvider(List<RedissonClient> masters, RedlockLeaseConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(masters, "masters");
        if (masters.isEmpty()) {
            throw new IllegalArgumentException("Redlock needs at least one master (three or five independent ones)");
        }
        if (masters.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("masters must not contain null");
        }
        if (masters.stream().distinct().count() != masters.size()) {
            throw new IllegalArgumentException("the same RedissonClient is given twice: each master must be a client of its own");
        }
        this.scripts = new RedlockScripts(masters, config.masterTimeout());
        this.quorum = masters.size() / 2 + 1;
        this.pauses = IntervalFunction.ofExponentialRandomBackoff(config.minRetry(), 1.5, 0.5, config.maxRetry());
    }

    /** Over the given masters (three or five, independent) with the default settings. */
    public static RedlockLeaseProvider of(List<RedissonClient> masters) {
        return of(masters, RedlockLeaseConfig.defaults());
    }

    public static RedlockLeaseProvider of(List<RedissonClient> masters, RedlockLeaseConfig config) {
        return new RedlockLeaseProvider(masters, config);
    }

    public RedlockLeaseConfig config() {
        return config;
    }

    /** How many masters must agree: {@code N / 2 + 1}. */
    public int quorum() {
        return quorum;
    }

    private enum Outcome { GRANTED, BUSY, NO_QUORUM, TOO_SLOW }

    private record Attempt(Outcome outcome, long token, long sentAtNanos, int answered, long holderLeftMs) {
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        RedlockKeys keys = RedlockKeys.of(config.keyPrefix(), request.resource());
        for (int n = 1; ; n++) {
            ensureOpen(request);
            Attempt a = attempt(request, keys);
            if (a.outcome() == Outcome.GRANTED) {
                return new Grant(FencingToken.of(a.token()), a.sentAtNanos());
            }
            checkInterrupt(request);
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw failure(request, wait, a);
            }
            pause(request.resource(), Math.min(left, TimeUnit.MILLISECONDS.toNanos(pauses.apply(n))));
        }
    }

    private Attempt attempt(LeaseRequest request, RedlockKeys keys) {
        long start = System.nanoTime();
        long leaseNanos = request.leaseTime().toNanos();
        List<List<Long>> answers = scripts.lock(keys, request.holder(), request.leaseTime().toMillis());
        int answered = 0;
        int locked = 0;
        long highest = 0;
        long holderLeftMs = 0;
        for (List<Long> answer : answers) {
            if (answer == null) {
                continue;
            }
            answered++;
            highest = Math.max(highest, answer.get(1));
            if (answer.get(0) == 1L) {
                locked++;
            } else if (answer.size() > 2) {
                holderLeftMs = Math.max(holderLeftMs, answer.get(2));
            }
        }
        if (locked < quorum) {
            if (locked > 0 || answered < scripts.size()) {
                scripts.release(keys, request.holder()); // undo on every master, also where the answer was lost
            }
            return new Attempt(answered < quorum ? Outcome.NO_QUORUM : Outcome.BUSY, 0, start, answered, holderLeftMs);
        }
        long token = highest + 1;
        int stillLocked = 0;
        for (Long ack : scripts.commit(keys, request.holder(), token)) {
            if (ack != null && ack == 1L) {
                stillLocked++;
            }
        }
        long driftNanos = config.drift(request.leaseTime()).toNanos();
        long validity = leaseNanos - (System.nanoTime() - start) - driftNanos;
        if (stillLocked >= quorum && validity > 0) {
            // The local lease counts from the start of the attempt, less the drift: validity = lease − elapsed − drift.
            return new Attempt(Outcome.GRANTED, token, start - driftNanos, answered, 0);
        }
        scripts.release(keys, request.holder());
        return new Attempt(stillLocked >= quorum ? Outcome.TOO_SLOW : Outcome.NO_QUORUM, 0, start, answered, 0);
    }

    private RuntimeException failure(LeaseRequest request, Duration wait, Attempt last) {
        return switch (last.outcome()) {
            case BUSY -> new LeaseTimeoutException(request.resource(), wait, "another holder has it on enough masters"
                    + (last.holderLeftMs() > 0 ? " for up to " + last.holderLeftMs() + " ms more" : "")
                    + " (a majority of " + quorum + " of " + scripts.size() + " is needed)");
            case TOO_SLOW -> new LeaseTimeoutException(request.resource(), wait, "the masters answered too slowly: no"
                    + " validity was left of a " + request.leaseTime().toMillis() + " ms lease");
            default -> new LeaseUnavailableException("cannot acquire '" + request.resource() + "': only " + last.answered()
                    + " of " + scripts.size() + " Redis masters answered within " + config.masterTimeout().toMillis()
                    + " ms, a majority of " + quorum + " is needed", request.resource(), null);
        };
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(grant, "grant");
        if (closed) {
            return CompletableFuture.failedFuture(closedException(request));
        }
        RedlockKeys keys = RedlockKeys.of(config.keyPrefix(), request.resource());
        List<CompletableFuture<Long>> replies = scripts.renewAsync(keys, request.holder(), request.leaseTime().toMillis());
        List<CompletableFuture<Long>> settled = replies.stream()
                .map(f -> f.exceptionally(e -> null))
                .toList();
        return CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new)).thenApply(v -> {
            int yes = 0;
            int no = 0;
            for (CompletableFuture<Long> f : settled) {
                Long r = f.join();
                if (r == null) {
                    continue;
                }
                if (r == 1L) {
                    yes++;
                } else {
                    no++;
                }
            }
            if (yes >= quorum) {
                return true;
            }
            if (no > scripts.size() - quorum) {
                return false; // a majority no longer has it for this holder
            }
            throw new LeaseUnavailableException("cannot renew '" + request.resource() + "': " + yes + " of "
                    + scripts.size() + " masters renewed, " + no + " refused, the rest did not answer", request.resource(), null);
        });
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(grant, "grant");
        ensureOpen(request);
        List<Long> answers = scripts.release(RedlockKeys.of(config.keyPrefix(), request.resource()), request.holder());
        int answered = 0;
        int released = 0;
        for (Long a : answers) {
            if (a != null) {
                answered++;
                if (a == 1L) {
                    released++;
                }
            }
        }
        if (released >= quorum) {
            return true;
        }
        if (answered - released > scripts.size() - quorum) {
            return false;
        }
        throw new LeaseUnavailableException("cannot release '" + request.resource() + "': only " + answered + " of "
                + scripts.size() + " masters answered; the lock expires by itself", request.resource(), null);
    }

    @Override
    public String describe() {
        return "redlock (" + scripts.size() + " masters, quorum " + quorum + ", key prefix " + config.keyPrefix() + ")";
    }

    /** Refuses further calls; the masters' clients belong to the application and stay open. */
    @Override
    public void close() {
        closed = true;
    }

    private void ensureOpen(LeaseRequest request) {
        if (closed) {
            throw closedException(request);
        }
    }

    private LeaseUnavailableException closedException(LeaseRequest request) {
        return new LeaseUnavailableException("lease provider " + describe() + " is closed", request.resource(), null);
    }

    private static void checkInterrupt(LeaseRequest request) {
        if (Thread.currentThread().isInterrupted()) {
            throw new FenceguardException("interrupted while waiting for a lease on '" + request.resource() + "'",
                    request.resource(), null);
        }
    }


}
