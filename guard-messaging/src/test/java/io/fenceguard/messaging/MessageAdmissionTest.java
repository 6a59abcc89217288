package io.fenceguard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Refusal;
import io.fenceguard.core.ResourceName;
import io.fenceguard.messaging.MessageRefusedException.Reason;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Admission of message fences on the in-memory high-water store: the decisions and the refusal reasons. */
class MessageAdmissionTest {

    private final List<Refusal> refusals = new CopyOnWriteArrayList<>();
    private final List<Reason> told = new CopyOnWriteArrayList<>();
    private final MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create(), refusal -> {
        refusals.add(refusal);
        told.add(refusal.original(MessageRefusedException.class).orElseThrow().reason());
    });

    @Test
    void aNewerTokenClaimsTheSameContinuesAnOlderIsStale() {
        assertThat(admission.admit("v1;r=account:1;t=10", "test")).isEqualTo(Fence.of("account:1", "10"));
        assertThat(admission.admit("v1;r=account:1;t=10", "test")).isEqualTo(Fence.of("account:1", "10"));
        assertThat(admission.admit("v1;r=account:1;t=11", "test")).isEqualTo(Fence.of("account:1", "11"));
        assertThatThrownBy(() -> admission.admit("v1;r=account:1;t=10", "kafka:orders-0@7"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.STALE);
                    assertThat(e.highWater()).hasValueSatisfying(hw -> assertThat(hw.value()).isEqualTo(11));
                    assertThat(e.resource().value()).isEqualTo("account:1");
                    assertThat(e.getMessage()).contains("kafka:orders-0@7", "account:1", "10", "11");
                });
        assertThat(admission.admit("v1;r=account:2;t=1", "test")).as("marks are per resource").isNotNull();
        assertThat(told).containsExactly(Reason.STALE);
        assertThat(refusals).singleElement().satisfies(refusal -> {
            assertThat(refusal.layer()).isEqualTo(Refusal.Layer.MESSAGING);
            assertThat(refusal.reason()).isEqualTo("stale");
            assertThat(refusal.where()).contains("kafka:orders-0@7");
            assertThat(refusal.resource()).contains(ResourceName.of("account:1"));
            assertThat(refusal.token()).contains(FencingToken.of(10));
            assertThat(refusal.highWater()).contains(FencingToken.of(11));
        });
    }

    @Test
    void missingMalformedAndSeveralFencesAreRefusedBeforeTheStore() {
        assertThatThrownBy(() -> admission.admit(null, "test")).isInstanceOfSatisfying(MessageRefusedException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.MISSING));
        assertThatThrownBy(() -> admission.admitHeaders(List.of(), "test")).isInstanceOfSatisfying(MessageRefusedException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.MISSING));
        for (String bad : List.of("", "v1;r=account:1", "v2;r=account:1;t=1", "v1;r=account:1;t=01",
                "v1;r=account:1;t=-1", "v1;r=a b;t=1", "v1;r=account:1;t=99999999999999999999")) {
            assertThatThrownBy(() -> admission.admit(bad, "test")).as(bad)
                    .isInstanceOfSatisfying(MessageRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
        }
        assertThatThrownBy(() -> admission.admitHeaders(List.of("v1;r=account:1;t=1", "v1;r=account:1;t=2"), "test"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.MALFORMED);
                    assertThat(e.getMessage()).contains("2 Fencing-Token headers");
                });
        assertThat(admission.admit("v1;r=account:1;t=1", "test")).as("nothing above reached the store").isNotNull();
    }

    @Test
    void aStoreThatCannotAnswerRefusesAndAListenerThatThrowsChangesNothing() {
        MessageAdmission failing = MessageAdmission.of(fence -> {
            throw new IllegalStateException("connection refused");
        }, refusal -> {
            throw new IllegalStateException("listener broke");
        });
        assertThatThrownBy(() -> failing.admit("v1;r=account:1;t=1", "test"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.STORE_UNAVAILABLE);
                    assertThat(e.getMessage()).contains("connection refused");
                });
    }

    @Test
    void aTokenAboveTheBoundIsRefusedBeforeItCanRaiseTheMark() {
        MessageAdmission bounded = admission.withTokenBound(io.fenceguard.admission.TokenBound.atMost(100));
        assertThatThrownBy(() -> bounded.admit("v1;r=account:1;t=101", "kafka:orders-0@9"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.OUT_OF_RANGE);
                    assertThat(e.getMessage()).contains("kafka:orders-0@9", "account:1");
                });
        assertThat(bounded.admit("v1;r=account:1;t=100", "test")).as("the mark was not raised")
                .isEqualTo(Fence.of("account:1", "100"));
        assertThat(told).containsExactly(Reason.OUT_OF_RANGE);
    }

    /**
     * A header seen before is parsed once, but each message with it is still checked: against a bound that moved
     * since, and against the mark; and other headers in between get their own fences.
     */
    @Test
    void aRepeatedHeaderIsCheckedAgainForEachMessage() {
        java.util.concurrent.atomic.AtomicLong ceiling = new java.util.concurrent.atomic.AtomicLong(100);
        MessageAdmission bounded = admission.withTokenBound(() -> FencingToken.of(ceiling.get()));
        assertThat(bounded.admit("v1;r=account:1;t=50", "a")).isEqualTo(Fence.of("account:1", "50"));
        assertThat(bounded.admit("v1;r=account:2;t=7", "b")).isEqualTo(Fence.of("account:2", "7"));
        assertThat(bounded.admit(new String("v1;r=account:1;t=50"), "c")).isEqualTo(Fence.of("account:1", "50"));
        ceiling.set(49);
        assertThatThrownBy(() -> bounded.admit("v1;r=account:1;t=50", "d"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.OUT_OF_RANGE);
                    assertThat(e.getMessage()).contains("from d");
                });
        ceiling.set(100);
        assertThat(bounded.admit("v1;r=account:1;t=60", "e")).isEqualTo(Fence.of("account:1", "60"));
        assertThatThrownBy(() -> bounded.admit("v1;r=account:1;t=50", "f"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.STALE));
        assertThatThrownBy(() -> bounded.admit("v1;r=account:1;t=050", "g"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
        assertThat(told).containsExactly(Reason.OUT_OF_RANGE, Reason.STALE, Reason.MALFORMED);
    }

    /**
     * A batch gets the answers its messages would get admitted one after another: random batches over three
     * resources (repeated fences, runs of one header, older and newer tokens, unfenced and malformed messages),
     * decided in one call on one store and one by one on another, from the same marks; with a token bound too, so
     * that a run of one header above it is refused message by message.
     */
    @Test
    void aBatchIsDecidedAsIfItsMessagesWereAdmittedOneAfterAnother() {
        assertBatchesDecidedOneAfterAnother(MessageAdmission.of(InMemoryHighWaterStore.create()),
                MessageAdmission.of(InMemoryHighWaterStore.create()));
        io.fenceguard.admission.TokenBound bound = io.fenceguard.admission.TokenBound.atMost(30);
        assertThat(assertBatchesDecidedOneAfterAnother(
                MessageAdmission.of(InMemoryHighWaterStore.create()).withTokenBound(bound),
                MessageAdmission.of(InMemoryHighWaterStore.create()).withTokenBound(bound)))
                .as("runs above the bound").contains(Reason.OUT_OF_RANGE);
    }

    /** Answers the reasons of the refusals seen. */
    private static java.util.Set<Reason> assertBatchesDecidedOneAfterAnother(MessageAdmission batched,
            MessageAdmission single) {
        java.util.Random random = new java.util.Random(42);
        java.util.Set<Reason> seen = java.util.EnumSet.noneOf(Reason.class);
        for (int round = 0; round < 200; round++) {
            List<MessageAdmission.Delivery> batch = new java.util.ArrayList<>();
            for (int i = 0, n = random.nextInt(12); i < n; i++) {
                int kind = random.nextInt(20);
                List<String> headers = kind == 0 ? List.of() : kind == 1 ? List.of("v1;r=account 1;t=1")
                        : List.of("v1;r=account:" + random.nextInt(3) + ";t=" + (1 + round / 4 + random.nextInt(4)));
                if (i > 0 && random.nextInt(3) == 0) {
                    // a run: the header before, as an equal string of its own
                    headers = batch.get(i - 1).headerValues().stream().map(String::new).toList();
                }
                batch.add(new MessageAdmission.Delivery(headers, "test-" + round + "-" + i));
            }
            List<MessageAdmission.Decision> decisions = batched.admitAll(batch);
            assertThat(decisions).hasSize(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                MessageAdmission.Delivery delivery = batch.get(i);
                MessageAdmission.Decision decision = decisions.get(i);
                try {
                    Fence fence = single.admitHeaders(delivery.headerValues(), delivery.source());
                    assertThat(decision.fence()).as(round + ": " + delivery).isEqualTo(fence);
                } catch (MessageRefusedException refused) {
                    seen.add(refused.reason());
                    assertThat(decision.admitted()).as(round + ": " + delivery).isFalse();
                    assertThat(decision.refusal().reason()).isEqualTo(refused.reason());
                    assertThat(decision.refusal().highWater()).isEqualTo(refused.highWater());
                    assertThat(decision.refusal().getMessage()).contains(delivery.source());
                }
            }
        }
        assertThat(seen).as("the batches had stale, unfenced and malformed messages")
                .contains(Reason.STALE, Reason.MISSING, Reason.MALFORMED);
        return seen;
    }

    @Test
    void aBatchTheStoreCannotAnswerIsRefusedWhole() {
        List<Reason> heard = new CopyOnWriteArrayList<>();
        MessageAdmission failing = MessageAdmission.of(fence -> {
            throw new IllegalStateException("connection refused");
        }, refusal -> heard.add(refusal.original(MessageRefusedException.class).orElseThrow().reason()));
        List<MessageAdmission.Decision> decisions = failing.admitAll(List.of(
                new MessageAdmission.Delivery(List.of("v1;r=account:1;t=1"), "a"),
                new MessageAdmission.Delivery(List.of(), "b"),
                new MessageAdmission.Delivery(List.of("v1;r=account:1;t=1"), "c")));
        assertThat(decisions).extracting(d -> d.refusal().reason())
                .containsExactly(Reason.STORE_UNAVAILABLE, Reason.MISSING, Reason.STORE_UNAVAILABLE);
        assertThat(decisions.get(2).refusal().getMessage()).contains("connection refused", "c");
        assertThat(heard).containsExactlyInAnyOrder(Reason.STORE_UNAVAILABLE, Reason.MISSING, Reason.STORE_UNAVAILABLE);
        assertThat(failing.admitAll(List.of())).isEmpty();
    }
}
