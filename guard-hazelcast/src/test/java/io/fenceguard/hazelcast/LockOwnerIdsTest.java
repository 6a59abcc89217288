package io.fenceguard.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cp.lock.FencedLock;
import io.fenceguard.test.support.HazelcastCpCluster;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Hazelcast still takes a FencedLock's owner from the id {@link LockOwnerIds} sets on the calling thread: the provider
 * keeps its leases apart and gives their locks back from pooled threads only as long as this holds. Should an upgrade
 * of Hazelcast read the owner elsewhere, this fails first.
 */
class LockOwnerIdsTest {

    @Test
    void twoOwnersOnOneThreadDoNotShareALockAndAnOwnerIsTheSameOnAnyThread() throws Exception {
        FencedLock lock = HazelcastCpCluster.shared().member(0).getCPSubsystem()
                .getLock("owner-ids:" + UUID.randomUUID());
        long first = LockOwnerIds.next();
        long second = LockOwnerIds.next();
        assertThat(first).isNotEqualTo(second).isNegative();
        assertThat(second).isNegative();
        try {
            LockOwnerIds.adopt(first);
            assertThat(LockOwnerIds.current()).isEqualTo(first);
            long fence = lock.tryLockAndGetFence();
            assertThat(fence).as("granted to the first owner").isNotEqualTo(FencedLock.INVALID_FENCE);

            // The same thread as the second owner: FencedLock's reentrancy must not hand it the first owner's lock.
            LockOwnerIds.adopt(second);
            assertThat(lock.isLockedByCurrentThread()).as("the second owner does not hold the first one's lock").isFalse();
            assertThat(lock.tryLockAndGetFence()).as("the second owner is refused the held lock")
                    .isEqualTo(FencedLock.INVALID_FENCE);

            // Without an owner id the thread is itself, another owner again.
            LockOwnerIds.clear();
            assertThat(LockOwnerIds.current()).isEqualTo(Thread.currentThread().getId());
            assertThat(lock.isLockedByCurrentThread()).isFalse();

            // The first owner on another thread holds its lock there and gives it back from there.
            assertThat(onAnotherThread(first, () -> {
                boolean held = lock.isLockedByCurrentThread();
                lock.unlock();
                return held;
            })).as("the first owner holds its lock on another thread").isTrue();
            assertThat(lock.isLocked()).isFalse();

            LockOwnerIds.adopt(second);
            assertThat(lock.tryLockAndGetFence()).as("the second owner gets the lock once given back").isGreaterThan(fence);
            lock.unlock();
        } finally {
            LockOwnerIds.clear();
        }
    }

    private static <T> T onAnotherThread(long owner, Supplier<T> call) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            LockOwnerIds.adopt(owner);
            try {
                return call.get();
            } finally {
                LockOwnerIds.clear();
            }
        }, work -> new Thread(work, "owner-ids-other").start()).get(30, TimeUnit.SECONDS);
    }
}
