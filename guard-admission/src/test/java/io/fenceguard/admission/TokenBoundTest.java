package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A token above what any lock store could have minted is refused before it can lock a resource out. */
class TokenBoundTest {

    static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "header-signing-key-of-32-bytes!!".getBytes(StandardCharsets.US_ASCII)), "k1");
    static final Instant NOW = Instant.parse("2026-11-23T14:00:00.123456Z");
    static final long NOW_MICROS = NOW.getEpochSecond() * 1_000_000L + 123_456;

    static String header(long token) {
        return KEYS.header(new Fence(ResourceName.of("account:1"), FencingToken.of(token))).value();
    }

    @Test
    void clockFloorTokensAboveNowPlusSkewAreRefusedAndTheMarkIsUntouched() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")), store, KEYS)
                .withTokenBound(TokenBound.clockFloor(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofSeconds(5)));
        long ceiling = NOW_MICROS + 5_000_000;
        assertThat(fence.tokenBound().ceiling()).isEqualTo(FencingToken.of(ceiling));

        Verdict max = fence.check("POST", "/a/1", List.of(header(Long.MAX_VALUE)));
        assertThat(max.problem()).hasValueSatisfying(p -> {
            assertThat(p.status()).isEqualTo(403);
            assertThat(p.type()).isEqualTo("urn:fenceguard:token-out-of-range");
            assertThat(p.token()).contains(FencingToken.of(Long.MAX_VALUE));
        });
        assertThat(fence.check("POST", "/a/1", List.of(header(ceiling + 1))).problem()).isPresent();
        assertThat(fence.check("POST", "/a/1", List.of(header(ceiling))).admission()).as("at the ceiling").isPresent();
        assertThat(fence.check("POST", "/a/1", List.of(header(NOW_MICROS))).problem())
                .hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(409));
    }

    @Test
    void theDefaultBoundIsTheSystemClockWithFiveSecondsOfSkew() {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                InMemoryHighWaterStore.create(), KEYS);
        long now = Instant.now().toEpochMilli() * 1_000;
        assertThat(fence.tokenBound().ceiling().value()).isBetween(now + 4_000_000, now + 7_000_000);
        assertThat(fence.check("POST", "/a/1", List.of(header(Long.MAX_VALUE))).problem()).isPresent();
        assertThat(fence.check("POST", "/a/1", List.of(header(now))).admission()).isPresent();
    }

    @Test
    void epochTokensUseAFixedCeiling() {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                InMemoryHighWaterStore.create(), KEYS).withTokenBound(TokenBound.atMost((3L << 32) - 1));
        assertThat(fence.check("POST", "/a/1", List.of(header(3L << 32))).problem()).isPresent();
        assertThat(fence.check("POST", "/a/1", List.of(header((2L << 32) + 5))).admission()).isPresent();
        assertThatThrownBy(() -> TokenBound.clockFloor(Clock.systemUTC(), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
    @Test
    void epochTokensAreBoundedByTheLastTokenOfTheHighestEpochReadAgainBeforeARefusal() throws InterruptedException {
        java.util.concurrent.atomic.AtomicLong highest = new java.util.concurrent.atomic.AtomicLong(200_000_000L);
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        TokenBound bound = TokenBound.epochs(() -> {
            reads.incrementAndGet();
            return highest.get();
        }, 16, Duration.ofHours(1));
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                InMemoryHighWaterStore.create(), KEYS).withTokenBound(bound);
        long lastOfHighest = (200_000_000L << 24) | ((1L << 24) - 1);
        assertThat(bound.highestAdmitted()).isEqualTo(FencingToken.of(lastOfHighest));
        assertThat(bound.ceiling()).as("a store's floor after a loss keeps the slack")
                .isEqualTo(FencingToken.of((200_000_016L << 24) | ((1L << 24) - 1)));
        assertThat(lastOfHighest).as("far above the clock floor's ceiling").isGreaterThan(NOW_MICROS + Duration.ofDays(365).toNanos() / 1000);

        assertThat(fence.check("POST", "/a/1", List.of(header(200_000_000L << 24))).admission()).isPresent();
        assertThat(fence.check("POST", "/a/1", List.of(header(lastOfHighest))).admission()).isPresent();
        // 60 s of µs ahead is four epochs: refused, each time after a read of its own
        int before = reads.get();
        long minuteAhead = (200_000_000L << 24) + 60_000_000L;
        for (int i = 1; i <= 3; i++) {
            assertThat(fence.check("POST", "/a/1", List.of(header(minuteAhead))).problem())
                    .hasValueSatisfying(p -> assertThat(p.type()).isEqualTo("urn:fenceguard:token-out-of-range"));
            assertThat(reads.get()).as("read again before refusing").isEqualTo(before + i);
        }

        // An epoch taken since the last read: its holder is admitted at once, after one more read.
        highest.set(200_000_010L);
        before = reads.get();
        assertThat(fence.check("POST", "/a/1", List.of(header(200_000_010L << 24))).admission()).isPresent();
        assertThat(reads.get()).isEqualTo(before + 1);
        // Far beyond the slack: refused on the read just made, no read of its own within 50 ms.
        assertThat(fence.check("POST", "/a/1", List.of(header(Long.MAX_VALUE))).problem()).isPresent();
        assertThat(reads.get()).isEqualTo(before + 1);
        Thread.sleep(60);
        assertThat(fence.check("POST", "/a/1", List.of(header(Long.MAX_VALUE))).problem()).isPresent();
        assertThat(reads.get()).isEqualTo(before + 2);
    }

    @Test
    void anEpochSourceThatCannotBeReadKeepsTheLastBoundAndRefusesBeforeAnyRead() {
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean(true);
        TokenBound bound = TokenBound.epochs(() -> {
            if (down.get()) {
                throw new IllegalStateException("database down");
            }
            return 300_000_000L;
        }, 0, Duration.ofMillis(1));
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                InMemoryHighWaterStore.create(), KEYS).withTokenBound(bound);
        assertThat(fence.check("POST", "/a/1", List.of(header(1))).problem())
                .as("no bound known yet: refused, fail closed")
                .hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(503));
        down.set(false);
        assertThat(fence.check("POST", "/a/1", List.of(header(300_000_000L << 24))).admission()).isPresent();
        down.set(true);
        assertThat(bound.ceiling()).as("the last value read")
                .isEqualTo(FencingToken.of((300_000_000L << 24) | ((1L << 24) - 1)));
        assertThat(fence.check("POST", "/a/1", List.of(header(300_000_001L << 24))).problem()).isPresent();
        assertThatThrownBy(() -> TokenBound.epochs(() -> 1, -1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
