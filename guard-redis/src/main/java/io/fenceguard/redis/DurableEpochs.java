package io.fenceguard.redis;

import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.internal.EpochSourceRecord;
import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.redis.internal.RedisLeaseScripts;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable-epoch path of {@link RedisLeaseProvider}: which token epoch source the lock store records, compared with
 * this provider's (at start-up, else at the first acquire, and again before each epoch is taken), and the grant that
 * finds a resource's counter lost: Redis records a claim, an epoch is taken from the durable source only then (so it
 * is above every epoch in use before), and the next try installs it.
 */
final class DurableEpochs {

    private static final Logger log = LoggerFactory.getLogger(DurableEpochs.class);
    /** Tries of the loss path of a durable-epoch grant before giving up: claim, epoch, install. */
    private static final int EPOCH_ROUNDS = 4;

    private final RedisLeaseConfig config;
    private final EpochSourceRecord record;
    private final AtomicLong epochsTaken = new AtomicLong();
    /** Whether the store's recorded epoch source was found to be this provider's (checked again on each epoch taken). */
    private volatile boolean checked;

    DurableEpochs(RedisScriptClient client, RedisLeaseConfig config) {
        this.config = config;
        this.record = new EpochSourceRecord(client, config.keyPrefix());
    }

    /** One try of a grant on the durable epoch: {@code epoch} and {@code claim} are 0 until the counter was lost. */
    @FunctionalInterface
    interface Attempt {
        RedisLeaseScripts.AcquireReply run(long epoch, long claim, long freshClaim, long giveUpAt);
    }

    /** A granted token on the durable epoch, or the reply that did not grant; {@code value} is the token when granted. */
    record Outcome(RedisLeaseScripts.AcquireReply reply, long value) {
    }

    /**
     * Tries {@code attempt} until Redis answers with anything but a lost counter, taking and installing a new epoch
     * each time it is lost (at most {@link #EPOCH_ROUNDS} tries).
     */
    Outcome acquire(LeaseRequest request, long giveUpAt, Attempt attempt) {
        long epoch = 0;
        long claim = 0;
        for (int round = 1; ; round++) {
            RedisLeaseScripts.AcquireReply reply = attempt.run(epoch, claim, freshClaim(), giveUpAt);
            if (reply.status() != RedisLeaseScripts.NEED_EPOCH) {
                long value = reply.status() == RedisLeaseScripts.ACQUIRED
                        ? EpochTokens.token(reply.value(), reply.extra()) : reply.value();
                return new Outcome(reply, value);
            }
            if (round == EPOCH_ROUNDS) {
                throw new LeaseUnavailableException("cannot acquire '" + request.resource() + "': Redis lost its token "
                        + "counter again before a new epoch could be installed, " + EPOCH_ROUNDS + " times",
                        request.resource(), null);
            }
            // The epoch is taken only now, after Redis recorded the claim: it is above every epoch in use before.
            claim = reply.value();
            epoch = nextEpoch(request.resource(), config.callTimeout(request.leaseTime()));
            // The epoch source has its own time (a database round trip): the install that follows gets one call's
            // time of its own, so a slow epoch source never turns into a Redis timeout.
            giveUpAt = Math.max(giveUpAt, System.nanoTime() + config.callTimeout(request.leaseTime()).toNanos());
        }
    }

    /** Epochs taken from the durable source: one per counter Redis lost. */
    long taken() {
        return epochsTaken.get();
    }

    /**
     * Compares the store's recorded epoch source with this provider's now, so that a client on another source fails
     * at start-up; a store or source that cannot be reached now is checked at the first acquire instead.
     */
    void checkAtStart() {
        Duration timeout = config.callTimeout() != null ? config.callTimeout() : Duration.ofSeconds(1);
        try {
            check(System.nanoTime() + timeout.toNanos());
        } catch (MismatchedEpochSource e) {
            throw e;
        } catch (RuntimeException e) {
            log.info("fenceguard: could not compare the lock store's token epoch source with this provider's now ({}); "
                    + "compared at the first acquire", e.toString());
        }
    }

    /** At an acquire, when it was not compared yet: a store that cannot be reached refuses the acquire. */
    void checkAtAcquire(ResourceName resource, long deadlineNanos) {
        if (checked) {
            return;
        }
        try {
            check(deadlineNanos);
        } catch (MismatchedEpochSource e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LeaseUnavailableException("cannot acquire '" + resource + "': could not compare the lock "
                    + "store's token epoch source with this client's: " + e.getMessage(), resource, e);
        }
    }

