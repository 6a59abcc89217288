package io.fenceguard.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ShedLock's documented contract, on any store: two providers stand for two instances of a service,
 * each with its own manager on the same store.
 */
abstract class LockProviderContract {

    /** Short enough that the tests wait little, long enough for a renewal on a loaded machine. */
    static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(2)).build();

    private final List<AutoCloseable> closeables = new ArrayList<>();
    FenceguardLockProvider first;
    FenceguardLockProvider second;
    String name;

    /** A manager on the store under test; every call within one test shares the same store. */
    protected abstract LeaseManager newManager();

    @BeforeEach
    void providers() {
        first = provider();
        second = provider();
        name = "job-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private FenceguardLockProvider provider() {
        LeaseManager manager = newManager();
        FenceguardLockProvider provider = new FenceguardLockProvider(manager);
        closeables.add(manager);
        closeables.add(provider);
        return provider;
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        assertThat(LeaseContext.all()).as("nothing left bound on the test thread").isEmpty();
    }

    LockConfiguration config(Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    @Test
    void onlyOneInstanceHoldsTheLock() {
        SimpleLock lock = first.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();

        assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        // The manager lets a thread re-enter its own lease; ShedLock must still see it as taken.
        assertThat(first.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();

        lock.unlock();
        SimpleLock next = second.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        assertThat(first.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        next.unlock();
    }

    @Test
    void leaseIsBoundDuringTheJobAndUnboundAfterUnlock() {
        Optional<SimpleLock> lock = first.lock(config(Duration.ofSeconds(10), Duration.ZERO));

        Lease bound = LeaseContext.requireValid();
        assertThat(bound.resource()).isEqualTo(ResourceName.of("shedlock:" + name));
        assertThat(bound).isSameAs(((FenceguardSimpleLock) lock.orElseThrow()).lease());

        lock.get().unlock();
        assertThat(LeaseContext.current()).isEmpty();
        assertThat(bound.isValid()).isFalse();
    }

    @Test
    void jobsRunByShedLockWriteUnderAGrowingToken() throws Throwable {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(first);
        DefaultLockingTaskExecutor other = new DefaultLockingTaskExecutor(second);
        AtomicReference<Lease> run1 = new AtomicReference<>();
        AtomicReference<Lease> run2 = new AtomicReference<>();

        executor.executeWithLock((Runnable) () -> run1.set(LeaseContext.requireValid()),
                config(Duration.ofSeconds(10), Duration.ZERO));
        assertThat(LeaseContext.current()).isEmpty();
        other.executeWithLock((Runnable) () -> run2.set(LeaseContext.requireValid()),
                config(Duration.ofSeconds(10), Duration.ZERO));

        assertThat(run1.get().resource()).isEqualTo(first.resourceFor(name));
        assertThat(run2.get().token().isNewerThan(run1.get().token())).isTrue();
        assertThat(LeaseContext.current()).isEmpty();
    }

    @Test
    void lockAtLeastForKeepsOthersOutAfterAnEarlyUnlock() {
        Duration atLeast = Duration.ofMillis(1200);
        long start = System.nanoTime();
        SimpleLock lock = first.lock(config(Duration.ofSeconds(10), atLeast)).orElseThrow();
        lock.unlock();
        assertThat(LeaseContext.current()).as("unbound at unlock, not at lockAtLeastFor").isEmpty();

        assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        assertThat(first.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();

        SimpleLock next = awaitLock(second, Duration.ofSeconds(5));
        long waited = System.nanoTime() - start;
        assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(atLeast);
        next.unlock();
    }

    /**
     * The runs of each test that turns on lockAtMostFor running out: a few in every build, a few hundred with
     * {@code -Dshedlock.repeats=300} to find a rare timing.
     */
    static IntStream repeats() {
        return IntStream.rangeClosed(1, Integer.getInteger("shedlock.repeats", 3));
    }

    @ParameterizedTest(name = "run {0}")
    @MethodSource("repeats")
    void lockAtMostForFreesTheLockWithoutUnlock(int run) {
        Duration atMost = Duration.ofMillis(800);
        long start = System.nanoTime();
        SimpleLock lock = first.lock(config(atMost, Duration.ZERO)).orElseThrow();
        Lease lease = LeaseContext.requireValid();
        assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();

        SimpleLock next = awaitLock(second, Duration.ofSeconds(5));
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(waited).isGreaterThanOrEqualTo(atMost).isLessThan(atMost.plus(LEASE.leaseTime()));

        next.unlock(); // the other instance's run, here on the same thread: unbind it first

        // The overrunning job still has its lease bound, and it refuses to be used.
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(LeaseContext::requireValid).isInstanceOf(FenceguardException.class);
        lock.unlock();
        assertThat(LeaseContext.all()).isEmpty();
    }

    /**
     * The trade-off of a renewed lease: when an instance dies (here: its manager stops renewing and its
     * provider stops releasing), its lock lapses one lease time after the last renewal, whatever
     * lockAtMostFor says (60 s here).
     */
    @Test
    void aDeadInstancesLockLapsesWithinTheLeaseTime() throws Exception {
        SimpleLock lock = first.lock(config(Duration.ofSeconds(60), Duration.ofSeconds(60))).orElseThrow();
        Lease lease = LeaseContext.requireValid();
        long start = System.nanoTime();
        first.close();
        first.manager().close();

        assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        SimpleLock next = awaitLock(second, LEASE.leaseTime().multipliedBy(3));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LEASE.leaseTime().multipliedBy(3));
        next.unlock();

        assertThat(lease.isValid()).isFalse();
        lock.unlock(); // unbinds; its lease is gone, so nothing waits for lockAtLeastFor
        assertThat(LeaseContext.all()).isEmpty();
    }

    @Test
    void extendMovesLockAtMostFor() throws Exception {
        // 1.5 s leaves a loaded machine time to extend before the first lockAtMostFor releases it.
        SimpleLock lock = first.lock(config(Duration.ofMillis(1500), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);

        Thread.sleep(2000);
        assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).as("still held past the first lockAtMostFor").isEmpty();
        assertThat(LeaseContext.requireValid().resource()).isEqualTo(first.resourceFor(name));

        extended.unlock();
        second.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow().unlock();
    }

    @ParameterizedTest(name = "run {0}")
    @MethodSource("repeats")
    void aLockReleasedAtLockAtMostForCannotBeExtended(int run) {
        SimpleLock lock = first.lock(config(Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        Lease lease = LeaseContext.requireValid();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (lease.isValid() && System.nanoTime() < deadline) {
            sleep(Duration.ofMillis(20));
        }
        assertThat(lease.isValid()).isFalse();

        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(LeaseContext.all()).as("an extension refused leaves nothing bound").isEmpty();
        second.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow().unlock();
    }

    @ParameterizedTest(name = "run {0}")
    @MethodSource("repeats")
    void aLockPastLockAtMostForCannotBeExtendedEvenWhenItsReleaseRunsLate(int run) throws Exception {
        SimpleLock lock = first.lock(config(Duration.ofMillis(200), Duration.ZERO)).orElseThrow();
        // Hold up the provider's release thread, so that the scheduled release at lockAtMostFor runs late.
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        first.scheduler().execute(() -> {
            try {
                busy.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            sleep(Duration.ofMillis(400));
            assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                    .as("lockAtMostFor has passed by the clock, whatever the release thread did").isEmpty();
        } finally {
            busy.countDown();
        }
        assertThat(LeaseContext.all()).isEmpty();
    }

    @Test
    void twoLocksUnlockedInTheOrderTheyWereTakenLeaveNothingBound() {
        SimpleLock a = first.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        String other = name + "-b";
        SimpleLock b = first.lock(new LockConfiguration(Instant.now(), other, Duration.ofSeconds(10), Duration.ZERO))
                .orElseThrow();
        a.unlock();
        assertThat(LeaseContext.all()).hasSize(1);
        assertThat(LeaseContext.current().orElseThrow().resource()).isEqualTo(first.resourceFor(other));
        b.unlock();
        assertThat(LeaseContext.all()).as("the first lock's closed lease is not bound again").isEmpty();
    }

    @Test
    void lockExtenderWorksInsideAJob() throws Throwable {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(first);
        executor.executeWithLock((Runnable) () -> {
            LockExtender.extendActiveLock(Duration.ofSeconds(5), Duration.ZERO);
            assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
            sleep(Duration.ofMillis(2000));
            assertThat(second.lock(config(Duration.ofSeconds(10), Duration.ZERO))).as("past the first lockAtMostFor").isEmpty();
        }, config(Duration.ofMillis(1500), Duration.ZERO));
        assertThat(LeaseContext.current()).isEmpty();
        second.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void namesThatCannotBeResourcesAreRefused() {
        for (String bad : List.of("with space", "{tagged}", "rapport-é", "tab\tname",
                "x".repeat(ResourceName.MAX_LENGTH - "shedlock:".length() + 1))) {
            assertThatThrownBy(() -> first.lock(new LockConfiguration(Instant.now(), bad, Duration.ofSeconds(10), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ShedLock lock name")
                    .hasMessageContaining("cannot be used by fenceguard");
        }
        assertThat(first.manager().heldLeases()).isEmpty();
        assertThat(LeaseContext.all()).isEmpty();
        // A refused name leaves the provider usable; the longest name that fits is taken.
        first.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow().unlock();
        String longest = "x".repeat(ResourceName.MAX_LENGTH - "shedlock:".length());
        first.lock(new LockConfiguration(Instant.now(), longest, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow().unlock();
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    SimpleLock awaitLock(FenceguardLockProvider provider, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<SimpleLock> lock = provider.lock(config(Duration.ofSeconds(10), Duration.ZERO));
            if (lock.isPresent()) {
                return lock.get();
            }
            sleep(Duration.ofMillis(20));
        }
        throw new AssertionError("not locked within " + timeout);
    }
}
