package io.fenceguard.spring.web.webflux;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.spring.web.AbstractFencedHandlerRoutes;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The routes of the WebFlux filter: the configured ones, then one per mapping of each
 * {@link FencedEndpoint} handler method of WebFlux's annotated controllers, matched with their own path
 * patterns (see {@link AbstractFencedHandlerRoutes}).
 */
public final class ReactiveFencedHandlerRoutes extends AbstractFencedHandlerRoutes<RequestMappingInfo> {

    private final Supplier<List<RequestMappingHandlerMapping>> mappings;

    public ReactiveFencedHandlerRoutes(List<FencedRoute> configured,
            Supplier<List<RequestMappingHandlerMapping>> mappings) {
        super(configured);
        this.mappings = mappings;
    }

    @Override
    protected List<Map<RequestMappingInfo, HandlerMethod>> handlerMethods() {
        return mappings.get().stream().map(RequestMappingHandlerMapping::getHandlerMethods).toList();
    }

    @Override
    protected Set<RequestMethod> methods(RequestMappingInfo info) {
        return info.getMethodsCondition().getMethods();
    }

    @Override
    protected Collection<PathPattern> patterns(RequestMappingInfo info, HandlerMethod handler) {
        return info.getPatternsCondition().getPatterns();
    }
}
