package io.fenceguard.shedlock;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** One held lease and its binding, shared by a lock and the locks it was extended into. */
final class HeldLock {

    private final String name;
    private final Lease lease;
    private final LeaseContext.Scope scope;
    private final Thread owner;
    private final FenceguardLockProvider provider;
    private ScheduledFuture<?> release;
    /** When the scheduled release is due ({@link System#nanoTime()}); the lock ends then, also if the release runs late. */
    private long releaseAtNanos;
    private boolean closed;

    HeldLock(String name, Lease lease, LeaseContext.Scope scope, Thread owner, FenceguardLockProvider provider) {
        this.name = name;
        this.lease = lease;
        this.scope = scope;
        this.owner = owner;
        this.provider = provider;
    }

    Lease lease() {
        return lease;
    }

    /** (Re)schedules the release; zero or less releases now. */
    synchronized void releaseAfter(long nanos) {
        if (closed) {
            return;
        }
        if (release != null) {
            release.cancel(false);
        }
        releaseAtNanos = System.nanoTime() + nanos;
        if (nanos <= 0) {
            close();
            return;
        }
        try {
            release = provider.scheduler().schedule(this::close, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
            // The provider is closed: the lease lapses in the store once the manager stops renewing it.
            release = null;
        }
    }

    /**
     * Whether the lease is still held here: neither released nor lost, and its release time not passed by the
     * clock (the scheduled release may run late; the deadline does not move with it).
     */
    synchronized boolean isHeld() {
        return !closed && lease.isValid() && System.nanoTime() - releaseAtNanos < 0;
    }

    /** Unbinds the lease from the job's thread; a binding can only be undone on that thread. */
    void unbind() {
        if (Thread.currentThread() == owner) {
            scope.close();
        }
    }

    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (release != null) {
            release.cancel(false);
        }
        try {
            lease.close();
        } finally {
            provider.released(name);
        }
    }
}
