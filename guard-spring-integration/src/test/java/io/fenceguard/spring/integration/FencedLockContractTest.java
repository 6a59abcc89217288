package io.fenceguard.spring.integration;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The {@link Lock} contract as Spring Integration's registries document it, on Redis, with two registries
 * standing for two instances: exclusion across instances and threads, tryLock with and without a wait,
 * unlock by the owner only, re-entrancy, lockInterruptibly, the lease bound while held, a lost lease refused
 * on re-entry.
 */
class FencedLockContractTest {

    private static RedissonClient redisson;
    private final String key = "job-" + UUID.randomUUID().toString().substring(0, 8);
    private PausableLeaseProvider providerA;
    private LeaseManager managerA;
    private LeaseManager managerB;
    private FenceguardLockRegistry instanceA;
    private FenceguardLockRegistry instanceB;

    @BeforeAll
    static void redis() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri()).setTimeout(2_000);
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void close() {
        redisson.shutdown();
    }

    @BeforeEach
    void registries() {
        RedisLeaseConfig redis = RedisLeaseConfig.builder().lockDelay(Duration.ofMillis(200)).build();
        LeaseConfig lease = LeaseConfig.builder().leaseTime(Duration.ofSeconds(1)).defaultWait(Duration.ofMillis(500)).build();
        providerA = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis));
        managerA = LeaseManager.of(providerA, lease);
        managerB = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis), lease);
        instanceA = FenceguardLockRegistry.of(managerA);
        instanceB = FenceguardLockRegistry.of(managerB);
    }

    @AfterEach
    void closeManagers() {
        managerA.close();
        managerB.close();
    }

    @Test
    void aHeldLockExcludesOtherInstancesAndThreadsUntilUnlocked() throws Exception {
        FencedLock lock = instanceA.obtain(key);
        assertThat(instanceA.obtain(key)).as("one lock per key").isSameAs(lock);
        lock.lock();
        try {
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(onOtherThread(() -> instanceB.obtain(key).tryLock())).as("other instance").isFalse();
            assertThat(onOtherThread(() -> lock.tryLock())).as("other thread, same instance").isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(lock.isLocked()).isFalse();
        assertThat(onOtherThread(() -> {
            Lock other = instanceB.obtain(key);
            boolean got = other.tryLock();
            other.unlock();
            return got;
        })).isTrue();
    }

    @Test
    void tryLockWithATimeoutWaitsForARelease() throws Exception {
        FencedLock onA = instanceA.obtain(key);
        onA.lock();
        long start = System.nanoTime();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                FencedLock onB = instanceB.obtain(key);
                boolean got = onB.tryLock(5, TimeUnit.SECONDS);
                if (got) {
                    onB.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertThat(waiter).isNotDone();
        onA.unlock();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void tryLockWithATimeoutGivesUpAfterIt() throws Exception {
        FencedLock onA = instanceA.obtain(key);
        onA.lock();
        try {
            long start = System.nanoTime();
            boolean got = onOtherThread(() -> instanceB.obtain(key).tryLock(400, TimeUnit.MILLISECONDS));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(got).isFalse();
            assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(400)).isLessThan(Duration.ofSeconds(3));
        } finally {
            onA.unlock();
        }
    }

    @Test
    void onlyTheOwnerMayUnlock() throws Exception {
        FencedLock lock = instanceA.obtain(key);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(key);
        lock.lock();
        try {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    lock.unlock();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            other.start();
            other.join();
            assertThat(failure.get()).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(lock.isHeldByCurrentThread()).as("still held after the stranger's unlock").isTrue();
            assertThat(onOtherThread(() -> instanceB.obtain(key).tryLock())).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void reentryKeepsTheLeaseAndTheTokenUntilTheLastUnlock() throws Exception {
        FencedLock lock = instanceA.obtain(key);
        lock.lock();
        Lease first = LeaseContext.requireValid();
        assertThat(first.resource().value()).isEqualTo("lock:" + key);
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(LeaseContext.requireValid().token()).isEqualTo(first.token());
        lock.unlock();
        lock.unlock();
        assertThat(onOtherThread(() -> instanceB.obtain(key).tryLock())).as("one hold left").isFalse();
        assertThat(LeaseContext.current()).contains(first);
        lock.unlock();
        assertThat(LeaseContext.current()).as("unbound after the last unlock").isEmpty();
        assertThat(first.isValid()).as("released").isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

        FencedLock onB = instanceB.obtain(key);
        assertThat(onB.tryLock()).isTrue();
        try {
            assertThat(LeaseContext.requireValid().token().isNewerThan(first.token())).isTrue();
        } finally {
            onB.unlock();
        }
    }

    @Test
    void lockInterruptiblyStopsWhenInterruptedAndLeavesNothingHeld() throws Exception {
        FencedLock onA = instanceA.obtain(key);
        onA.lock();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        FencedLock onB = instanceB.obtain(key);
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                onB.lockInterruptibly();
                outcome.set(new AssertionError("got the lock"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        waiter.start();
        started.await();
        Thread.sleep(300);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(onB.isLocked()).isFalse();
        onA.unlock();

        Thread.currentThread().interrupt();
        assertThatThrownBy(onB::lockInterruptibly).as("already interrupted").isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(onB.tryLock()).as("nothing was left behind").isTrue();
        onB.unlock();
    }

    @Test
    void lockWaitsUntilFreeAndExecuteLockedRunsUnderTheLease() throws Exception {
        FencedLock onA = instanceA.obtain(key);
        onA.lock();
        CompletableFuture<Long> onB = CompletableFuture.supplyAsync(() -> {
            try {
                return instanceB.executeLocked(key, () -> LeaseContext.requireValid().token().value());
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(1_200);  // longer than the manager's wait slice: lock() keeps waiting
        assertThat(onB).isNotDone();
        long tokenA = LeaseContext.requireValid().token().value();
        onA.unlock();
        assertThat(onB.get(5, TimeUnit.SECONDS)).isGreaterThan(tokenA);
    }

    @Test
    void aHolderWhoseLeaseWasLostIsRefusedOnReentryAndCanStillUnlock() throws Exception {
        FencedLock lock = instanceA.obtain(key);
        lock.lock();
        Lease lease = lock.lease().orElseThrow();
        providerA.pauseRenewals(lease.resource(), Duration.ofSeconds(5));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lease.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock::lock).isInstanceOf(LeaseLostException.class);
        assertThat(lock.isHeldByCurrentThread()).as("the first hold remains until unlocked").isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(LeaseContext.current()).isEmpty();
        providerA.resumeRenewals();
    }

    @Test
    void badKeysAndConditionsAreRefused() {
        assertThatThrownBy(() -> instanceA.obtain("has space")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has space");
        assertThatThrownBy(() -> instanceA.obtain(key).newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void unusedLocksExpireFromTheRegistryHeldOnesStay() {
        FencedLock held = instanceA.obtain(key);
        FencedLock unused = instanceA.obtain(key + "-unused");
        held.lock();
        try {
            instanceA.expireUnusedOlderThan(-1);
            assertThat(instanceA.obtain(key)).isSameAs(held);
            assertThat(instanceA.obtain(key + "-unused")).isNotSameAs(unused);
        } finally {
            held.unlock();
        }
    }

    private interface Check<T> {
        T run() throws Exception;
    }

    private static <T> T onOtherThread(Check<T> check) throws Exception {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return check.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }
}
