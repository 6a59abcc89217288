package io.fenceguard.http;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * The fencing header for an outgoing call: the token of the lease the thread works under (the
 * innermost {@link LeaseContext} lease, else the request's {@link InboundContext} token), signed, and
 * only for the configured {@link Destinations}. A lease known to be lost fails the call before it is sent.
 */
public final class OutboundFence {

    private final Destinations destinations;
    private final SigningKeys keys;
    private final String headerName;

    private OutboundFence(Destinations destinations, SigningKeys keys, String headerName) {
        this.destinations = destinations;
        this.keys = keys;
        this.headerName = headerName;
    }

    public static OutboundFence of(Destinations destinations, SigningKeys keys, String headerName) {
        if (headerName == null || !headerName.matches("[A-Za-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("a header name is 1 to 64 characters from A-Z a-z 0-9 -");
        }
        return new OutboundFence(Objects.requireNonNull(destinations, "destinations"),
                Objects.requireNonNull(keys, "keys"), headerName);
    }

    public static OutboundFence of(Destinations destinations, SigningKeys keys) {
        return of(destinations, keys, FenceHeader.DEFAULT_NAME);
    }

    public String headerName() {
        return headerName;
    }

    /**
     * The header value for a call to {@code uri}; empty when the destination is not configured or no
     * token is in context.
     *
     * @throws io.fenceguard.core.LeaseLostException when the lease in context is lost
     */
    public Optional<String> headerFor(URI uri) {
        if (!destinations.allows(uri)) {
            return Optional.empty();
        }
        Optional<Lease> lease = LeaseContext.current();
        if (lease.isPresent()) {
            lease.get().ensureValid();
            return Optional.of(keys.header(lease.get().resource(), lease.get().token()).value());
        }
        return InboundContext.current().map(inbound -> keys.header(inbound.resource(), inbound.token()).value());
    }

    @Override
    public String toString() {
        return "OutboundFence[" + destinations + ", " + keys + "]";
    }
}
