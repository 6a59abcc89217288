package io.fenceguard.http;

import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides on inbound requests, independent of any server API: finds the fenced route, parses and
 * verifies the fencing header, and admits its fence against the high-water store. Everything that is
 * refused is refused before the store is touched, except stale tokens, which the store itself
 * recognises. The client side's counterpart is {@link OutboundFence}.
 */
public final class InboundFence {

    private static final Logger log = LoggerFactory.getLogger(InboundFence.class);

    private final Supplier<List<FencedRoute>> routes;
    private final HighWaterStore store;
    private final SigningKeys keys;
    private final String headerName;

    private InboundFence(Supplier<List<FencedRoute>> routes, HighWaterStore store, SigningKeys keys, String headerName) {
        this.routes = routes;
        this.store = store;
        this.keys = keys;
        this.headerName = headerName;
    }

    public static InboundFence of(List<FencedRoute> routes, HighWaterStore store, SigningKeys keys) {
        List<FencedRoute> copy = List.copyOf(routes);
        return of(() -> copy, store, keys, FenceHeader.DEFAULT_NAME);
    }

    /**
     * Routes looked up when needed (a framework may only know its annotated endpoints once started);
     * {@code headerName} is the fencing header's name.
     */
    public static InboundFence of(Supplier<List<FencedRoute>> routes, HighWaterStore store, SigningKeys keys,
            String headerName) {
        return new InboundFence(Objects.requireNonNull(routes, "routes"), Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(keys, "keys"), FenceHeader.requireHeaderName(headerName));
    }

    public String headerName() {
        return headerName;
    }

    /** The first route fencing the request and its path variables. */
    public Optional<Map.Entry<FencedRoute, Map<String, String>>> route(String method, String path) {
        for (FencedRoute route : routes.get()) {
            Optional<Map<String, String>> variables = route.match(method, path);
            if (variables.isPresent()) {
                return Optional.of(Map.entry(route, variables.get()));
            }
        }
        return Optional.empty();
    }

    /** The verdict on a request with these values of the fencing header (each occurrence one element). */
    public Verdict check(String method, String path, List<String> headerValues) {
        Optional<Map.Entry<FencedRoute, Map<String, String>>> route = route(method, path);
        if (route.isEmpty()) {
            return Verdict.notFenced();
        }
        return check(route.get().getKey().resource(), route.get().getValue(), headerValues);
    }

    /** The verdict on a request known to be fenced by {@code resource} over {@code variables}. */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, List<String> headerValues) {
        ResourceName expected;
        try {
            expected = resource.resolve(variables).orElse(null);
        } catch (FenceHeaderException e) {
            return Verdict.refused(Problem.malformed(null, e.getMessage()));
        }
        if (headerValues == null || headerValues.isEmpty()) {
            return Verdict.refused(Problem.missing(expected, headerName));
        }
        if (headerValues.size() > 1) {
            return Verdict.refused(Problem.malformed(expected, "the " + headerName + " header occurs "
                    + headerValues.size() + " times; send it once"));
        }
        FenceHeader header;
        try {
            header = FenceHeader.parse(headerValues.get(0));
        } catch (FenceHeaderException e) {
            return Verdict.refused(Problem.malformed(expected, e.getMessage()));
        }
        Fence presented = header.fence();
        try {
            keys.verify(header);
        } catch (FenceHeaderException e) {
            return Verdict.refused(Problem.untrusted(presented, e.getMessage()));
        }
        if (expected != null && !expected.equals(presented.resource())) {
            return Verdict.refused(Problem.untrusted(presented, "the token was issued for '"
                    + presented.resource() + "', not for this endpoint's resource '" + expected + "'"));
        }
        Admission admission;
        try {
            admission = store.admit(presented);
        } catch (RuntimeException e) {
            log.warn("fencing check for '{}' failed; refusing the request", presented.resource(), e);
            return Verdict.refused(Problem.unavailable(presented));
        }
        return admission.admitted() ? Verdict.admitted(admission) : Verdict.refused(Problem.stale(admission));
    }

    @Override
    public String toString() {
        return "InboundFence[" + store + ", " + keys + ", header " + headerName + "]";
    }
}
