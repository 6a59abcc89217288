package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Release requests within one manager (a provider that carries none between processes): the holder decides. */
class ReleaseRequestTest {

    private final LeaseManager manager = LeaseManager.of(InMemoryLeaseProvider.create(),
            LeaseConfig.builder().leaseTime(Duration.ofSeconds(5)).build());

    @AfterEach
    void close() {
        manager.close();
    }

    @Test
    void theHolderIsToldWithTheReasonAndMayReleaseSoThatTheAskingPartyGetsTheLease() throws Exception {
        Lease lease = manager.acquire("report:1", Duration.ZERO);
        CompletableFuture<String> told = new CompletableFuture<>();
        lease.onReleaseRequested((l, reason) -> {
            told.complete(reason);
            l.close();
        });
        List<String> observed = new CopyOnWriteArrayList<>();
        manager.addObserver(new LeaseObserver() {
            @Override
            public void releaseRequested(Lease l, String reason) {
                observed.add(l.resource() + " " + reason);
            }
        });

        CompletableFuture<Lease> asker = CompletableFuture.supplyAsync(() -> {
            assertThat(manager.requestRelease("report:1", "nightly rebuild")).isTrue();
            return manager.acquire("report:1", Duration.ofSeconds(3));
        });
        assertThat(told.get(3, TimeUnit.SECONDS)).isEqualTo("nightly rebuild");
        try (Lease next = asker.get(5, TimeUnit.SECONDS)) {
            assertThat(next.token()).isGreaterThan(lease.token());
            assertThat(lease.isValid()).isFalse();
        }
        // Observers are told on the event executor, as the listeners are.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (observed.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(observed).containsExactly("report:1 nightly rebuild");
    }

    @Test
    void requestsAreToldOneAtATimeInTheOrderTheyCameEvenToASlowListener() throws Exception {
        try (Lease lease = manager.acquire("report:3", Duration.ZERO)) {
            List<String> told = new CopyOnWriteArrayList<>();
            List<String> observed = new CopyOnWriteArrayList<>();
            lease.onReleaseRequested((l, reason) -> {
                // the first one is slow: on its own thread, a later request would overtake it
                if (reason.equals("0")) {
                    sleep(200);
                }
                told.add(reason);
            });
            manager.addObserver(new LeaseObserver() {
                @Override
                public void releaseRequested(Lease l, String reason) {
                    observed.add(reason);
                }
            });

            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                sent.add(Integer.toString(i));
                assertThat(manager.requestRelease(ResourceName.of("report:3"), Integer.toString(i))).isTrue();
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((told.size() < sent.size() || observed.size() < sent.size()) && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            assertThat(told).containsExactlyElementsOf(sent);
            assertThat(observed).containsExactlyElementsOf(sent);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aHolderThatIgnoresTheRequestKeepsItsLeaseAndAThrowingListenerStopsNoOther() throws Exception {
        try (Lease lease = manager.acquire("report:2", Duration.ZERO)) {
            List<String> told = new CopyOnWriteArrayList<>();
            lease.onReleaseRequested((l, reason) -> {
                throw new IllegalStateException("a listener that fails");
            });
            lease.onReleaseRequested((l, reason) -> told.add(reason));

            assertThat(manager.requestRelease(ResourceName.of("report:2"), "first")).isTrue();
            assertThat(manager.requestRelease(ResourceName.of("report:2"), "second")).isTrue();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (told.size() < 2 && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            assertThat(told).containsExactly("first", "second");
            assertThat(lease.isValid()).isTrue();
            // Another thread (this one would re-enter): the lock is still held.
            assertThat(CompletableFuture.supplyAsync(() -> manager.tryAcquire("report:2")).get(3, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void nobodyIsToldOnceTheLeaseIsReleasedAndAnUnheldResourceSaysSo() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        Lease lease = manager.acquire("report:3", Duration.ZERO);
        lease.onReleaseRequested((l, reason) -> told.add(reason));
        lease.close();

        assertThat(manager.requestRelease("report:3", "too late")).isFalse();
        assertThat(manager.requestRelease("report:never-held", "nobody")).isFalse();
        Thread.sleep(100);
        assertThat(told).isEmpty();
        assertThatThrownBy(() -> manager.requestRelease("report:3", null)).isInstanceOf(IllegalArgumentException.class);
    }
}
