package io.fenceguard.core;

import io.fenceguard.core.internal.LeaseState;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Release requests of one {@link LeaseManager}: through the provider's channel where it carries them (holders in
 * every process on the same store hear them), otherwise to this manager's own holders.
 */
final class ReleaseRequests {

    // The manager's logger: one name to configure for everything a manager does.
    private static final System.Logger log = System.getLogger(LeaseManager.class.getName());

    private final LeaseProvider provider;
    private final HeldLeases held;
    private final LeaseObservers observers;

    ReleaseRequests(LeaseProvider provider, HeldLeases held, LeaseObservers observers) {
        this.provider = provider;
        this.held = held;
        this.observers = observers;
    }

    /** See {@link LeaseManager#requestRelease(ResourceName, String)}. */
    boolean send(ResourceName resource, String reason) {
        Optional<ReleaseRequestChannel> channel = provider.releaseRequests();
        if (channel.isPresent()) {
            return channel.get().send(resource, reason);
        }
        boolean heldHere = false;
        for (HeldLeases.Held entry : held.all()) {
            LeaseState state = entry.state();
            if (state.fence().resource().equals(resource) && !state.isReleased() && state.lossReason() == null) {
                heldHere = true;
                if (state.hasReleaseRequestListeners()) {
                    deliver(entry.lease(), reason);
                }
            }
        }
        return heldHere;
    }

    /** Registers {@code listener}; the first one of a lease starts listening in the store, where it carries requests. */
    void listen(Lease lease, ReleaseRequestListener listener) {
        LeaseState state = lease.state();
        Consumer<String> told = reason -> listener.onReleaseRequested(lease, reason);
        if (!state.onReleaseRequested(told)) {
            return;
        }
        Optional<ReleaseRequestChannel> channel = provider.releaseRequests();
        if (channel.isPresent()) {
            Lease primary = held.primaryOf(state, lease);
            try {
                state.setReleaseRequestWatch(channel.get().listen(state.fence().resource(),
                        reason -> deliver(primary, reason)));
            } catch (RuntimeException e) {
                // Not heard: the next listener tries the store again.
                state.removeReleaseRequestListener(told);
                throw e;
            }
        }
    }

    private void deliver(Lease lease, String reason) {
        LeaseState state = lease.state();
        if (state.isReleased() || state.lossReason() != null) {
            return;
        }
        log.log(Level.INFO, () -> "release of " + lease + " requested: " + reason);
        state.releaseRequested(reason, observers.isEmpty() ? null : () -> observers.releaseRequested(lease, reason));
    }
}
