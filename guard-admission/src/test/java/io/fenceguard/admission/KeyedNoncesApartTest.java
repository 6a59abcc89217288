package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A request-signed request with an idempotency key, on a fence whose nonces are kept apart from its marks (a
 * {@link NonceStore} of the application's own): its nonce is recorded as a request without a key has it, so a replay
 * of the signed request is refused as replayed even under another key, and claims nothing.
 */
class KeyedNoncesApartTest {

    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8)), "k1");

    @Test
    void aReplayedSignedRequestIsRefusedUnderAnyKeyAndClaimsNothing() {
        InMemoryHighWaterStore memory = InMemoryHighWaterStore.create();
        IdempotentAdmissionStore store = new MemoryClaimingStore(memory, nonce -> { });
        Set<String> recorded = ConcurrentHashMap.newKeySet();
        NonceStore apart = (nonce, expires) -> recorded.add(nonce);
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/a/{id}", "account:{id}")), store,
                KEYS).withRequestSignatures(apart, true);
        InboundRequest request = signed(new Fence(ResourceName.of("account:1"), FencingToken.of(5)));
        ResourceTemplate resource = ResourceTemplate.of("account:{id}");

        Verdict first = fence.check(resource, Map.of("id", "1"), request, store, "key-1", "fp");
        assertThat(first.admission()).as("the first use").isPresent();
        assertThat(recorded).as("its nonce, in the application's store").hasSize(1);

        Verdict replay = fence.check(resource, Map.of("id", "1"), request, store, "key-2", "fp");
        assertThat(replay.problem()).as("the same signed request again").isPresent();
        assertThat(replay.problem().get().type()).contains("replayed-request");
        assertThat(memory.claim(new Fence(ResourceName.of("account:1"), FencingToken.of(5)), "key-2", "fp").kind())
                .as("the replay claimed no key").isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
    }

    private static InboundRequest signed(Fence fence) {
        String fencing = FenceHeader.of(fence).value();
        URI target = URI.create("http://localhost/a/1");
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.put(FenceHeader.DEFAULT_NAME, List.of(fencing));
        Map<String, String> signature = new HashMap<>(
                RequestSignatures.of(KEYS, FenceHeader.DEFAULT_NAME).sign("POST", target, fencing, body));
        signature.forEach((name, value) -> headers.put(name, List.of(value)));
        return new InboundRequest("POST", "/a/1", target, headers::get, body);
    }
}
