package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;

/**
 * The highest token seen per resource, shared by every instance that fences the resource.
 * {@link #admit} compares and updates atomically: a newer token claims the resource, the same token
 * continues, an older one is stale and changes nothing.
 *
 * <p>Implementations fail closed: when the store cannot answer they throw, and the request is refused.
 */
@FunctionalInterface
public interface HighWaterStore {

    Admission admit(Fence presented);

    /**
     * Admits {@code presented} in order, as if each were {@link #admit admitted} after the one before it: per
     * resource the highest token raises the mark, and a fence is admitted when its token is at least the mark
     * before the batch and every token before it in the batch (the newest claims, an equal one continues, an
     * older one is stale and changes nothing). One answer per fence, in order. Stores override this to decide
     * the whole batch in one round trip; by default each fence is admitted on its own.
     *
     * @throws io.fenceguard.core.FenceguardException when the store cannot answer (for any of the batch)
     */
    default java.util.List<Admission> admitAll(java.util.List<Fence> presented) {
        java.util.List<Admission> admissions = new java.util.ArrayList<>(presented.size());
        for (Fence fence : presented) {
            admissions.add(admit(fence));
        }
        return admissions;
    }

    /**
     * The store this one decorates (for metrics, say), or this store itself: where the backend's
     * {@link NonceStore} and {@link IdempotencyStore} are found.
     */
    default HighWaterStore backend() {
        return this;
    }

    /**
     * The same store's calls without blocking the caller, when its backend can answer so (R2DBC, Lettuce's
     * asynchronous API, memory): a reactive server then admits on its event loop. Empty by default, and then the
     * caller makes the blocking calls off its I/O threads. A decorator offers its backend's calls only if it
     * decorates them too.
     */
    default java.util.Optional<NonBlockingAdmissionStore> nonBlocking() {
        return java.util.Optional.empty();
    }

    /**
     * This store as one that records a request signature's nonce with the admission, in one call
     * ({@link SignedAdmissionStore}), if it is one.
     */
    default java.util.Optional<SignedAdmissionStore> signedAdmissions() {
        return java.util.Optional.empty();
    }

    /**
     * This store as one that claims an idempotency key with the admission, in one call
     * ({@link IdempotentAdmissionStore}), if it is one.
     */
    default java.util.Optional<IdempotentAdmissionStore> idempotentAdmissions() {
        return java.util.Optional.empty();
    }

    /**
     * Whether admissions join the caller's open transaction (the JDBC store's {@code joiningTransactions}, in
     * fenceguard-jdbc): an admission then commits or rolls back with the handler's writes. False by default; a
     * decorator answers as its {@link #backend()}.
     */
    default boolean joinsTransactions() {
        return backend() != this && backend().joinsTransactions();
    }

    /**
     * Whether admissions of one fence arriving together may be answered by one call
     * ({@link InboundFence#coalescingAdmissions()}): not for a store in memory, which answers faster than requests
     * could be grouped, nor for one admitting in its callers' transactions, where one request's rollback would take
     * back the admission of the others. A decorator answers as its {@link #backend()}.
     */
    default boolean admissionsMayCoalesce() {
        return backend() == this || backend().admissionsMayCoalesce();
    }

    /**
     * Sets {@code resource}'s mark to {@code mark} ({@code null}: no mark) if it is {@code expected} now
     * ({@code null}: no mark), atomically; answers whether it was set. Operators reach this only through
     * {@link HighWaterReset}, which checks their credential and leaves an audit record.
     *
     * @throws UnsupportedOperationException when the store cannot be reset
     */
    default boolean reset(ResourceName resource, FencingToken expected, FencingToken mark) {
        throw new UnsupportedOperationException(this + " cannot reset high-water marks");
    }
}
