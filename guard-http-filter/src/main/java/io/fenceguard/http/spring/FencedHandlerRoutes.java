package io.fenceguard.http.spring;

import io.fenceguard.http.FencedEndpoint;
import io.fenceguard.http.FencedRoute;
import io.fenceguard.http.ResourceTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The routes of the filter: the configured ones, then one per mapping of each {@link FencedEndpoint}
 * controller method, matched with Spring MVC's own path patterns. Collected once, on the first
 * request, when all handler mappings are known.
 */
public final class FencedHandlerRoutes implements Supplier<List<FencedRoute>> {

    private final List<FencedRoute> configured;
    private final Supplier<List<RequestMappingHandlerMapping>> mappings;
    private volatile List<FencedRoute> routes;

    public FencedHandlerRoutes(List<FencedRoute> configured, Supplier<List<RequestMappingHandlerMapping>> mappings) {
        this.configured = List.copyOf(configured);
        this.mappings = mappings;
    }

    @Override
    public List<FencedRoute> get() {
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
        for (RequestMappingHandlerMapping mapping : mappings.get()) {
            for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : mapping.getHandlerMethods().entrySet()) {
                FencedEndpoint fenced = entry.getValue().getMethodAnnotation(FencedEndpoint.class);
                if (fenced != null) {
                    all.addAll(routes(entry.getKey(), ResourceTemplate.of(fenced.resource()), entry.getValue()));
                }
            }
        }
        return List.copyOf(all);
    }

    private static List<FencedRoute> routes(RequestMappingInfo info, ResourceTemplate resource, HandlerMethod handler) {
        Set<String> methods = info.getMethodsCondition().getMethods().stream().map(Enum::name)
                .collect(Collectors.toSet());
        if (info.getPathPatternsCondition() == null) {
            throw new IllegalStateException("@FencedEndpoint on " + handler + " needs Spring MVC's PathPattern matching "
                    + "(the default); AntPathMatcher mappings are not supported");
        }
        List<FencedRoute> routes = new ArrayList<>();
        for (PathPattern pattern : info.getPathPatternsCondition().getPatterns()) {
            routes.add(FencedRoute.of(methods, path -> match(pattern, path), resource));
        }
        return routes;
    }

    private static Optional<Map<String, String>> match(PathPattern pattern, String path) {
        PathPattern.PathMatchInfo info = pattern.matchAndExtract(PathContainer.parsePath(path));
        return info == null ? Optional.empty() : Optional.of(info.getUriVariables());
    }
}
