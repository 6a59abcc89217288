package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Renewal answers that take long, as on a slow link: the lease is kept as long as an answer comes back
 * before the deadline its own request set (round trip under lease − interval − drift), and lost with
 * {@code EXPIRED} at the deadline when it does not.
 */
class SlowRenewalTest {

    /** The store answers each renewal {@code delay} after it was asked (it did renew at once). */
    private static final class SlowAnswers implements LeaseProvider {
        private final LeaseProvider memory = InMemoryLeaseProvider.create();
        private final long delayMillis;

        SlowAnswers(long delayMillis) {
            this.delayMillis = delayMillis;
        }

        @Override
        public Grant acquire(LeaseRequest request, Duration wait) {
            return memory.acquire(request, wait);
        }

        @Override
        public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
            CompletionStage<Boolean> answer = memory.renew(request, grant);
            return answer.thenCompose(ours -> CompletableFuture.supplyAsync(() -> ours,
                    CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS)));
        }

        @Override
        public boolean release(LeaseRequest request, Grant grant) {
            return memory.release(request, grant);
        }
    }

    @ParameterizedTest(name = "lease 2000 ms, renewal every 400 ms, answers after {0} ms: kept = {1}")
    @CsvSource({"1200, true", "2200, false"})
    void aLeaseIsKeptWhileAnswersBeatTheDeadlineTheirRequestSet(long delayMillis, boolean kept) throws Exception {
        LeaseManager manager = LeaseManager.of(new SlowAnswers(delayMillis), LeaseConfig.builder()
                .leaseTime(Duration.ofMillis(2000)).renewInterval(Duration.ofMillis(400)).build());
        try (Lease lease = manager.acquire("slow:" + delayMillis, Duration.ofSeconds(1))) {
            List<LeaseLossReason> lost = new CopyOnWriteArrayList<>();
            CompletableFuture<Long> lostAt = new CompletableFuture<>();
            long start = System.nanoTime();
            lease.onLost((l, reason) -> {
                lost.add(reason);
                lostAt.complete(System.nanoTime());
            });
            Thread.sleep(6_000);
            if (kept) {
                assertThat(lease.isValid()).isTrue();
                assertThat(lost).isEmpty();
            } else {
                assertThat(lost).containsExactly(LeaseLossReason.EXPIRED);
                // Told at the deadline (2 s after the acquire was sent, less the drift allowance), not later.
                assertThat(Duration.ofNanos(lostAt.get() - start)).isLessThan(Duration.ofMillis(2_600));
            }
        } finally {
            manager.close();
        }
    }
}
