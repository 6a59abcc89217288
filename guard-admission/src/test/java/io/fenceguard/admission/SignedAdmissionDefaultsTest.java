package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The default group and idempotency-key admissions pass each nonce on with its signature's creation time: a store
 * that refuses signatures made before a moment (the JDBC store after PostgreSQL lost unflushed commits) must see when
 * the signature was made, not the earliest time its expiry allows.
 */
class SignedAdmissionDefaultsTest {

    private final InMemoryHighWaterStore memory = InMemoryHighWaterStore.create();
    private final List<Nonce> asked = new ArrayList<>();
    private final IdempotentAdmissionStore store = new MemoryClaimingStore(memory, asked::add);

    @Test
    void groupsAndKeyedAdmissionsKeepTheSignaturesCreationTime() {
        Fence fence = new Fence(ResourceName.of("account:1"), FencingToken.of(5));
        Instant created = Instant.now();
        Nonce first = new Nonce("k1:a", created, created.plusSeconds(30));
        Nonce second = new Nonce("k1:b", created.plusSeconds(1), created.plusSeconds(31));
        Nonce keyed = new Nonce("k1:c", created.plusSeconds(2), created.plusSeconds(32));

        assertThat(store.admitEach(fence, List.of(first, second))).allMatch(Optional::isPresent);
        assertThat(store.admitClaiming(fence, keyed, "key-1", "fp").claim().kind())
                .isEqualTo(IdempotencyStore.Claim.Kind.FIRST);

        assertThat(asked).containsExactly(first, second, keyed);
    }
}
