package io.fenceguard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.messaging.MessageRefusedException.Reason;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Admission of message fences on the in-memory high-water store: the decisions and the refusal reasons. */
class MessageAdmissionTest {

    private final List<Reason> told = new CopyOnWriteArrayList<>();
    private final MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create(),
            (source, refusal) -> told.add(refusal.reason()));

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
        }, (source, refusal) -> {
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
}
