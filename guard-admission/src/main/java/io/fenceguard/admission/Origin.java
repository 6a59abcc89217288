package io.fenceguard.admission;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a request goes, normalised so that one place has one spelling: scheme ({@code http} or
 * {@code https}, lower case), host (lower case, without a trailing dot; IPv6 literals in canonical
 * form; {@code localhost}, {@code 127.0.0.1} and {@code ::1} all become {@code localhost}, the one
 * loopback), and port (80 or 443 when the URL has none).
 */
public record Origin(String scheme, String host, int port) {

    public static final String LOOPBACK = "localhost";

    public Origin {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
    }

    /**
     * The origin of an absolute http(s) URL.
     *
     * @throws IllegalArgumentException naming what is missing or wrong
     */
    public static Origin of(URI uri) {
        Objects.requireNonNull(uri, "uri");
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("not an absolute http(s) URL: '" + uri + "'");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("no host name in '" + uri + "'"
                    + (uri.getRawAuthority() == null ? "" : " (host names are letters, digits, '-' and '.')"));
        }
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        return new Origin(scheme, host(uri.getHost()), port);
    }

    /** The origin of {@code uri}, or empty when it is no absolute http(s) URL with a host. */
    public static Optional<Origin> find(URI uri) {
        try {
            return uri == null ? Optional.empty() : Optional.of(of(uri));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String host(String raw) {
        String host = raw.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);
        }
        if (host.contains(":")) {
            host = ipv6(host);
        }
        return host.equals(LOOPBACK) || host.equals("127.0.0.1") || host.equals("::1") ? LOOPBACK : host;
    }

    /** An IPv6 literal in one spelling; the loopback as {@code ::1}. A literal needs no name lookup. */
    private static String ipv6(String literal) {
        try {
            InetAddress address = InetAddress.getByName("[" + literal + "]");
            return address.isLoopbackAddress() ? "::1" : address.getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("invalid IPv6 address '" + literal + "'", e);
        }
    }

    @Override
    public String toString() {
        return scheme + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
