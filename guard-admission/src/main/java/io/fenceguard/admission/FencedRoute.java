package io.fenceguard.admission;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Requests that must carry a current token: methods (none listed: all), a path pattern and the resource. */
public final class FencedRoute {

    private final Set<String> methods;
    private final RoutePattern pattern;
    private final ResourceTemplate resource;

    private FencedRoute(Set<String> methods, RoutePattern pattern, ResourceTemplate resource) {
        this.methods = methods;
        this.pattern = pattern;
        this.resource = resource;
    }

    public static FencedRoute of(Set<String> methods, RoutePattern pattern, ResourceTemplate resource) {
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(resource, "resource");
        Set<String> upper = methods == null ? Set.of()
                : methods.stream().map(m -> m.trim().toUpperCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        return new FencedRoute(upper, pattern, resource);
    }

    /** {@code of(Set.of("PUT", "POST"), "/accounts/{id}/**", "account:{id}")}. */
    public static FencedRoute of(Set<String> methods, String pathPattern, String resourceTemplate) {
        return of(methods, PathTemplate.of(pathPattern), ResourceTemplate.of(resourceTemplate));
    }

    /** The path variables when this route fences the request. */
    public Optional<Map<String, String>> match(String method, String path) {
        if (!methods.isEmpty() && !methods.contains(method.toUpperCase(Locale.ROOT))) {
            return Optional.empty();
        }
        return pattern.match(path);
    }

    public ResourceTemplate resource() {
        return resource;
    }

    @Override
    public String toString() {
        return (methods.isEmpty() ? "*" : String.join(",", methods)) + " " + pattern + " -> " + resource;
    }
}
