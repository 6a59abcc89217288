package io.fenceguard.jdbc.admission;

import static io.fenceguard.admission.support.HighWaterResetFixture.KEYS;
import static io.fenceguard.admission.support.HighWaterResetFixture.MAX;
import static io.fenceguard.admission.support.HighWaterResetFixture.NOW;
import static io.fenceguard.admission.support.HighWaterResetFixture.OPERATOR_KEY;
import static io.fenceguard.admission.support.HighWaterResetFixture.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterReset;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.support.HighWaterResetFixture;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.support.Stores;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The way back from a permanent lock-out on the JDBC store (PostgreSQL): a validly signed header with
 * t = 2^63-1 is undone by an operator's signed reset order, which needs the operator key, not a header key,
 * and leaves an audit record. (The order's checks: fenceguard-admission's HighWaterResetTest.)
 */
class HighWaterResetOnPostgresTest {

    final HighWaterResetFixture fixture = new HighWaterResetFixture();

    @Test
    void aLockedOutResourceIsResetByTheOperatorAndTheResetIsAudited() {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            assertThat(store.admit(new Fence(r, MAX)).outcome()).isEqualTo(Outcome.CLAIMED);
            InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                    store, KEYS);
            String legit = KEYS.header(new Fence(r, FencingToken.of(1_000))).value();
            String id = r.value().substring("account:".length());
            assertThat(fence.check("POST", "/a/" + id, List.of(legit)).problem()).hasValueSatisfying(
                    p -> assertThat(p.status()).isEqualTo(409));

            HighWaterReset reset = fixture.reset(store, NOW.plusSeconds(30));
            HighWaterReset.Record record = reset.apply(order(OPERATOR_KEY, r, MAX, FencingToken.of(999), NOW));

            assertThat(record.from()).isEqualTo(MAX);
            assertThat(record.to()).isEqualTo(FencingToken.of(999));
            assertThat(record.operator()).isEqualTo("alice");
            assertThat(record.reason()).isEqualTo("token from a leaked signer");
            assertThat(fixture.audit()).containsExactly(record);
            assertThat(fence.check("POST", "/a/" + id, List.of(legit)).admission()).isPresent();
            String older = KEYS.header(new Fence(r, FencingToken.of(998))).value();
            assertThat(fence.check("POST", "/a/" + id, List.of(older)).problem()).as("the floor set by the operator holds")
                    .hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(409));
        }
    }
}
