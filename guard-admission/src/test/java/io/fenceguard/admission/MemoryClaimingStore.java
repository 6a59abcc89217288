package io.fenceguard.admission;

import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A store that decides admission and idempotency claim in one call, as the JDBC and Redis stores do, over an
 * {@link InMemoryHighWaterStore}; every nonce it is asked about is told to {@code asked} first.
 */
final class MemoryClaimingStore implements IdempotentAdmissionStore {

    private final InMemoryHighWaterStore memory;
    private final Consumer<Nonce> asked;

    MemoryClaimingStore(InMemoryHighWaterStore memory, Consumer<Nonce> asked) {
        this.memory = memory;
        this.asked = asked;
    }

    @Override
    public Admission admit(Fence presented) {
        return memory.admit(presented);
    }

    @Override
    public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
        return admit(presented, new Nonce(nonce, expires));
    }

    @Override
    public Optional<Admission> admit(Fence presented, Nonce nonce) {
        asked.accept(nonce);
        return memory.firstUse(nonce.value(), nonce.expires()) ? Optional.of(memory.admit(presented)) : Optional.empty();
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        return memory.claim(presented, key, fingerprint);
    }

    @Override
    public void complete(ResourceName resource, String key, RecordedResponse response) {
        memory.complete(resource, key, response);
    }

    @Override
    public void abandon(ResourceName resource, String key) {
        memory.abandon(resource, key);
    }
}