    /**
     * Records this provider's epoch source in Redis when none is recorded, moves the store to it when the record
     * names the source it replaces, and refuses a store that records another one, or any one when this provider mints
     * tokens on the clock floor.
     *
     * @throws MismatchedEpochSource naming both sources
     * @throws RuntimeException      when Redis or the source cannot be reached
     */
    private void check(long deadlineNanos) {
        TokenEpochSource source = config.tokenEpochSource();
        String own = source == null ? null : source.identity();
        if (source != null && own == null) {
            checked = true; // a source that cannot name itself is not checked
            return;
        }
        EpochSourceRecord.Recorded recorded = await(record.record(own, deadlineNanos), deadlineNanos);
        if (source == null && recorded != null) {
            throw new MismatchedEpochSource("Redis (key prefix " + config.keyPrefix() + ") records that its token epochs "
                    + "come from " + recorded.identity() + ", but this client mints tokens on the Redis clock floor, "
                    + "which can fall below those epochs' tokens after a loss: give it the same TokenEpochSource "
                    + "(fenceguard.redis.token-epoch=database on that same durable database), or a key prefix of its "
                    + "own (fenceguard.redis.key-prefix); an in-memory database recorded by an earlier version is gone "
                    + "with its application, so take a new key prefix then");
        }
        if (source != null && !own.equals(recorded.identity())) {
            if (!recorded.identity().equals(config.tokenEpochSourceReplaces())) {
                throw new MismatchedEpochSource("Redis (key prefix " + config.keyPrefix() + ") records that its token "
                        + "epochs come from " + recorded.identity() + ", but this client's TokenEpochSource is " + own
                        + ": every client of one lock store must take its epochs from the same source (or use a key "
                        + "prefix of its own); to move the store to this source for good, set "
                        + "fenceguard.redis.token-epoch-source-replaces (RedisLeaseConfig.tokenEpochSourceReplaces) to "
                        + recorded.identity());
            }
            move(source, own, recorded, deadlineNanos);
        } else if (source != null && recorded.highestEpoch() == null) {
            keepHighest(source, own, deadlineNanos);
        }
        checked = true;
    }

    /**
     * Moves the store from the recorded source to {@code source}: advances it past the highest epoch installed, then
     * replaces the record only if it still names the old source and that epoch (a client of the old source may have
     * installed a higher one meanwhile: then again past that one).
     */
    private void move(TokenEpochSource source, String own, EpochSourceRecord.Recorded recorded, long deadlineNanos) {
        for (int round = 1; ; round++) {
            if (recorded.highestEpoch() == null) {
                throw new MismatchedEpochSource("cannot move the lock store (key prefix " + config.keyPrefix()
                        + ") from " + recorded.identity() + " to " + own + ": Redis records no highest installed epoch "
                        + "for it (recorded by an earlier version); start one client on " + recorded.identity()
                        + " first, which records it, or use a key prefix of its own");
            }
            try {
                source.advancePast(recorded.highestEpoch());
            } catch (UnsupportedOperationException e) {
                throw new MismatchedEpochSource("cannot move the lock store (key prefix " + config.keyPrefix()
                        + ") to " + own + ": " + e.getMessage());
            }
            EpochSourceRecord.Recorded now = await(record.move(recorded, own, recorded.highestEpoch(), deadlineNanos),
                    deadlineNanos);
            if (now == null) {
                log.info("fenceguard: moved the lock store (key prefix {}) from token epoch source {} to {}, past epoch {}; "
                        + "clients on the old source are refused from now on", config.keyPrefix(), recorded.identity(),
                        own, recorded.highestEpoch());
                return;
            }
            if (own.equals(now.identity())) {
                return; // another client of this source moved it at the same moment
            }
            if (!recorded.identity().equals(now.identity()) || round == EPOCH_ROUNDS) {
                throw new IllegalStateException("the epoch source record " + record.key() + " changed while moving "
                        + "the lock store to " + own + ": now " + now.identity());
            }
            recorded = now;
        }
    }

    /** A record written before the highest installed epoch was kept: this source's own highest epoch bounds it. */
    private void keepHighest(TokenEpochSource source, String own, long deadlineNanos) {
        long highest;
        try {
            highest = source.highestEpoch();
        } catch (UnsupportedOperationException e) {
            return; // unknown; a move from this source is then refused, naming why
        }
        await(record.noteEpoch(own, highest, deadlineNanos), deadlineNanos);
    }

    /** Each Redis call of the epoch path gets {@code call} of its own: the database round trip between them has its own time. */
    private long nextEpoch(ResourceName resource, Duration call) {
        long epoch;
        try {
            // The loss that calls for an epoch may have taken the record too: recorded again, or compared, first.
            check(System.nanoTime() + call.toNanos());
            TokenEpochSource source = config.tokenEpochSource();
            epoch = source.nextEpoch();
            String own = source.identity();
            // Noted as installed before it is: a store moved to another source since refuses it here.
            if (own != null && epoch > 0 && epoch <= EpochTokens.MAX_EPOCH) {
                long deadlineNanos = System.nanoTime() + call.toNanos();
                String recorded = await(record.noteEpoch(own, epoch, deadlineNanos), deadlineNanos);
                if (!own.equals(recorded)) {
                    throw new MismatchedEpochSource("Redis (key prefix " + config.keyPrefix() + ") was moved to the "
                            + "token epoch source " + recorded + "; this client's is " + own + ": restart it on "
                            + recorded);
                }
            }
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

    private <T> T await(CompletionStage<T> reply, long deadlineNanos) {
        try {
            return reply.toCompletableFuture().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + record.key(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read " + record.key() + " in Redis: " + e, e);
        }
    }

    private static long freshClaim() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }

    /** A client whose token source differs from the one the lock store records: a configuration error, not retried. */
    static final class MismatchedEpochSource extends IllegalStateException {
        MismatchedEpochSource(String message) {
            super(message);
        }
    }
}
