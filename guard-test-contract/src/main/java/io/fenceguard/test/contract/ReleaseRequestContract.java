package io.fenceguard.test.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.spi.LeaseProvider;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Release requests between two managers, each on a client and provider of its own as in two processes: the holder
 * hears each request with its own reason and decides; a resource nobody holds says so; a released lease hears
 * nothing more.
 */
public abstract class ReleaseRequestContract {

    /** A provider on a client of its own, for the holder. */
    protected abstract LeaseProvider holderProvider();

    /** A provider on another client of its own, for the one that asks. */
    protected abstract LeaseProvider askerProvider();

    /** The managers' lease configuration. */
    protected abstract LeaseConfig leaseConfig();

    /** Whether requests reach the holder in the order they were made (else in any order, but each once). */
    protected boolean tellsInOrder() {
        return true;
    }

    @Test
    void theHolderInAnotherProcessIsToldAndReleasesSoThatTheAskingOneGetsTheLease() throws Exception {
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = LeaseManager.of(holderProvider(), leaseConfig());
             LeaseManager asker = LeaseManager.of(askerProvider(), leaseConfig())) {
            Lease lease = holder.acquire(resource, Duration.ofSeconds(5));
            CompletableFuture<String> told = new CompletableFuture<>();
            lease.onReleaseRequested((l, reason) -> {
                told.complete(reason);
                l.close();
            });

            assertThat(asker.tryAcquire(resource)).as("held by the other manager").isEmpty();
            assertThat(asker.requestRelease(resource, "rebuild of the monthly report")).isTrue();
            assertThat(told.get(5, TimeUnit.SECONDS)).isEqualTo("rebuild of the monthly report");
            try (Lease next = asker.acquire(resource, Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(lease.token());
                assertThat(lease.isValid()).as("the lease the holder gave back").isFalse();
            }
        }
    }

    @Test
    void eachRequestIsToldWithItsReasonWhileHeldAndNoneAfterTheRelease() throws Exception {
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = LeaseManager.of(holderProvider(), leaseConfig());
             LeaseManager asker = LeaseManager.of(askerProvider(), leaseConfig())) {
            assertThat(asker.requestRelease(resource, "nobody holds it")).isFalse();

            Lease lease = holder.acquire(resource, Duration.ofSeconds(5));
            List<String> told = new CopyOnWriteArrayList<>();
            lease.onReleaseRequested((l, reason) -> told.add(reason));
            assertThat(asker.requestRelease(resource, "first")).isTrue();
            assertThat(asker.requestRelease(resource, "second")).isTrue();
            await(() -> told.size() == 2);
            assertToldFirstAndSecond(told);
            assertThat(lease.isValid()).as("the holder decides: it kept the lease").isTrue();

            lease.close();
            assertThat(asker.requestRelease(resource, "after the release")).isFalse();
            Thread.sleep(300);
            assertToldFirstAndSecond(told);
        }
    }

    private void assertToldFirstAndSecond(List<String> told) {
        if (tellsInOrder()) {
            assertThat(told).containsExactly("first", "second");
        } else {
            assertThat(told).containsExactlyInAnyOrder("first", "second");
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within 5 s");
            }
            Thread.sleep(5);
        }
    }
}
