package io.fenceguard.http;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The destinations that may receive fencing tokens, such as {@code https://accounts.internal} or
 * {@code http://localhost:8081/api}: same scheme, host and port (defaults filled in), and the path
 * under the given one on a segment boundary. No destinations: tokens go nowhere.
 */
public final class Destinations {

    private final List<URI> allowed;

    private Destinations(List<URI> allowed) {
        this.allowed = allowed;
    }

    public static Destinations of(List<String> destinations) {
        Objects.requireNonNull(destinations, "destinations");
        return new Destinations(destinations.stream().map(Destinations::parse).toList());
    }

    public static Destinations of(String... destinations) {
        return of(List.of(destinations));
    }

    public static Destinations none() {
        return new Destinations(List.of());
    }

    private static URI parse(String text) {
        URI uri;
        try {
            uri = URI.create(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid token destination '" + text + "'", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new IllegalArgumentException("a token destination is an absolute http(s) URL with a host, got '"
                    + text + "'");
        }
        if (uri.getUserInfo() != null || uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("a token destination has no user info, query or fragment: '" + text + "'");
        }
        String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
        return URI.create(scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port(scheme, uri.getPort())
                + path);
    }

    private static int port(String scheme, int port) {
        return port >= 0 ? port : scheme.equals("https") ? 443 : 80;
    }

    /** Whether a request to {@code uri} may carry the token. */
    public boolean allows(URI uri) {
        if (uri == null || uri.getScheme() == null || uri.getHost() == null) {
            return false;
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        int port = port(scheme, uri.getPort());
        String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
        for (URI destination : allowed) {
            if (destination.getScheme().equals(scheme) && destination.getHost().equals(host)
                    && destination.getPort() == port && under(path, destination.getPath())) {
                return true;
            }
        }
        return false;
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
        return "Destinations" + allowed;
    }
}
