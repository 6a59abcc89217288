package io.fenceguard.admission;

import java.util.Map;
import java.util.Optional;

/** Matches a request path and extracts its variables: {@link PathTemplate}, or a framework's own patterns. */
@FunctionalInterface
public interface RoutePattern {

    /** The path variables when {@code path} (decoded, without query) matches; empty otherwise. */
    Optional<Map<String, String>> match(String path);
}
