package io.fenceguard.core.memory;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Leases held in this JVM's memory: for tests and for applications that run as one instance. Tokens
 * come from one counter for all resources, so they grow per resource and never repeat while the JVM
 * lives; they start again at 1 on restart, which is safe only where the fenced resource starts afresh
 * too (an in-memory or test database). Waiting holders are woken on release, in no particular order.
 */
public final class InMemoryLeaseProvider implements LeaseProvider {

    private static final Duration LONGEST_WAIT = Duration.ofNanos(Long.MAX_VALUE / 4);

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<ResourceName, Held> locks = new HashMap<>();
    private final Map<ResourceName, Condition> released = new HashMap<>();
    private long lastToken;

    private record Held(String holder, long token, long expiresAtNanos) {
    }

    public static InMemoryLeaseProvider create() {
        return new InMemoryLeaseProvider();
    }

    private InMemoryLeaseProvider() {
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        Objects.requireNonNull(request, "request");
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive, got " + wait);
        }
        // Saturated, so that a very long wait does not overflow into one already over.
        long deadline = System.nanoTime() + (wait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait).toNanos();
        lock.lock();
        try {
            while (true) {
                long now = System.nanoTime();
                Held current = live(request.resource(), now);
                if (current == null) {
                    // The lease counts from this attempt, not from the start of the wait.
                    long token = ++lastToken;
                    locks.put(request.resource(), new Held(request.holder(), token, now + request.leaseTime().toNanos()));
                    return new Grant(FencingToken.of(token), now);
                }
                long left = deadline - now;
                if (left <= 0) {
                    throw new LeaseTimeoutException(request.resource(), wait, "another holder has it for up to "
                            + TimeUnit.NANOSECONDS.toMillis(current.expiresAtNanos() - now) + " ms more");
                }
                Condition condition = released.computeIfAbsent(request.resource(), r -> lock.newCondition());
                try {
                    condition.awaitNanos(Math.min(left, current.expiresAtNanos() - now));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FenceguardException("interrupted while waiting for a lease on '" + request.resource() + "'",
                            request.resource(), null, e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        lock.lock();
        try {
            long now = System.nanoTime();
            Held current = live(request.resource(), now);
            if (current == null || !current.holder().equals(request.holder())) {
                return CompletableFuture.completedFuture(false);
            }
            locks.put(request.resource(), new Held(current.holder(), current.token(), now + request.leaseTime().toNanos()));
            return CompletableFuture.completedFuture(true);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        lock.lock();
        try {
            Held current = live(request.resource(), System.nanoTime());
            if (current == null || !current.holder().equals(request.holder())) {
                return false;
            }
            locks.remove(request.resource());
            Condition condition = released.remove(request.resource());
            if (condition != null) {
                condition.signalAll();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The lock on {@code resource} unless it has expired (an expired one is dropped). */
    private Held live(ResourceName resource, long now) {
        Held current = locks.get(resource);
        if (current != null && now - current.expiresAtNanos() >= 0) {
            locks.remove(resource);
            return null;
        }
        return current;
    }

    @Override
    public String describe() {
        return "in-memory";
    }
}
