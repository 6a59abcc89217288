package io.fenceguard.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every provider of {@link LeaseMode#SHARED shared} leases must do on top of
 * {@link LeaseProviderContract}: readers share, a writer is alone, waiters are served in arrival order,
 * and a writer's token is greater than the token of every lease granted before it.
 */
public abstract class ReadWriteLeaseProviderContract {

    private LeaseProvider provider;
    private LeaseManager manager;

    /** A provider on the store under test that lists {@link LeaseMode#SHARED} in its modes. */
    protected abstract LeaseProvider createProvider();

    @BeforeEach
    void start() {
        provider = createProvider();
        manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build());
    }

    @AfterEach
    void stop() {
        manager.close();
        provider.close();
    }

    private static ResourceName fresh(String what) {
        return ResourceName.of("rw:" + what + ":" + UUID.randomUUID());
    }

    /** A manager of its own: re-entry is per manager and thread, so each acquires as a holder of its own. */
    private LeaseManager another() {
        return LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build());
    }

    @Test
    void theProviderGrantsSharedLeases() {
        assertThat(provider.modes()).contains(LeaseMode.SHARED, LeaseMode.EXCLUSIVE);
    }

    @Test
    void readersShareAndAWriterWaitsForAllOfThemThenGetsAGreaterToken() throws Exception {
        ResourceName resource = fresh("share");
        try (LeaseManager second = another(); LeaseManager writerSide = another()) {
            Lease r1 = manager.acquireShared(resource, Duration.ZERO);
            Lease r2 = second.acquireShared(resource, Duration.ZERO);
            assertThat(r1.mode()).isEqualTo(LeaseMode.SHARED);
            assertThat(r2.token()).isNotEqualTo(r1.token());
            assertThatThrownBy(() -> writerSide.acquire(resource, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Lease> writer = pool.submit(() -> writerSide.acquire(resource, Duration.ofSeconds(10)));
                Thread.sleep(200);
                r1.close();
                Thread.sleep(200);
                assertThat(writer.isDone()).as("the writer waits for the second reader").isFalse();
                r2.close();
                Lease w = writer.get(10, TimeUnit.SECONDS);
                assertThat(w.mode()).isEqualTo(LeaseMode.EXCLUSIVE);
                assertThat(w.token()).isGreaterThan(r1.token()).isGreaterThan(r2.token());
                // While the writer holds it, neither readers nor writers get in.
                assertThatThrownBy(() -> manager.acquireShared(resource, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
                assertThatThrownBy(() -> second.acquire(resource, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
                pool.submit(w::close).get(10, TimeUnit.SECONDS);
                try (Lease after = manager.acquireShared(resource, Duration.ofSeconds(5))) {
                    assertThat(after.token()).isGreaterThan(w.token());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void waitersAreServedInArrivalOrderAndAReaderQueuedBehindAWriterWaitsForIt() throws Exception {
        ResourceName resource = fresh("fifo");
        Lease first = manager.acquire(resource, Duration.ZERO);
        // Arrivals: writer A, readers B and C, writer D, reader E. Each holds for a while, then releases.
        String[] names = {"A", "B", "C", "D", "E"};
        LeaseMode[] modes = {LeaseMode.EXCLUSIVE, LeaseMode.SHARED, LeaseMode.SHARED, LeaseMode.EXCLUSIVE, LeaseMode.SHARED};
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        List<long[]> spans = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(names.length, null)));
        ExecutorService pool = Executors.newFixedThreadPool(names.length);
        List<LeaseManager> managers = new ArrayList<>();
        try {
            List<Future<Lease>> waiting = new ArrayList<>();
            for (int i = 0; i < names.length; i++) {
                int at = i;
                LeaseManager own = another();
                managers.add(own);
                waiting.add(pool.submit(() -> {
                    Lease lease = modes[at] == LeaseMode.SHARED ? own.acquireShared(resource, Duration.ofSeconds(30))
                            : own.acquire(resource, Duration.ofSeconds(30));
                    long granted = System.nanoTime();
                    events.add("+" + names[at]);
                    Thread.sleep(300);
                    events.add("-" + names[at]);
                    spans.set(at, new long[] {granted, System.nanoTime(), lease.token().value()});
                    lease.close();
                    return lease;
                }));
                Thread.sleep(250); // so that each is queued before the next arrives
            }
            first.close();
            for (Future<Lease> f : waiting) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            managers.forEach(LeaseManager::close);
        }
        List<String> grants = events.stream().filter(e -> e.startsWith("+")).toList();
        assertThat(grants.get(0)).isEqualTo("+A");
        assertThat(grants.subList(1, 3)).containsExactlyInAnyOrder("+B", "+C");
        assertThat(grants.subList(3, 5)).containsExactly("+D", "+E");
        // B and C held it together; A, D and E each alone.
        assertThat(overlap(spans.get(1), spans.get(2))).as("readers B and C share").isTrue();
        for (int w : new int[] {0, 3}) {
            for (int other = 0; other < names.length; other++) {
                if (other != w) {
                    assertThat(overlap(spans.get(w), spans.get(other))).as("%s alone (vs %s)", names[w], names[other]).isFalse();
                }
            }
        }
        // Tokens in grant order; the writers' above everything before them.
        assertThat(spans.get(0)[2]).isGreaterThan(first.token().value());
        assertThat(Math.min(spans.get(1)[2], spans.get(2)[2])).isGreaterThan(spans.get(0)[2]);
        assertThat(spans.get(3)[2]).isGreaterThan(Math.max(spans.get(1)[2], spans.get(2)[2]));
        assertThat(spans.get(4)[2]).isGreaterThan(spans.get(3)[2]);
    }

    private static boolean overlap(long[] a, long[] b) {
        return a[0] < b[1] && b[0] < a[1];
    }

    @Test
    void underContentionWritersAreAloneAndEveryTokenOrderHolds() throws Exception {
        ResourceName resource = fresh("mixed");
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicLong highestGranted = new AtomicLong();
        AtomicLong highestWriter = new AtomicLong();
        AtomicInteger sharedAtOnce = new AtomicInteger();
        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<LeaseManager> managers = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LeaseManager own = another();
                managers.add(own);
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 15; i++) {
                        boolean write = ThreadLocalRandom.current().nextInt(3) == 0;
                        if (write) {
                            try (Lease lease = own.acquire(resource, Duration.ofSeconds(60))) {
                                long token = lease.token().value();
                                if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                // Every lease granted before this writer has recorded its token already.
                                if (token <= highestGranted.get()) {
                                    violations.incrementAndGet();
                                }
                                highestGranted.accumulateAndGet(token, Math::max);
                                highestWriter.accumulateAndGet(token, Math::max);
                                Thread.sleep(2);
                                writers.decrementAndGet();
                            }
                        } else {
                            try (Lease lease = own.acquireShared(resource, Duration.ofSeconds(60))) {
                                long token = lease.token().value();
                                int now = readers.incrementAndGet();
                                sharedAtOnce.accumulateAndGet(now, Math::max);
                                if (writers.get() != 0 || token <= highestWriter.get()) {
                                    violations.incrementAndGet();
                                }
                                highestGranted.accumulateAndGet(token, Math::max);
                                Thread.sleep(5);
                                readers.decrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(180, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            managers.forEach(LeaseManager::close);
        }
        assertThat(violations.get()).isZero();
        assertThat(sharedAtOnce.get()).as("readers held it together at least once").isGreaterThan(1);
    }

    @Test
    void aSharedHolderReEntersAndCannotUpgrade() {
        ResourceName resource = fresh("reentry");
        try (Lease read = manager.acquireShared(resource, Duration.ZERO)) {
            try (Lease again = manager.acquireShared(resource, Duration.ZERO)) {
                assertThat(again.token()).isEqualTo(read.token());
            }
            assertThatThrownBy(() -> manager.acquire(resource, Duration.ZERO))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("shared lease");
        }
        try (Lease write = manager.acquire(resource, Duration.ZERO);
             Lease read = manager.acquireShared(resource, Duration.ZERO)) {
            assertThat(read.token()).isEqualTo(write.token());
            assertThat(read.mode()).isEqualTo(LeaseMode.EXCLUSIVE);
        }
    }
}
