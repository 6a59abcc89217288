package io.fenceguard.hazelcast;

import com.hazelcast.internal.util.ThreadUtil;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner ids of leases, in place of a thread's id, for a {@link com.hazelcast.cp.lock.FencedLock}. A FencedLock's
 * owner is the pair (CP session, thread id), and Hazelcast 5.4 reads the thread id of every FencedLock call (lock,
 * tryLock, unlock, isLockedByCurrentThread...) from {@link ThreadUtil#getThreadId()}: the id set on the calling thread
 * by {@link ThreadUtil#setThreadId(long)}, else the thread's own. Calling under an id of the lease's own lets any
 * pooled thread serve any lease, and keeps two leases of one process apart although FencedLock is reentrant per
 * owner: a pooled thread that still held a lock it could not give back is never handed that lock again, as its next
 * lease has another id.
 *
 * <p>{@code ThreadUtil} is Hazelcast's internal API (not covered by its compatibility promise); it is used here only,
 * and Hazelcast is pinned at 5.4.0, the last Community Edition with the CP Subsystem. Should a later version read the
 * owner elsewhere, every call of a lease would be owned by whichever pooled thread made it: a lease could not be
 * given back from another pooled thread, and a lock held by one lease would be granted again to another lease served
 * by the same thread. {@code LockOwnerIdsTest} fails loudly then.
 */
final class LockOwnerIds {

    /** Negative, so that no id meets a thread's own (positive, from 1 up) in this process. */
    private static final AtomicLong LAST = new AtomicLong(0);

    private LockOwnerIds() {
    }

    /** An owner id never handed out before in this process, and no thread's own id. */
    static long next() {
        return LAST.decrementAndGet();
    }

    /** Makes every FencedLock call of this thread, until {@link #clear()}, one of the owner {@code id}. */
    static void adopt(long id) {
        ThreadUtil.setThreadId(id);
    }

    /** This thread's FencedLock calls are its own again. */
    static void clear() {
        ThreadUtil.removeThreadId();
    }

    /** The owner that this thread's FencedLock calls are made for. */
    static long current() {
        return ThreadUtil.getThreadId();
    }
}
