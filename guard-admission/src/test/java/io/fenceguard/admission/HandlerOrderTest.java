package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import org.junit.jupiter.api.Test;

/**
 * Check-then-act: a request admitted with token 5 whose handler starts only after a request with
 * token 6 was admitted and its handler started. Admission alone lets it run; HandlerOrder refuses it.
 * (With admissions from the JDBC store, as two racing requests would get them: fenceguard-jdbc's
 * HandlerOrderOnPostgresTest.)
 */
class HandlerOrderTest {

    @Test
    void otherResourcesAreIndependentAndIdleOnesAreForgottenOverTheLimit() {
        HandlerOrder order = HandlerOrder.create(2);
        Admission a9 = Admission.claimed(new Fence(ResourceName.of("account:a"), FencingToken.of(9)));
        Admission b1 = Admission.claimed(new Fence(ResourceName.of("account:b"), FencingToken.of(1)));
        assertThat(order.enter(a9).admission()).isPresent();
        assertThat(order.enter(b1).admission()).isPresent();
        order.exit(b1, true);
        Admission a8 = Admission.claimed(new Fence(ResourceName.of("account:a"), FencingToken.of(8)));
        assertThat(order.enter(a8).problem()).as("a's newer handler is in flight").isPresent();
        for (int i = 0; i < 3; i++) {
            Admission c = Admission.claimed(new Fence(ResourceName.of("account:c" + i), FencingToken.of(1)));
            order.enter(c);
            order.exit(c, true);
        }
        assertThat(order.enter(a8).problem()).as("in flight: never forgotten").isPresent();
    }

    @Test
    void aFailedHandlerLeavesNoMarkButOneInFlightStillHoldsOlderOnesBack() {
        HandlerOrder order = HandlerOrder.create();
        ResourceName r = ResourceName.of("account:failing");
        Admission five = Admission.claimed(new Fence(r, FencingToken.of(5)));
        Admission six = Admission.claimed(new Fence(r, FencingToken.of(6)));
        Admission seven = Admission.claimed(new Fence(r, FencingToken.of(7)));
        assertThat(order.enter(five).admission()).isPresent();
        order.exit(five, true);

        assertThat(order.enter(seven).admission()).isPresent();
        assertThat(order.enter(six).problem()).as("7 is in flight").hasValueSatisfying(
                p -> assertThat(p.highWater()).contains(FencingToken.of(7)));
        order.exit(seven, false);
        assertThat(order.enter(six).admission()).as("7 failed: no mark of it stays").isPresent();
        assertThat(order.enter(five).problem()).as("6 is in flight").isPresent();
        order.exit(six, false);
        assertThat(order.enter(five).admission()).as("5 succeeded before: its own token still starts").isPresent();
        order.exit(five, true);

        assertThat(order.enter(seven).admission()).isPresent();
        assertThat(order.enter(seven).admission()).as("the same token twice in flight").isPresent();
        order.exit(seven, false);
        assertThat(order.enter(six).problem()).as("the other 7 is still in flight").isPresent();
        order.exit(seven, true);
        assertThat(order.enter(six).problem()).as("a 7 succeeded").isPresent();
    }
}
