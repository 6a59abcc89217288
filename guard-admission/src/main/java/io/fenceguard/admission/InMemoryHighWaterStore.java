package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.time.Instant;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * High-water marks in this process's memory: correct for a single instance of the resource server
 * only, and forgotten on restart (after which any token is admitted once again).
 */
public final class InMemoryHighWaterStore implements HighWaterStore, NonceStore, IdempotencyStore {

    private final ConcurrentMap<ResourceName, FencingToken> highWater = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Instant> nonces = new ConcurrentHashMap<>();
    /**
     * The nonces in the order they were first used, so that the expired ones are found at the head without a
     * scan of all of them. Signatures live 5 minutes at most, so one with a later expiry ahead of earlier ones
     * keeps them at most that long.
     */
    private final Queue<Map.Entry<String, Instant>> nonceOrder = new ConcurrentLinkedQueue<>();
    /** Held by the one thread forgetting expired nonces (it alone takes from {@link #nonceOrder}). */
    private final AtomicBoolean forgetting = new AtomicBoolean();

    private final ConcurrentMap<java.util.List<String>, Idempotent> idempotent = new ConcurrentHashMap<>();

    /** A key's first request: its fingerprint, and its response once completed. */
    private record Idempotent(String fingerprint, RecordedResponse response) {
    }

    /** Answered in place: memory never blocks. */
    private final NonBlockingAdmissionStore nonBlocking = new NonBlockingAdmissionStore() {
        @Override
        public java.util.concurrent.CompletionStage<Admission> admit(Fence presented) {
            return answered(() -> InMemoryHighWaterStore.this.admit(presented));
        }

        @Override
        public java.util.concurrent.CompletionStage<java.util.Optional<Admission>> admit(Fence presented,
                SignedAdmissionStore.Nonce nonce) {
            return answered(() -> InMemoryHighWaterStore.this.firstUse(nonce.value(), nonce.expires())
                    ? java.util.Optional.of(InMemoryHighWaterStore.this.admit(presented)) : java.util.Optional.empty());
        }

        @Override
        public java.util.concurrent.CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
            return answered(() -> InMemoryHighWaterStore.this.firstUse(nonce, expires));
        }

        private static <T> java.util.concurrent.CompletableFuture<T> answered(java.util.function.Supplier<T> call) {
            try {
                return java.util.concurrent.CompletableFuture.completedFuture(call.get());
            } catch (RuntimeException e) {
                return java.util.concurrent.CompletableFuture.failedFuture(e);
            }
        }

        @Override
        public String toString() {
            return "non-blocking " + InMemoryHighWaterStore.this;
        }
    };

    private InMemoryHighWaterStore() {
    }

    @Override
    public java.util.Optional<NonBlockingAdmissionStore> nonBlocking() {
        return java.util.Optional.of(nonBlocking);
    }

    /** Memory answers faster than requests could be grouped. */
    @Override
    public boolean admissionsMayCoalesce() {
        return false;
    }

    public static InMemoryHighWaterStore create() {
        return new InMemoryHighWaterStore();
    }

    @Override
    public Admission admit(Fence presented) {
        Admission[] decision = new Admission[1];
        // compute runs atomically per key: the comparison and the update are one step.
        highWater.compute(presented.resource(), (name, previous) -> {
            decision[0] = Admission.of(presented, previous);
            return decision[0].highWater();
        });
        return decision[0];
    }

    @Override
    public boolean reset(ResourceName resource, FencingToken expected, FencingToken mark) {
        boolean[] done = new boolean[1];
        highWater.compute(resource, (name, current) -> {
            done[0] = java.util.Objects.equals(current, expected);
            return done[0] ? mark : current;
        });
        return done[0];
    }

    @Override
    public boolean firstUse(String nonce, Instant expires) {
        forgetExpiredNonces(Instant.now());
        if (nonces.putIfAbsent(nonce, expires) != null) {
            return false;
        }
        nonceOrder.add(Map.entry(nonce, expires));
        return true;
    }

    /** Forgets the nonces at the head of {@link #nonceOrder} that expired: amortised constant work per nonce. */
    private void forgetExpiredNonces(Instant now) {
        Map.Entry<String, Instant> head = nonceOrder.peek();
        if (head == null || !head.getValue().isBefore(now) || !forgetting.compareAndSet(false, true)) {
            return;
        }
        try {
            while ((head = nonceOrder.peek()) != null && head.getValue().isBefore(now)) {
                nonceOrder.poll();
                nonces.remove(head.getKey(), head.getValue());
            }
        } finally {
            forgetting.set(false);
        }
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        Idempotent[] found = new Idempotent[1];
        idempotent.compute(java.util.List.of(presented.resource().value(), key), (k, existing) -> {
            found[0] = existing;
            return existing == null ? new Idempotent(fingerprint, null) : existing;
        });
        Idempotent first = found[0];
        if (first == null) {
            return Claim.first();
        }
        if (!first.fingerprint().equals(fingerprint)) {
            return Claim.otherRequest();
        }
        return first.response() == null ? Claim.inProgress() : Claim.completed(first.response());
    }

    @Override
    public void complete(ResourceName resource, String key, RecordedResponse response) {
        idempotent.computeIfPresent(java.util.List.of(resource.value(), key),
                (k, claimed) -> new Idempotent(claimed.fingerprint(), response));
    }

    @Override
    public void abandon(ResourceName resource, String key) {
        idempotent.computeIfPresent(java.util.List.of(resource.value(), key),
                (k, claimed) -> claimed.response() == null ? null : claimed);
    }

    @Override
    public String toString() {
        return "InMemoryHighWaterStore[" + highWater.size() + " resources]";
    }
}
