package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import java.util.Objects;
import java.util.Optional;

/**
 * A fenced request after every check {@link InboundFence} makes before its store is asked ({@link
 * InboundFence#beforeStore}): either refused already, or what the store is to be asked, the presented fence and,
 * for a request-signed request, its nonce. The caller asks the store itself, blocking ({@link
 * InboundFence#admit(PendingAdmission)}) or not ({@link InboundFence#admitNonBlocking}), and hands
 * the answer to {@link InboundFence#afterStore} (or a failure to {@link InboundFence#storeFailed}), exactly once.
 */
public final class PendingAdmission {

    /** An idempotency key to claim with the admission, by the store that decides both. */
    record KeyRequest(IdempotentAdmissionStore store, String key, String fingerprint) {
    }

    private final Verdict refusal;
    private final Fence presented;
    private final SignedAdmissionStore.Nonce nonce;
    private final boolean nonceKeptByStore;
    private final boolean nonceWithAdmission;
    private final KeyRequest keyed;

    private PendingAdmission(Verdict refusal, Fence presented, SignedAdmissionStore.Nonce nonce,
            boolean nonceKeptByStore, boolean nonceWithAdmission, KeyRequest keyed) {
        this.refusal = refusal;
        this.presented = presented;
        this.nonce = nonce;
        this.nonceKeptByStore = nonceKeptByStore;
        this.nonceWithAdmission = nonceWithAdmission;
        this.keyed = keyed;
    }

    static PendingAdmission refused(Problem problem) {
        return new PendingAdmission(Verdict.refused(problem), null, null, false, false, null);
    }

    static PendingAdmission asking(Fence presented, SignedAdmissionStore.Nonce nonce, boolean nonceKeptByStore,
            boolean nonceWithAdmission, KeyRequest keyed) {
        return new PendingAdmission(null, Objects.requireNonNull(presented, "presented"), nonce, nonceKeptByStore,
                nonceWithAdmission, keyed);
    }

    /** The verdict when the request was refused before the store was asked; then nothing is to be asked. */
    public Optional<Verdict> refusal() {
        return Optional.ofNullable(refusal);
    }

    /** The fence to admit; {@code null} when refused. */
    public Fence presented() {
        return presented;
    }

    /** The request signature's nonce to record with the admission, when the request is request-signed. */
    public Optional<SignedAdmissionStore.Nonce> nonce() {
        return Optional.ofNullable(nonce);
    }

    /** Whether the nonce is kept by the high-water store's backend (else by a nonce store of its own). */
    public boolean nonceKeptByStore() {
        return nonceKeptByStore;
    }

    KeyRequest keyed() {
        return keyed;
    }

    /**
     * The store's answer to this admission, waited for (empty: a replayed nonce): the nonce recorded with the
     * admission where the store does both in one call, else first on its own.
     */
    Optional<Admission> askedOf(HighWaterStore store, NonceStore nonces) {
        if (nonceWithAdmission) {
            return store.signedAdmissions().orElseThrow().admit(presented, nonce);
        }
        return firstUseApart(nonces) ? Optional.of(store.admit(presented)) : Optional.empty();
    }

    /**
     * Whether nothing speaks against asking the store: no nonce, or one recorded with the admission's own call, or
     * one kept apart from the marks and recorded by {@code nonces} now as first used (a replay: {@code false}).
     */
    boolean firstUseApart(NonceStore nonces) {
        return nonce == null || nonceWithAdmission || nonces.firstUse(nonce.value(), nonce.expires());
    }

    /** The nonce to hand to a store call that records it with the admission, else {@code null}. */
    SignedAdmissionStore.Nonce nonceForTheCall() {
        return nonceWithAdmission ? nonce : null;
    }

    /** The store's non-blocking answer to this admission (empty: a replayed nonce); a call that throws, failed. */
    java.util.concurrent.CompletionStage<Optional<Admission>> askedOf(NonBlockingAdmissionStore calls) {
        try {
            return nonce == null ? calls.admit(presented).thenApply(Optional::of) : calls.admit(presented, nonce);
        } catch (RuntimeException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public String toString() {
        return refusal != null ? "PendingAdmission[refused " + refusal + "]"
                : "PendingAdmission[" + presented + (nonce == null ? "" : ", nonce " + nonce.value())
                        + (keyed == null ? "" : ", key " + keyed.key()) + "]";
    }
}
