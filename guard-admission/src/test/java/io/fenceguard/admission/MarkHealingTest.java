package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Every token format: a token within its bound that the lock store never granted for the resource is refused when
 * the store can tell; admitted while it cannot (a lost counter), its mark refuses the resource's holders only until
 * the first of them is refused, when the mark goes back to the store's highest token. The control: the same fence
 * without what the store granted keeps refusing them.
 */
class MarkHealingTest {

    static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "header-signing-key-of-32-bytes!!".getBytes(StandardCharsets.US_ASCII)), "k1");
    static final ResourceName ACCOUNT = ResourceName.of("account:1");
    static final Instant NOW = Instant.parse("2026-11-29T01:00:00Z");
    static final long NOW_MICROS = NOW.getEpochSecond() * 1_000_000L;
    static final long EPOCH = 105_000_000L; // about now in µs / 2^24, as a fresh sequence starts

    /** A token format: its bound, the token the store minted last for the resource, and a token it never minted. */
    record Format(String name, TokenBound bound, long minted, long unminted) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Format> formats() {
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        return Stream.of(
                // the clock floor's tokens are the store's time: one 4 s ahead is within 5 s of skew
                new Format("clock floor", TokenBound.clockFloor(clock, Duration.ofSeconds(5)),
                        NOW_MICROS - 1_000, NOW_MICROS + 4_000_000),
                // a durable epoch: the resource's epoch is below the highest; a token of the highest is within bound
                new Format("durable epoch", TokenBound.epochs(() -> EPOCH + 3, 0, Duration.ofSeconds(1)),
                        (EPOCH << 24) + 41, ((EPOCH + 3) << 24) + 5),
                // counters (ZooKeeper zxid, etcd revision, Hazelcast fence, lease table) under the clock floor's bound
                new Format("zxid", TokenBound.clockFloor(clock, Duration.ofSeconds(5)), 0x3_0000_0042L, 0x3_0100_0000L),
                new Format("etcd revision", TokenBound.clockFloor(clock, Duration.ofSeconds(5)), 8_311, 9_000_000_000L),
                new Format("hazelcast fence", TokenBound.atMost(Long.MAX_VALUE), 17, 1L << 40),
                new Format("lease table", TokenBound.clockFloor(clock, Duration.ofSeconds(5)), 230, NOW_MICROS));
    }

    static String header(long token) {
        return KEYS.header(new Fence(ACCOUNT, FencingToken.of(token))).value();
    }

    /** The resource's mark (every mark here is above 1, so the probe changes nothing). */
    static FencingToken mark(HighWaterStore store) {
        return store.admit(new Fence(ACCOUNT, FencingToken.of(1))).highWater();
    }

    static InboundFence fence(HighWaterStore store, TokenBound bound) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")), store, KEYS)
                .withTokenBound(bound);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void aTokenNeverGrantedForItsResourceIsRefusedBeforeItSetsAMark(Format format) {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        Map<ResourceName, Long> lockStore = new ConcurrentHashMap<>(Map.of(ACCOUNT, format.minted()));
        AtomicInteger asked = new AtomicInteger();
        InboundFence fence = fence(store, format.bound()).withIssuedTokens(resource -> {
            asked.incrementAndGet();
            return Optional.ofNullable(lockStore.get(resource)).map(FencingToken::of);
        });
        assertThat(format.bound().allows(FencingToken.of(format.unminted()))).as("within the format's bound").isTrue();

        assertThat(fence.check("POST", "/a/1", List.of(header(format.unminted()))).problem())
                .hasValueSatisfying(p -> {
                    assertThat(p.status()).isEqualTo(403);
                    assertThat(p.type()).isEqualTo("urn:fenceguard:token-out-of-range");
                    assertThat(p.detail()).contains(Long.toString(format.minted()), "granted");
                });
        assertThat(fence.check("POST", "/a/1", List.of(header(format.minted()))).admission()).isPresent();
        assertThat(mark(store)).isEqualTo(FencingToken.of(format.minted()));
        int before = asked.get();
        assertThat(fence.check("POST", "/a/1", List.of(header(format.minted()))).admission()).isPresent();
        assertThat(asked.get()).as("a token at most the highest seen asks the store nothing").isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void anUnmintedMarkAdmittedWhileTheStoreCouldNotTellLocksHoldersOutOnlyUntilTheFirstRefusal(Format format) {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        Map<ResourceName, Long> lockStore = new ConcurrentHashMap<>();   // the counter is lost: the store cannot tell
        InboundFence healing = fence(store, format.bound())
                .withIssuedTokens(resource -> Optional.ofNullable(lockStore.get(resource)).map(FencingToken::of));

        assertThat(healing.check("POST", "/a/1", List.of(header(format.unminted()))).admission())
                .as("within the bound, nothing known: admitted").isPresent();
        assertThat(mark(store)).isEqualTo(FencingToken.of(format.unminted()));

        // the store grants the next lease: its holder is admitted at once and the mark follows what was minted
        lockStore.put(ACCOUNT, format.minted() + 1);
        Verdict next = healing.check("POST", "/a/1", List.of(header(format.minted() + 1)));
        assertThat(next.admission()).as("the current holder").isPresent();
        assertThat(mark(store)).isEqualTo(FencingToken.of(format.minted() + 1));
        assertThat(healing.markHealing().orElseThrow().healed()).isEqualTo(1);

        // the holder before it is still stale: the mark went back only to what the store minted
        assertThat(healing.check("POST", "/a/1", List.of(header(format.minted()))).problem())
                .hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(409));
        assertThat(healing.markHealing().orElseThrow().healed()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void withoutWhatTheStoreMintedTheHoldersStayLockedOut(Format format) {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        InboundFence plain = fence(store, format.bound());
        assertThat(plain.check("POST", "/a/1", List.of(header(format.unminted()))).admission()).isPresent();
        for (int grant = 1; grant <= 100; grant++) {
            assertThat(plain.check("POST", "/a/1", List.of(header(format.minted() + grant))).problem())
                    .as("holder of grant %d", grant).hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(409));
        }
        assertThat(mark(store)).isEqualTo(FencingToken.of(format.unminted()));
    }

    @Test
    void aMintedMarkOrAStoreThatCannotTellKeepsTheRefusalAndTheMark() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        Fence newer = new Fence(ACCOUNT, FencingToken.of(50));
        Fence older = new Fence(ACCOUNT, FencingToken.of(40));
        store.admit(newer);
        Admission stale = store.admit(older);
        assertThat(stale.admitted()).isFalse();

        MarkHealing minted = MarkHealing.of(store, resource -> Optional.of(FencingToken.of(50)));
        assertThat(minted.heal(stale)).isSameAs(stale);
        MarkHealing lost = MarkHealing.of(store, resource -> Optional.empty());
        assertThat(lost.heal(stale)).isSameAs(stale);
        MarkHealing down = MarkHealing.of(store, resource -> {
            throw new IllegalStateException("lock store down");
        });
        assertThat(down.heal(stale)).isSameAs(stale);
        MarkHealing noReset = MarkHealing.of(fence -> store.admit(fence), resource -> Optional.of(FencingToken.of(1)));
        assertThat(noReset.heal(stale)).isSameAs(stale);
        assertThat(mark(store)).isEqualTo(FencingToken.of(50));
        assertThat(minted.healed() + lost.healed() + down.healed() + noReset.healed()).isZero();
    }

    @Test
    void aNewerClaimBetweenTheReadAndTheSetBackWins() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        store.admit(new Fence(ACCOUNT, FencingToken.of(1_000)));
        Admission stale = store.admit(new Fence(ACCOUNT, FencingToken.of(7)));
        // the store grants 2_000 and its holder claims after the heal read 7 as the highest minted
        MarkHealing healing = MarkHealing.of(store, resource -> {
            store.admit(new Fence(ACCOUNT, FencingToken.of(2_000)));
            return Optional.of(FencingToken.of(7));
        });
        Admission after = healing.heal(stale);
        assertThat(after.admitted()).isFalse();
        assertThat(mark(store)).isEqualTo(FencingToken.of(2_000));
        assertThat(healing.healed()).isZero();
    }

    @Test
    void aHandlerOrderForgetsASucceededTokenWhoseMarkWasSetBack() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        HandlerOrder order = HandlerOrder.create();
        MarkHealing healing = MarkHealing.of(store, resource -> Optional.of(FencingToken.of(41)));
        healing.whenSetBack(order::setBack);
        Admission unminted = store.admit(new Fence(ACCOUNT, FencingToken.of(9_000)));
        assertThat(order.enter(unminted).admission()).isPresent();
        order.exit(unminted, true);

        Admission holder = healing.heal(store.admit(new Fence(ACCOUNT, FencingToken.of(41))));
        assertThat(holder.admitted()).isTrue();
        assertThat(order.enter(holder).admission()).as("the unminted handler no longer holds it back").isPresent();
        order.exit(holder, true);
        Admission older = store.admit(new Fence(ACCOUNT, FencingToken.of(41)));
        assertThat(order.enter(new Admission(new Fence(ACCOUNT, FencingToken.of(40)), FencingToken.of(41),
                Admission.Outcome.CONTINUED)).problem()).as("an older one is still held back by the holder's")
                .isPresent();
        assertThat(older.admitted()).isTrue();
    }
}
