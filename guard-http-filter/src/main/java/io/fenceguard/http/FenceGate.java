package io.fenceguard.http;

import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides on guarded requests, independent of any server API: finds the route, parses and verifies
 * the fencing header, and admits the token against the high-water store. Everything that is refused
 * is refused before the store is touched, except stale tokens, which the store itself recognises.
 */
public final class FenceGate {

    private static final Logger log = LoggerFactory.getLogger(FenceGate.class);

    private final Supplier<List<GuardedRoute>> routes;
    private final HighWaterStore store;
    private final SigningKeys keys;
    private final String headerName;

    private FenceGate(Supplier<List<GuardedRoute>> routes, HighWaterStore store, SigningKeys keys, String headerName) {
        this.routes = routes;
        this.store = store;
        this.keys = keys;
        this.headerName = headerName;
    }

    public static FenceGate of(List<GuardedRoute> routes, HighWaterStore store, SigningKeys keys) {
        List<GuardedRoute> copy = List.copyOf(routes);
        return of(() -> copy, store, keys, FenceHeader.DEFAULT_NAME);
    }

    /**
     * A gate whose routes are looked up when needed (a framework may only know its annotated
     * endpoints once started); {@code headerName} is the fencing header's name.
     */
    public static FenceGate of(Supplier<List<GuardedRoute>> routes, HighWaterStore store, SigningKeys keys,
            String headerName) {
        if (headerName == null || !headerName.matches("[A-Za-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("a header name is 1 to 64 characters from A-Z a-z 0-9 -");
        }
        return new FenceGate(Objects.requireNonNull(routes, "routes"), Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(keys, "keys"), headerName);
    }

    public String headerName() {
        return headerName;
    }

    /** The first route guarding the request and its path variables. */
    public Optional<Map.Entry<GuardedRoute, Map<String, String>>> route(String method, String path) {
        for (GuardedRoute route : routes.get()) {
            Optional<Map<String, String>> variables = route.match(method, path);
            if (variables.isPresent()) {
                return Optional.of(Map.entry(route, variables.get()));
            }
        }
        return Optional.empty();
    }

    /** The verdict on a request with these values of the fencing header (each occurrence one element). */
    public Verdict check(String method, String path, List<String> headerValues) {
        Optional<Map.Entry<GuardedRoute, Map<String, String>>> route = route(method, path);
        if (route.isEmpty()) {
            return Verdict.unguarded();
        }
        return check(route.get().getKey().resource(), route.get().getValue(), headerValues);
    }

    /** The verdict on a request known to be guarded by {@code resource} over {@code variables}. */
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
        try {
            keys.verify(header);
        } catch (FenceHeaderException e) {
            return Verdict.refused(Problem.forged(header.resource(), header.token(), e.getMessage()));
        }
        if (expected != null && !expected.equals(header.resource())) {
            return Verdict.refused(Problem.forged(header.resource(), header.token(), "the token was issued for '"
                    + header.resource() + "', not for this endpoint's resource '" + expected + "'"));
        }
        Admission admission;
        try {
            admission = store.admit(header.resource(), header.token());
        } catch (RuntimeException e) {
            log.warn("fencing check for '{}' failed; refusing the request", header.resource(), e);
            return Verdict.refused(Problem.unavailable(header.resource(), header.token()));
        }
        return admission.admitted() ? Verdict.admitted(admission) : Verdict.refused(Problem.stale(admission));
    }

    @Override
    public String toString() {
        return "FenceGate[" + store + ", " + keys + ", header " + headerName + "]";
    }
}
