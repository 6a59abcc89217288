package io.fenceguard.shedlock;

import io.fenceguard.core.Lease;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/** What ShedLock holds while a job runs: unlock and extend act on the shared {@link HeldLock}. */
final class FenceguardSimpleLock extends AbstractSimpleLock {

    private final HeldLock held;
    /** When lockAtLeastFor started: at lock(), or at the latest extend(). */
    private final long startNanos;

    FenceguardSimpleLock(LockConfiguration config, HeldLock held, long startNanos) {
        super(config);
        this.held = held;
        this.startNanos = startNanos;
    }

    /** The lease the job runs under. */
    Lease lease() {
        return held.lease();
    }

    @Override
    protected void doUnlock() {
        held.unbind();
        if (!held.isHeld()) {
            held.close(); // lost or already released at lockAtMostFor: nothing left to keep others out
            return;
        }
        long atLeastLeft = lockConfiguration.getLockAtLeastFor().toNanos() - (System.nanoTime() - startNanos);
        held.releaseAfter(atLeastLeft);
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfig) {
        long now = System.nanoTime();
        if (!held.isHeld()) {
            // ShedLock treats this lock as gone: do not leave the lease bound or waiting.
            held.unbind();
            held.close();
            return Optional.empty();
        }
        held.releaseAfter(newConfig.getLockAtMostFor().toNanos());
        return Optional.of(new FenceguardSimpleLock(newConfig, held, now));
    }
}
