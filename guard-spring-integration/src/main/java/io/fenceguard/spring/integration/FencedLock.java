package io.fenceguard.spring.integration;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one key of a {@link FenceguardLockRegistry}: a {@link Lock} owned by a thread, re-entrant,
 * held across processes by a lease on its resource. Within the process a {@link ReentrantLock} orders the
 * threads; the first hold of a thread acquires the lease and binds it to that thread's
 * {@link LeaseContext}; the last {@link #unlock} unbinds and releases it.
 *
 * <p>The lease is renewed by the manager while held. When it is lost (the store refused a renewal, or it ran
 * out during a pause), writes under it are refused at the resource, and a re-entrant {@code lock}/{@code tryLock}
 * by the holder throws {@link LeaseLostException} rather than pretend it still holds the lock (a
 * {@code LockRegistryLeaderInitiator} then revokes leadership and unlocks); {@link #unlock} still
 * completes, without an error. Conditions are not supported.
 */
public final class FencedLock implements Lock {

    private final LeaseManager manager;
    private final ResourceName resource;
    private final Duration waitSlice;
    private final ReentrantLock local = new ReentrantLock();
    // written and read by the thread holding `local`; volatile for lease() and isLocked() from others
    private volatile Lease lease;
    private LeaseContext.Scope scope;
    private volatile long lastUsed = System.currentTimeMillis();

    FencedLock(LeaseManager manager, ResourceName resource, Duration waitSlice) {
        this.manager = manager;
        this.resource = resource;
        this.waitSlice = waitSlice.isZero() ? Duration.ofSeconds(1) : waitSlice;
    }

    /** The resource whose lease this lock holds. */
    public ResourceName resource() {
        return resource;
    }

    /**
     * The lease held now (by whichever thread holds the lock): to bind it on other threads that work for
     * the holder ({@code LeaseContext.bind(lock.lease().orElseThrow())}).
     */
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    /** Whether some thread of this process holds the lock. */
    public boolean isLocked() {
        return local.isLocked();
    }

    /** Whether the calling thread holds the lock. */
    public boolean isHeldByCurrentThread() {
        return local.isHeldByCurrentThread();
    }

    long lastUsed() {
        return lastUsed;
    }

    @Override
    public void lock() {
        local.lock();
        if (reentered()) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    hold(manager.acquire(resource, waitSlice));
                    return;
                } catch (LeaseTimeoutException busy) {
                    // lock() waits as long as it takes
                } catch (FenceguardException e) {
                    if (!Thread.interrupted()) {
                        throw e;
                    }
                    interrupted = true;  // lock() is not interruptible: keep waiting, restore the flag after
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (reentered()) {
            return;
        }
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for the lock on '" + resource + "'");
                }
                try {
                    hold(manager.acquire(resource, waitSlice));
                    return;
                } catch (LeaseTimeoutException busy) {
                    // keep waiting
                } catch (FenceguardException e) {
                    if (Thread.interrupted()) {
                        InterruptedException interrupted = new InterruptedException(
                                "interrupted while waiting for the lock on '" + resource + "'");
                        interrupted.initCause(e);
                        throw interrupted;
                    }
                    throw e;
                }
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (reentered()) {
            return true;
        }
        try {
            Optional<Lease> acquired = manager.tryAcquire(resource);
            if (acquired.isEmpty()) {
                local.unlock();
                return false;
            }
            hold(acquired.get());
            return true;
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, unit.toNanos(time));
        if (!local.tryLock(time, unit)) {
            return false;
        }
        if (reentered()) {
            return true;
        }
        try {
            Duration remaining = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            hold(manager.acquire(resource, remaining));
            return true;
        } catch (LeaseTimeoutException busy) {
            local.unlock();
            return false;
        } catch (FenceguardException e) {
            local.unlock();
            if (Thread.interrupted()) {
                InterruptedException interrupted = new InterruptedException(
                        "interrupted while waiting for the lock on '" + resource + "'");
                interrupted.initCause(e);
                throw interrupted;
            }
            throw e;
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    /**
     * Releases one hold; the last one unbinds the lease from this thread and releases it in the store.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the lock on '" + resource + "' is not held by this thread");
        }
        try {
            if (local.getHoldCount() == 1) {
                Lease held = lease;
                lease = null;
                LeaseContext.Scope bound = scope;
                scope = null;
                lastUsed = System.currentTimeMillis();
                try {
                    if (bound != null) {
                        bound.close();
                    }
                } finally {
                    if (held != null) {
                        held.close();
                    }
                }
            }
        } finally {
            local.unlock();
        }
    }

    /** Not supported: a condition cannot be signalled across processes. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by fenced locks");
    }

    /** After {@code local} was taken: true for a re-entry, which keeps the held lease if it is still valid. */
    private boolean reentered() {
        if (local.getHoldCount() == 1) {
            return false;
        }
        Lease held = lease;
        if (held != null && !held.isValid()) {
            local.unlock();  // this hold is not granted; the earlier ones remain for the holder to unlock
            held.ensureValid();  // throws LeaseLostException with the reason: a lost lease stays lost
            throw new IllegalStateException("lease " + held + " is neither valid nor lost");
        }
        return true;
    }

    private void hold(Lease acquired) {
        lease = acquired;
        scope = LeaseContext.bind(acquired);
        lastUsed = System.currentTimeMillis();
    }

    @Override
    public String toString() {
        Lease held = lease;
        return "FencedLock[" + resource + (held == null ? ", free here" : ", " + held) + "]";
    }
}
