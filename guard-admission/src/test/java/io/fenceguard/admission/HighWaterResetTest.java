package io.fenceguard.admission;

import static io.fenceguard.admission.support.HighWaterResetFixture.HEADER_KEY;
import static io.fenceguard.admission.support.HighWaterResetFixture.KEYS;
import static io.fenceguard.admission.support.HighWaterResetFixture.MAX;
import static io.fenceguard.admission.support.HighWaterResetFixture.NOW;
import static io.fenceguard.admission.support.HighWaterResetFixture.OPERATOR_KEY;
import static io.fenceguard.admission.support.HighWaterResetFixture.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.support.HighWaterResetFixture;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The way back from a permanent lock-out: a validly signed header with t = 2^63-1 (admitted before the
 * token bound existed, or from a store filled by hand) is undone by an operator's signed reset order,
 * which needs the operator key, not a header key, and leaves an audit record. (On the JDBC store:
 * fenceguard-jdbc's HighWaterResetOnPostgresTest.)
 */
class HighWaterResetTest {

    final HighWaterResetFixture fixture = new HighWaterResetFixture();
    final List<HighWaterReset.Record> audit = fixture.audit();

    @Test
    void ordersSignedWithAHeaderKeyForgedExpiredOrReplayedAreRefusedAndChangeNothing() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        ResourceName r = ResourceName.of("account:7");
        store.admit(new Fence(r, MAX));
        HighWaterReset reset = fixture.reset(store, NOW);
        FencingToken low = FencingToken.of(5);

        assertThatThrownBy(() -> reset.apply(order(HEADER_KEY, r, MAX, low, NOW)))
                .isInstanceOf(FenceHeaderException.class).hasMessageContaining("signature");
        String good = order(OPERATOR_KEY, r, MAX, low, NOW);
        String tampered = good.replace("to=5", "to=6");
        assertThatThrownBy(() -> reset.apply(tampered)).hasMessageContaining("signature");
        assertThatThrownBy(() -> reset.apply(order(OPERATOR_KEY, r, MAX, low, NOW.minus(Duration.ofMinutes(6)))))
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> reset.apply(order(OPERATOR_KEY, r, MAX, low, NOW.plus(Duration.ofMinutes(6)))))
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> reset.apply("v1;r=account:7")).isInstanceOf(FenceHeaderException.class);
        assertThat(audit).isEmpty();
        assertThat(store.admit(new Fence(r, low)).outcome()).as("nothing reset yet").isEqualTo(Outcome.STALE);

        reset.apply(good);
        assertThat(store.admit(new Fence(r, FencingToken.of(6))).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThatThrownBy(() -> reset.apply(good)).as("replayed once the mark moved")
                .isInstanceOf(FenceHeaderException.class).hasMessageContaining("not " + MAX);
        assertThat(store.admit(new Fence(r, FencingToken.of(5))).outcome()).isEqualTo(Outcome.STALE);
        assertThat(audit).hasSize(1);
    }

    @Test
    void aResetThatCannotBeAuditedIsUndone() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        ResourceName r = ResourceName.of("account:8");
        store.admit(new Fence(r, MAX));
        HighWaterReset reset = HighWaterReset.of(store, OPERATOR_KEY, KEYS, record -> {
            throw new IllegalStateException("audit table unavailable");
        }, Clock.fixed(NOW, ZoneOffset.UTC));
        assertThatThrownBy(() -> reset.apply(order(OPERATOR_KEY, r, MAX, FencingToken.of(5), NOW)))
                .hasMessageContaining("audit table unavailable");
        assertThat(store.admit(new Fence(r, FencingToken.of(6))).outcome()).isEqualTo(Outcome.STALE);
    }

    @Test
    void theOperatorKeyIsLongAndNotAHeaderKey() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        assertThatThrownBy(() -> HighWaterReset.of(store, HEADER_KEY, KEYS, audit::add))
                .hasMessageContaining("also a fencing header signing key");
        assertThatThrownBy(() -> HighWaterReset.of(store, new byte[31], KEYS, audit::add))
                .hasMessageContaining("at least 32");
    }
}
