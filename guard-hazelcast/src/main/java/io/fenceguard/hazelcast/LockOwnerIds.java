package io.fenceguard.hazelcast;

import com.hazelcast.internal.util.ThreadUtil;
import java.util.concurrent.ConcurrentLinkedDeque;
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
 * <p>An id is handed out again once the lease that had it gave its lock back (or was refused it) and makes no call
 * any more ({@link #reuse(long)}): a CP lock remembers, for each owner that ever gave it back, that owner's last
 * unlock (so that a retried unlock is not applied twice) until the same owner gives it back again or its CP session
 * ends, and a refused lock call is remembered the same way. With an id of its own for every lease, each lease left
 * one such entry in the CP group's state of its lock for as long as the member lived, and every unlock of the lock
 * went through all of them; with the ids reused, a lock remembers at most as many owners as leases were ever held
 * or asked for at once in this process. An id whose lease may still hold its lock (a lock call whose outcome is not
 * known, a lock that could not be given back) is never reused.
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
    /** Ids whose leases hold no lock and make no call any more; the last one given back is handed out first. */
    private static final ConcurrentLinkedDeque<Long> FREE = new ConcurrentLinkedDeque<>();

    private LockOwnerIds() {
    }

    /** An owner id that no other lease of this process uses, and no thread's own id. */
    static long next() {
        Long free = FREE.pollFirst();
        return free != null ? free : LAST.decrementAndGet();
    }

    /** {@code id}'s lease holds no lock, waits for none and makes no call any more: the id may serve another lease. */
    static void reuse(long id) {
        FREE.offerFirst(id);
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
