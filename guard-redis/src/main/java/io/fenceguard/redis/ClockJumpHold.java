package io.fenceguard.redis;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.internal.ServerClockWatch;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hold of new grants after a forward jump of the Redis server's clock. Such a jump expired locks in Redis early: a
 * holder that Redis dropped may still believe it holds its lease until its own deadline, up to the jump later. A grant
 * made within that time is kept (renewed, so that nobody else gets it) but handed out only once the time has passed;
 * when that is past the caller's wait, it is given back and the acquire fails, saying why. The server's clock is read
 * from the replies of every lease call of one provider (not on a Cluster, whose nodes keep clocks of their own).
 */
final class ClockJumpHold {

    private static final Logger log = LoggerFactory.getLogger(ClockJumpHold.class);

    private final ServerClockWatch serverClock = new ServerClockWatch(null);
    private final AtomicReference<Jump> lastJump = new AtomicReference<>();
    private final Duration lockDelay;
    private final BiFunction<LeaseRequest, Grant, CompletionStage<Boolean>> renew;
    private final BiConsumer<LeaseRequest, Grant> giveBack;

    /**
     * @param renew    renews a held grant; true while it is still the holder's
     * @param giveBack releases a grant that is not handed out, failures only logged
     */
    ClockJumpHold(Duration lockDelay, BiFunction<LeaseRequest, Grant, CompletionStage<Boolean>> renew,
                  BiConsumer<LeaseRequest, Grant> giveBack) {
        this.lockDelay = lockDelay;
        this.renew = renew;
        this.giveBack = giveBack;
    }

    /** A forward jump of the server's clock: when it was seen here and how far it went beyond what passed here. */
    private record Jump(long seenAtNanos, long excessNanos) {
    }

    /** What a reply of any lease call tells of the server's clock: a forward jump holds the grants that follow. */
    void observe(ServerClockWatch.Reading reading) {
        ServerClockWatch.Step step = serverClock.observe(reading);
        if (step.forward()) {
            lastJump.set(new Jump(System.nanoTime(), step.excessNanos()));
        }
    }

    /**
     * {@code grant} as it may be handed out: at once when no recent jump calls for a hold, else after the hold, with
     * the time of its last renewal; given back and refused when the hold ends past {@code deadline} or fails.
     */
    Grant handOut(LeaseRequest request, Duration wait, Grant grant, long deadline) {
        Jump jump = lastJump.get();
        if (jump == null) {
            return grant;
        }
        // A holder whose lock the jump cut short believes in its lease until at most the jump after Redis let the
        // lock go, which was before this grant (not before the jump was seen: a refused acquire may have seen it
        // long before the lock ran out); and no later than a lease and its lock-delay after the jump, since a
        // renewal after the jump would have told it of the jump.
        long now = System.nanoTime();
        long holdUntil = Math.min(jump.seenAtNanos() + request.leaseTime().toNanos() + lockDelay.toNanos(),
                now + jump.excessNanos());
        if (holdUntil - now <= 0) {
            return grant;
        }
        try {
            return hold(request, wait, grant, holdUntil, deadline, jump);
        } catch (InterruptedException | ExecutionException | TimeoutException | RuntimeException e) {
            giveBack.accept(request, grant);
            throw failure(request.resource(), e);
        }
    }

    private Grant hold(LeaseRequest request, Duration wait, Grant grant, long holdUntil, long deadline, Jump jump)
            throws InterruptedException, ExecutionException, TimeoutException {
        ResourceName resource = request.resource();
        String why = "the Redis server's clock jumped forward by " + jump.excessNanos() / 1_000_000 + " ms more than "
                + "passed here, so Redis may have expired an earlier holder's lock while that holder still holds it";
        if (holdUntil - deadline > 0) {
            throw new LeaseTimeoutException(resource, wait, why + "; the resource stays closed for "
                    + (holdUntil - System.nanoTime()) / 1_000_000 + " ms more");
        }
        log.warn("{}: the lease on '{}' is handed out in {} ms", why, resource, (holdUntil - System.nanoTime()) / 1_000_000);
        long aliveFrom = grant.sentAtNanos();
        long step = Math.max(1, request.leaseTime().toNanos() / 3);
        for (long left = holdUntil - System.nanoTime(); left > 0; left = holdUntil - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, step));
            long sent = System.nanoTime();
            Boolean ours = renew.apply(request, grant).toCompletableFuture()
                    .get(request.leaseTime().toNanos(), TimeUnit.NANOSECONDS);
            if (!Boolean.TRUE.equals(ours)) {
                throw new LeaseUnavailableException("lost the lease on '" + resource + "' while waiting out a "
                        + "forward jump of the Redis server's clock", resource, null);
            }
            aliveFrom = sent;
        }
        return new Grant(grant.token(), aliveFrom);
    }

    /** The one exception the caller sees for whatever ended the hold. */
    private static RuntimeException failure(ResourceName resource, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new FenceguardException("interrupted while waiting for a lease on '" + resource + "'", resource,
                    null, e);
        }
        if (e instanceof RuntimeException runtime) {
            return runtime;
        }
        return new LeaseUnavailableException("could not renew the lease on '" + resource + "' while waiting out a "
                + "forward jump of the Redis server's clock: " + e, resource, e);
    }
}
