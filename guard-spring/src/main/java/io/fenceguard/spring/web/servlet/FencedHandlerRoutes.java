package io.fenceguard.spring.web.servlet;

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
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The routes of the servlet filter: the configured ones, then one per mapping of each {@link FencedEndpoint}
 * controller method, matched with Spring MVC's own path patterns (see {@link AbstractFencedHandlerRoutes}).
 */
public final class FencedHandlerRoutes extends AbstractFencedHandlerRoutes<RequestMappingInfo> {

    private final Supplier<List<RequestMappingHandlerMapping>> mappings;

    public FencedHandlerRoutes(List<FencedRoute> configured, Supplier<List<RequestMappingHandlerMapping>> mappings) {
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
        if (info.getPathPatternsCondition() == null) {
            throw new IllegalStateException("@FencedEndpoint on " + handler + " needs Spring MVC's PathPattern matching "
                    + "(the default); AntPathMatcher mappings are not supported");
        }
        return info.getPathPatternsCondition().getPatterns();
    }
}
