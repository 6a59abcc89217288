package io.fenceguard.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** When leases are put on their beat: short ones never reach the scheduler, held ones are renewed on time. */
class WatchdogTest {

    private static final Duration LEASE = Duration.ofMillis(600);
    private static final long INTERVAL = TimeUnit.MILLISECONDS.toNanos(200);

    /** The in-memory store, recording when each holder's renewals were sent. */
    private static final class RecordingStore implements LeaseProvider {
        final InMemoryLeaseProvider memory = InMemoryLeaseProvider.create();
        final Map<String, List<Long>> renewedAt = new ConcurrentHashMap<>();

        @Override
        public Grant acquire(LeaseRequest request, Duration wait) {
            return memory.acquire(request, wait);
        }

        @Override
        public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
            renewedAt.computeIfAbsent(request.holder(), h -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
            return memory.renew(request, grant);
        }

        @Override
        public boolean release(LeaseRequest request, Grant grant) {
            return memory.release(request, grant);
        }
    }

    private final RecordingStore store = new RecordingStore();
    private final LossEvents events = LossEvents.on(null, "watchdog-test");
    private final Watchdog watchdog = new Watchdog("watchdog-test", store);

    @AfterEach
    void close() {
        watchdog.close();
        events.close();
    }

    private LeaseState grant(String resource, String holder) {
        LeaseRequest request = new LeaseRequest(ResourceName.of(resource), holder, LEASE,
                LeaseMode.EXCLUSIVE);
        Grant grant = store.acquire(request, Duration.ZERO);
        return new LeaseState(new Fence(request.resource(), grant.token()), request, grant,
                LEASE.toNanos(), grant.sentAtNanos(), events);
    }

    @Test
    void leasesReleasedBeforeTheirAdmissionNeverReachTheSchedulerNorTheStore() throws Exception {
        for (int i = 0; i < 5_000; i++) {
            LeaseState state = grant("short-" + i, "short-holder-" + i);
            watchdog.watch(state, INTERVAL);
            assertThat(state.exit()).isTrue();
        }
        LeaseState held = grant("held", "held-holder");
        watchdog.watch(held, INTERVAL);
        Thread.sleep(50);

        // The held lease's renewal beat, its deadline check and its risk check; nothing of the 5,000 released ones.
        assertThat(watchdog.scheduledTasks()).isEqualTo(3);
        Thread.sleep(3 * INTERVAL / 1_000_000);
        assertThat(store.renewedAt.keySet()).containsExactly("held-holder");
        assertThat(held.isValid()).isTrue();

        assertThat(held.exit()).isTrue();
        Thread.sleep(20);
        assertThat(watchdog.scheduledTasks()).isZero();
    }

    @Test
    void aHeldLeaseIsFirstRenewedHalfAnIntervalToOneIntervalAfterItsGrantAndKeptPastItsLease() throws Exception {
        LeaseState state = grant("kept", "kept-holder");
        long grantedAt = state.grant().sentAtNanos();
        watchdog.watch(state, INTERVAL);
        Thread.sleep(LEASE.toMillis() + 300);

        assertThat(state.isValid()).as("renewed past its lease").isTrue();
        List<Long> renewals = store.renewedAt.get("kept-holder");
        assertThat(renewals).hasSizeGreaterThanOrEqualTo(3);
        long first = renewals.get(0) - grantedAt;
        // Scheduling slack on a loaded machine: the beat may run late, never early.
        assertThat(first).isBetween(INTERVAL / 2, INTERVAL + TimeUnit.MILLISECONDS.toNanos(60));
        state.exit();
    }
}
