package io.fenceguard.admission;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fencing header for an outgoing call: the fence of the lease the thread works under (the
 * innermost {@link LeaseContext} lease, which inside a fenced request is the fence the request
 * presented), signed when there is an active key, and only for the configured {@link Destinations}.
 * A lease known to be lost fails the call before it is sent.
 *
 * <p>A missing header is never silent: the first call under a lease to an origin that is not a
 * destination is logged at WARN, once per origin. The inbound side's counterpart is {@link InboundFence}.
 */
public final class OutboundFence {

    private static final Logger log = LoggerFactory.getLogger(OutboundFence.class);
    /** Origins warned about are remembered up to this many, so a crawler-like client cannot grow the set. */
    private static final int MAX_WARNED_ORIGINS = 1_000;

    private final Destinations destinations;
    private final SigningKeys keys;
    private final String headerName;
    private final Set<Origin> warned = ConcurrentHashMap.newKeySet();
    private final RequestSignatures signatures;

    private OutboundFence(Destinations destinations, SigningKeys keys, String headerName, RequestSignatures signatures) {
        this.destinations = destinations;
        this.keys = keys;
        this.headerName = headerName;
        this.signatures = signatures;
    }

    public static OutboundFence of(Destinations destinations, SigningKeys keys, String headerName) {
        return new OutboundFence(Objects.requireNonNull(destinations, "destinations"),
                Objects.requireNonNull(keys, "keys"), FenceHeader.requireHeaderName(headerName), null);
    }

    /**
     * This fence signing whole requests ({@link RequestSignatures}: method, target URI, the fencing
     * header and the body's digest) with the active key, instead of the compact header signature.
     * Without an active key, headers still go out unsigned.
     */
    public OutboundFence withRequestSignatures() {
        return new OutboundFence(destinations, keys, headerName,
                keys.activeKeyId().isPresent() ? RequestSignatures.of(keys, headerName) : null);
    }

    /** Whether calls are request-signed (then {@link #headersFor} needs the method and the body). */
    public boolean signsRequests() {
        return signatures != null;
    }

    public static OutboundFence of(Destinations destinations, SigningKeys keys) {
        return of(destinations, keys, FenceHeader.DEFAULT_NAME);
    }

    /**
     * The fence header value of the lease the thread works under (the innermost {@link LeaseContext} lease),
     * unsigned, for any destination: what a message producer stamps on a record, where the consumer, not a
     * destination list, decides whom the token reaches. Empty when no lease is in context.
     *
     * @throws io.fenceguard.core.LeaseLostException when the lease in context is lost: a message sent now would go
     *         out under a lease this process no longer holds
     */
    public static Optional<String> currentHeaderValue() {
        Optional<Lease> lease = LeaseContext.current();
        lease.ifPresent(Lease::ensureValid);
        return lease.map(current -> FenceHeader.of(current.fence()).value());
    }

    public String headerName() {
        return headerName;
    }

    public Destinations destinations() {
        return destinations;
    }

    /**
     * The header value for a call to {@code uri}; empty when no lease is in context or the
     * destination is not configured.
     *
     * @throws io.fenceguard.core.LeaseLostException when the lease in context is lost
     */
    public Optional<String> headerFor(URI uri) {
        return leaseFor(uri).map(lease -> keys.header(lease.fence()).value());
    }

    /**
     * The lease in context when a call to {@code uri} carries its fence: empty without a lease or for a
     * destination not configured (said once per destination).
     *
     * @throws io.fenceguard.core.LeaseLostException when the lease in context is lost
     */
    private Optional<Lease> leaseFor(URI uri) {
        Optional<Lease> lease = LeaseContext.current();
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        if (!destinations.allows(uri)) {
            warnOnce(uri, lease.get());
            return Optional.empty();
        }
        lease.get().ensureValid();
        return lease;
    }

    /**
     * The headers for a call: the fencing header, and with request signatures Content-Digest,
     * Signature-Input and Signature over {@code method}, {@code uri} and {@code body}. Empty when no
     * lease is in context or the destination is not configured.
     *
     * @throws io.fenceguard.core.LeaseLostException when the lease in context is lost
     */
    public Optional<Map<String, String>> headersFor(String method, URI uri, byte[] body) {
        return leaseFor(uri).map(lease -> signatures == null
                ? Map.of(headerName, keys.header(lease.fence()).value())
                : signatures.sign(method, uri, FenceHeader.of(lease.fence()).value(), body));
    }

    /**
     * For clients that sign once the body has streamed by: the headers for a call to {@code uri} as
     * {@link #headerFor} checks it (lease in context, destination, lease not lost), with the fencing header
     * unsigned when this fence signs requests, to be completed by {@link #signedDigest}; otherwise the
     * compact-signed header, ready to send. Empty when no lease is in context or the destination is not
     * configured. Nothing is signed twice: no signature is made before the body is known.
     *
     * @throws io.fenceguard.core.LeaseLostException when the lease in context is lost
     */
    public Optional<Map<String, String>> headersToSign(URI uri) {
        return leaseFor(uri).map(lease -> Map.of(headerName, signatures == null
                ? keys.header(lease.fence()).value() : FenceHeader.of(lease.fence()).value()));
    }

    /**
     * Request-signed headers over {@code method}, {@code uri} and {@code body} for the fencing value in
     * {@code headers} (an answer of {@link #headersFor} taken on the caller's thread), for clients that
     * know the body only later on another thread.
     */
    public Map<String, String> signed(Map<String, String> headers, String method, URI uri, byte[] body) {
        if (signatures == null) {
            return headers;
        }
        return signatures.sign(method, uri, headers.get(headerName), body);
    }

    /**
     * As {@link #signed}, for a body digested as it streamed by: {@code contentDigest} is its
     * {@code sha-256=:…:} ({@link RequestSignatures#contentDigestOf}), so the body need not be gathered.
     */
    public Map<String, String> signedDigest(Map<String, String> headers, String method, URI uri, String contentDigest) {
        if (signatures == null) {
            return headers;
        }
        return signatures.signDigest(method, uri, headers.get(headerName), contentDigest);
    }

    private void warnOnce(URI uri, Lease lease) {
        Optional<Origin> origin = Origin.find(uri);
        if (origin.isEmpty() || destinations.includes(origin.get()) || warned.size() >= MAX_WARNED_ORIGINS
                || !warned.add(origin.get())) {
            return;
        }
        // Origin and path only: a query string may carry secrets.
        String target = origin.get() + (uri.getRawPath() == null ? "" : uri.getRawPath());
        log.warn("fenceguard: a call to {} under the lease on '{}' goes out without the {} header: {} is not a token "
                + "destination (destinations: {}). If it should receive the token, add it to the destinations "
                + "(fenceguard.http.client.destinations). Logged once per origin.", target, lease.resource(), headerName,
                origin.get(), destinations.isEmpty() ? "none" : destinations);
    }

    @Override
    public String toString() {
        return "OutboundFence[" + destinations + ", " + keys + "]";
    }
}
