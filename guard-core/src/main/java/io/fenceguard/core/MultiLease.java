package io.fenceguard.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Leases on several resources taken together, all or none ({@link LeaseManager#acquireAll}): one lease per
 * resource, each with its own token, in the canonical order of the resource names. It is valid while every
 * part is; losing any part loses the whole. Writes to each resource are fenced with that resource's own lease:
 *
 * <pre>{@code
 * try (MultiLease both = guard.acquireAll(List.of("account:7", "account:42"), Duration.ofSeconds(5))) {
 *     try (LeaseContext.Scope scope = LeaseContext.bind(both.lease("account:7"))) {
 *         dao.debit(7, amount);                          // fenced with account:7's token
 *     }
 *     try (LeaseContext.Scope scope = LeaseContext.bind(both.lease("account:42"))) {
 *         dao.credit(42, amount);                        // fenced with account:42's token
 *     }
 * }
 * }</pre>
 *
 * Closing releases every part, in the reverse of the order they were taken; closing twice does nothing.
 */
public final class MultiLease implements AutoCloseable {

    private final Map<ResourceName, Lease> byResource;
    private final AtomicBoolean closed = new AtomicBoolean();

    MultiLease(List<Lease> leases) {
        Map<ResourceName, Lease> map = new LinkedHashMap<>();
        for (Lease lease : leases) {
            map.put(lease.resource(), lease);
        }
        this.byResource = Collections.unmodifiableMap(map);
    }

    /** The parts, in the order they were taken (the canonical order of their resource names). */
    public List<Lease> leases() {
        return List.copyOf(byResource.values());
    }

    public Set<ResourceName> resources() {
        return byResource.keySet();
    }

    /**
     * The part on {@code resource}.
     *
     * @throws IllegalArgumentException when {@code resource} is not one of this lease's
     */
    public Lease lease(ResourceName resource) {
        Lease lease = byResource.get(resource);
        if (lease == null) {
            throw new IllegalArgumentException("'" + resource + "' is not one of the resources of " + this);
        }
        return lease;
    }

    public Lease lease(String resource) {
        return lease(ResourceName.of(resource));
    }

    /** The token of the part on {@code resource}: what the writes to that resource are fenced with. */
    public FencingToken token(ResourceName resource) {
        return lease(resource).token();
    }

    public FencingToken token(String resource) {
        return token(ResourceName.of(resource));
    }

    /** Whether every part is still valid. */
    public boolean isValid() {
        for (Lease lease : byResource.values()) {
            if (!lease.isValid()) {
                return false;
            }
        }
        return true;
    }

    /** The first part that is no longer valid, if any. */
    public Optional<Lease> invalidPart() {
        for (Lease lease : byResource.values()) {
            if (!lease.isValid()) {
                return Optional.of(lease);
            }
        }
        return Optional.empty();
    }

    /**
     * Fails fast when any part can no longer be relied on.
     *
     * @throws LeaseLostException naming the part that was lost
     * @throws FenceguardException when the parts were already released
     */
    public void ensureValid() {
        for (Lease lease : byResource.values()) {
            lease.ensureValid();
        }
    }

    /** The least time left of any part. */
    public Duration remaining() {
        Duration least = null;
        for (Lease lease : byResource.values()) {
            Duration remaining = lease.remaining();
            if (least == null || remaining.compareTo(least) < 0) {
                least = remaining;
            }
        }
        return least;
    }

    /**
     * Tells {@code listener} once, with the part that was lost, when the first part is lost; as
     * {@link Lease#onLost} does for a single lease.
     */
    public void onLost(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        AtomicBoolean told = new AtomicBoolean();
        for (Lease lease : byResource.values()) {
            lease.onLost((part, reason) -> {
                if (told.compareAndSet(false, true)) {
                    listener.onLost(part, reason);
                }
            });
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            closeAll(new ArrayList<>(byResource.values()));
        }
    }

    /** Closes {@code leases} last first; one that fails to close does not keep the others held. */
    static void closeAll(List<Lease> leases) {
        RuntimeException failure = null;
        for (int i = leases.size() - 1; i >= 0; i--) {
            try {
                leases.get(i).close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        for (Lease lease : byResource.values()) {
            parts.add(lease.fence() + (lease.lossReason().isPresent() ? " lost" : ""));
        }
        return "MultiLease" + parts;
    }
}
