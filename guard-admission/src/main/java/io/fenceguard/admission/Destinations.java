package io.fenceguard.admission;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destinations that may receive fencing tokens, such as {@code https://accounts.internal} or
 * {@code http://localhost:8081/api}: the same {@link Origin} (so {@code localhost} matches a call to
 * {@code 127.0.0.1}, and a missing port is the scheme's default), and the path under the given one on
 * a segment boundary. No destinations: tokens go nowhere.
 *
 * <p>An entry that cannot be parsed is skipped with a warning naming it, rather than stopping the
 * application: a call to that place then sends no token and is itself warned about by
 * {@link OutboundFence}.
 */
public final class Destinations {

    private static final Logger log = LoggerFactory.getLogger(Destinations.class);

    /** One destination: where, and the path prefix. */
    private record Destination(Origin origin, String path) {
        @Override
        public String toString() {
            return origin + (path.equals("/") ? "" : path);
        }
    }

    private final List<Destination> allowed;
    private final List<String> invalid;

    private Destinations(List<Destination> allowed, List<String> invalid) {
        this.allowed = List.copyOf(allowed);
        this.invalid = List.copyOf(invalid);
    }

    public static Destinations of(List<String> destinations) {
        Objects.requireNonNull(destinations, "destinations");
        List<Destination> allowed = new ArrayList<>();
        List<String> invalid = new ArrayList<>();
        for (String text : destinations) {
            try {
                allowed.add(parse(text));
            } catch (IllegalArgumentException e) {
                invalid.add(text);
                log.warn("fenceguard: ignoring token destination '{}': {}. Calls to it carry no fencing token; a "
                        + "destination is an http(s) URL with a host, an optional port and path, such as "
                        + "https://ledger.internal or http://localhost:8081/api", text, e.getMessage());
            }
        }
        return new Destinations(allowed, invalid);
    }

    public static Destinations of(String... destinations) {
        return of(List.of(destinations));
    }

    public static Destinations none() {
        return new Destinations(List.of(), List.of());
    }

    private static Destination parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("it is empty");
        }
        URI uri;
        try {
            uri = new URI(text.trim()).normalize();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("it is no URL (" + e.getReason() + ")");
        }
        Origin origin = Origin.of(uri);
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a destination has no user info, query or fragment");
        }
        return new Destination(origin, path(uri));
    }

    private static String path(URI uri) {
        return uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
    }

    /** Whether a request to {@code uri} may carry the token. */
    public boolean allows(URI uri) {
        Optional<Origin> origin = Origin.find(uri);
        if (origin.isEmpty()) {
            return false;
        }
        // Normalised, so that /api/../admin is not taken for a path under /api.
        String path = path(uri.normalize());
        for (Destination destination : allowed) {
            if (destination.origin().equals(origin.get()) && under(path, destination.path())) {
                return true;
            }
        }
        return false;
    }

    /** Whether some destination has this origin (whatever its path). */
    public boolean includes(Origin origin) {
        return allowed.stream().anyMatch(d -> d.origin().equals(origin));
    }

    public boolean isEmpty() {
        return allowed.isEmpty();
    }

    /** The entries that could not be parsed and were skipped. */
    public List<String> invalid() {
        return invalid;
    }

    private static boolean under(String path, String prefix) {
        if (prefix.equals("/")) {
            return true;
        }
        String base = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        return path.equals(base) || path.startsWith(base + "/");
    }

    @Override
    public String toString() {
        return allowed.toString();
    }
}
