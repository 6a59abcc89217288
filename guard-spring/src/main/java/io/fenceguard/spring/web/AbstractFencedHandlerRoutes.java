package io.fenceguard.spring.web;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.ResourceTemplate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The routes of a fencing filter: the configured ones, then one per path pattern of each
 * {@link FencedEndpoint} handler method, matched with the web stack's own {@link PathPattern}s. Collected
 * once, on the first request, when all handler mappings are known. Spring MVC and WebFlux differ only in
 * their mapping types, which the subclasses read.
 *
 * @param <I> the stack's request mapping info
 */
public abstract class AbstractFencedHandlerRoutes<I> implements Supplier<List<FencedRoute>> {

    private final List<FencedRoute> configured;
    private volatile List<FencedRoute> routes;

    protected AbstractFencedHandlerRoutes(List<FencedRoute> configured) {
        this.configured = List.copyOf(configured);
    }

    /** The handler methods of each of the stack's request mappings, by mapping info. */
    protected abstract List<Map<I, HandlerMethod>> handlerMethods();

    /** The HTTP methods of a mapping (empty: all). */
    protected abstract Set<RequestMethod> methods(I info);

    /** The path patterns of a mapping of {@code handler}. */
    protected abstract Collection<PathPattern> patterns(I info, HandlerMethod handler);

    @Override
    public final List<FencedRoute> get() {
        List<FencedRoute> known = routes;
        if (known == null) {
            synchronized (this) {
                if (routes == null) {
                    routes = collect();
                }
                known = routes;
            }
        }
        return known;
    }

    private List<FencedRoute> collect() {
        List<FencedRoute> all = new ArrayList<>(configured);
        for (Map<I, HandlerMethod> handlers : handlerMethods()) {
            for (Map.Entry<I, HandlerMethod> entry : handlers.entrySet()) {
                FencedEndpoint fenced = entry.getValue().getMethodAnnotation(FencedEndpoint.class);
                if (fenced != null) {
                    ResourceTemplate resource = ResourceTemplate.of(fenced.resource());
                    Set<String> methods = methods(entry.getKey()).stream().map(Enum::name).collect(Collectors.toSet());
                    for (PathPattern pattern : patterns(entry.getKey(), entry.getValue())) {
                        all.add(FencedRoute.of(methods, path -> match(pattern, path), resource));
                    }
                }
            }
        }
        return List.copyOf(all);
    }

    private static Optional<Map<String, String>> match(PathPattern pattern, String path) {
        PathPattern.PathMatchInfo info = pattern.matchAndExtract(PathContainer.parsePath(path));
        return info == null ? Optional.empty() : Optional.of(info.getUriVariables());
    }
}
