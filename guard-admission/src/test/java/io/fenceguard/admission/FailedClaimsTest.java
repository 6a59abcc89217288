package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Claims set back when no request admitted under them succeeded ({@link InboundFence#withdrawingFailedClaims}). */
class FailedClaimsTest {

    private static final ResourceName R = ResourceName.of("account:1");

    private final InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
    private final InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
            store, SigningKeys.none()).withdrawingFailedClaims();

    private Verdict check(InboundFence inbound, long token) {
        return inbound.check("POST", "/a/1", List.of(FenceHeader.of(new Fence(R, FencingToken.of(token))).value()));
    }

    private Admission admitted(long token) {
        return check(fence, token).admission().orElseThrow();
    }

    @Test
    void aFailedClaimIsSetBackToTheMarkItReplaced() {
        fence.handlerEnded(admitted(4), true);
        Admission nine = admitted(9);
        assertThat(nine.replaced()).isEqualTo(new Admission.Replaced(FencingToken.of(4)));
        fence.handlerEnded(nine, false);
        assertThat(admitted(4).outcome()).as("9 failed: 4 continues").isEqualTo(Admission.Outcome.CONTINUED);
        assertThat(check(fence, 2).problem()).as("the mark 4 stays").isPresent();
    }

    @Test
    void theFirstMarkIsRemovedWhenItsClaimFailed() {
        ResourceName fresh = ResourceName.of("account:fresh");
        InboundFence other = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/b/{id}", "account:{id}")),
                store, SigningKeys.none()).withdrawingFailedClaims();
        Admission seven = other.check("POST", "/b/fresh", List.of(FenceHeader.of(new Fence(fresh, FencingToken.of(7))).value()))
                .admission().orElseThrow();
        other.handlerEnded(seven, false);
        assertThat(store.reset(fresh, null, null)).as("no mark").isTrue();
    }

    @Test
    void nothingIsSetBackOnceANewerTokenCameOrWhileTheSameTokenIsInFlight() {
        fence.handlerEnded(admitted(4), true);
        Admission nine = admitted(9);
        Admission ten = admitted(10);
        fence.handlerEnded(nine, false);
        assertThat(check(fence, 9).problem()).as("10 came meanwhile: the mark is 10").isPresent();
        fence.handlerEnded(ten, true);

        Admission elevenA = admitted(11);
        Admission elevenB = admitted(11);
        fence.handlerEnded(elevenA, false);
        assertThat(check(fence, 10).problem()).as("another 11 is in flight").isPresent();
        fence.handlerEnded(elevenB, true);
        assertThat(check(fence, 10).problem()).as("an 11 succeeded").isPresent();

        Admission twelveA = admitted(12);
        Admission twelveB = admitted(12);
        fence.handlerEnded(twelveA, false);
        fence.handlerEnded(twelveB, false);
        assertThat(admitted(11).outcome()).as("every 12 failed").isEqualTo(Admission.Outcome.CONTINUED);
    }

    @Test
    void withoutWithdrawalOrAStoreThatCannotResetTheMarkStays() {
        InboundFence keeping = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                store, SigningKeys.none());
        keeping.handlerEnded(check(keeping, 4).admission().orElseThrow(), true);
        keeping.handlerEnded(check(keeping, 9).admission().orElseThrow(), false);
        assertThat(check(keeping, 4).problem()).isPresent();

        HighWaterStore plain = presented -> store.admit(presented);
        InboundFence unresettable = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")),
                plain, SigningKeys.none()).withdrawingFailedClaims();
        unresettable.handlerEnded(check(unresettable, 20).admission().orElseThrow(), false);
        assertThat(check(unresettable, 9).problem()).as("the store cannot reset: 20 stays").isPresent();
    }
}
