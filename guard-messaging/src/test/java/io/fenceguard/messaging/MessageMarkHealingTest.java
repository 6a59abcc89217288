package io.fenceguard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.messaging.MessageRefusedException.Reason;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Messages share the HTTP side's bounds and its healing: on durable-epoch tokens a message a minute of µs ahead is
 * refused, one within the highest epoch that its resource was never granted is refused too, and one admitted while
 * the store had lost the counter locks the resource's holders out only until the first of their messages, single
 * or in a batch.
 */
class MessageMarkHealingTest {

    static final long EPOCH = 105_000_000L;
    static final ResourceName ACCOUNT = ResourceName.of("account:1");
    static final TokenBound BOUND = TokenBound.epochs(() -> EPOCH + 3, 16, Duration.ofSeconds(1));
    static final long UNMINTED = ((EPOCH + 3) << 24) + 9;

    final Map<ResourceName, Long> lockStore = new ConcurrentHashMap<>(Map.of(ACCOUNT, (EPOCH << 24) + 41));

    static String header(long token) {
        return "v1;r=account:1;t=" + token;
    }

    MessageAdmission healing(InMemoryHighWaterStore store) {
        return MessageAdmission.of(store).withTokenBound(BOUND)
                .withIssuedTokens(resource -> Optional.ofNullable(lockStore.get(resource)).map(FencingToken::of));
    }

    @Test
    void aMinuteAheadIsRefusedAsOutOfRange() {
        MessageAdmission admission = healing(InMemoryHighWaterStore.create());
        assertThatThrownBy(() -> admission.admit(header((EPOCH << 24) + 60_000_000L * 4), "kafka:t-0@1"))
                .isInstanceOfSatisfying(MessageRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.OUT_OF_RANGE));
    }

    @Test
    void aTokenNeverGrantedForItsResourceIsRefused() {
        MessageAdmission admission = healing(InMemoryHighWaterStore.create());
        assertThatThrownBy(() -> admission.admit(header(UNMINTED), "kafka:t-0@1"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.OUT_OF_RANGE);
                    assertThat(e.getMessage()).contains("granted");
                });
        assertThat(admission.admit(header((EPOCH << 24) + 41), "kafka:t-0@2").token().value()).isEqualTo((EPOCH << 24) + 41);
        List<MessageAdmission.Decision> batch = admission.admitAll(List.of(
                new MessageAdmission.Delivery(List.of(header(UNMINTED)), "kafka:t-0@3")));
        assertThat(batch.get(0).refusal().reason()).isEqualTo(Reason.OUT_OF_RANGE);
    }

    @Test
    void anUnmintedMarkAdmittedWhileTheCounterWasLostIsSetBackAtTheFirstHoldersMessage() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        MessageAdmission admission = healing(store);
        lockStore.clear();
        assertThat(admission.admit(header(UNMINTED), "kafka:t-0@1").token().value()).isEqualTo(UNMINTED);

        lockStore.put(ACCOUNT, (EPOCH << 24) + 42);
        assertThat(admission.admit(header((EPOCH << 24) + 42), "kafka:t-0@2").token().value())
                .isEqualTo((EPOCH << 24) + 42);
        assertThat(admission.markHealing().orElseThrow().healed()).isEqualTo(1);
        assertThatThrownBy(() -> admission.admit(header((EPOCH << 24) + 41), "kafka:t-0@3"))
                .as("an older holder stays stale").isInstanceOfSatisfying(MessageRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.STALE));

        // the control: without what the store granted the same mark refuses every later holder
        InMemoryHighWaterStore other = InMemoryHighWaterStore.create();
        MessageAdmission plain = MessageAdmission.of(other).withTokenBound(BOUND);
        plain.admit(header(UNMINTED), "kafka:t-0@1");
        assertThatThrownBy(() -> plain.admit(header((EPOCH << 24) + 42), "kafka:t-0@2"))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.STALE));
    }

    @Test
    void aBatchIsHealedToo() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        MessageAdmission admission = healing(store);
        lockStore.clear();
        admission.admit(header(UNMINTED), "kafka:t-0@1");
        lockStore.put(ACCOUNT, (EPOCH << 24) + 43);
        List<MessageAdmission.Decision> decisions = admission.admitAll(List.of(
                new MessageAdmission.Delivery(List.of(header((EPOCH << 24) + 43)), "kafka:t-0@2"),
                new MessageAdmission.Delivery(List.of("v1;r=account:2;t=5"), "kafka:t-0@3")));
        assertThat(decisions).allMatch(MessageAdmission.Decision::admitted);
        assertThat(decisions.get(0).fence()).isEqualTo(new Fence(ACCOUNT, FencingToken.of((EPOCH << 24) + 43)));
        assertThat(admission.markHealing().orElseThrow().healed()).isEqualTo(1);
    }
}
