package io.fenceguard.jdbc.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.support.Stores;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Check-then-act on the JDBC store (PostgreSQL), as two racing requests would get their admissions: a request
 * admitted with token 5 whose handler starts only after a request with token 6 was admitted and its handler
 * started. Admission alone lets it run; HandlerOrder refuses it.
 */
class HandlerOrderOnPostgresTest {

    @Test
    void anOlderTokensHandlerDoesNotStartAfterANewerOnesHandler() {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                    JdbcHighWaterStore.of(ds), SigningKeys.none());
            String id = UUID.randomUUID().toString().substring(0, 8);
            ResourceName r = ResourceName.of("account:" + id);
            Admission five = fence.check("POST", "/a/" + id, List.of(FenceHeader.of(new Fence(r, FencingToken.of(5))).value()))
                    .admission().orElseThrow();
            Admission six = fence.check("POST", "/a/" + id, List.of(FenceHeader.of(new Fence(r, FencingToken.of(6))).value()))
                    .admission().orElseThrow();
            assertThat(five.admitted()).as("admitted first: the store cannot refuse it any more").isTrue();

            HandlerOrder order = HandlerOrder.create();
            assertThat(order.enter(six).admission()).isPresent();
            Verdict late = order.enter(five);
            assertThat(late.problem()).hasValueSatisfying(p -> {
                assertThat(p.status()).isEqualTo(409);
                assertThat(p.type()).isEqualTo("urn:fenceguard:stale-token");
                assertThat(p.highWater()).contains(FencingToken.of(6));
            });
            order.exit(six, true);
            assertThat(order.enter(five).problem()).as("also once the newer handler is done").isPresent();
            assertThat(order.enter(six).admission()).as("the same token again").isPresent();
            Admission seven = fence.check("POST", "/a/" + id, List.of(FenceHeader.of(new Fence(r, FencingToken.of(7))).value()))
                    .admission().orElseThrow();
            assertThat(order.enter(seven).admission()).isPresent();
        }
    }
}
