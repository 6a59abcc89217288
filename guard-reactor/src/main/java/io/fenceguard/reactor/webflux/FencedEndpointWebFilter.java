package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.Problem;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Behind the {@link FencingWebFilter}: refuses (428, {@code urn:fenceguard:not-admitted}) a request that
 * the fencing filter did not admit but that would reach a {@link FencedEndpoint} handler method, as the
 * servlet stack's {@code FencedEndpointInterceptor} does. So a fencing filter missing or replaced by
 * mistake, or a route it did not match, never runs a fenced handler without a token. Admitted requests
 * pass at once; the others cost one more handler lookup.
 */
public final class FencedEndpointWebFilter implements WebFilter, Ordered {

    private final Supplier<List<RequestMappingHandlerMapping>> mappings;
    private final int order;

    private FencedEndpointWebFilter(Supplier<List<RequestMappingHandlerMapping>> mappings, int order) {
        this.mappings = mappings;
        this.order = order;
    }

    /**
     * @param mappings WebFlux's annotated-controller mappings, looked up when needed
     * @param order among the WebFilters: after the fencing filter's
     */
    public static FencedEndpointWebFilter of(Supplier<List<RequestMappingHandlerMapping>> mappings, int order) {
        return new FencedEndpointWebFilter(Objects.requireNonNull(mappings, "mappings"), order);
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (exchange.getAttribute(FencingWebFilter.ADMISSION_ATTRIBUTE) != null) {
            return chain.filter(exchange);
        }
        return Flux.fromIterable(mappings.get())
                .concatMap(mapping -> mapping.getHandler(exchange).onErrorResume(e -> Mono.empty()))
                .next()
                .map(handler -> handler instanceof HandlerMethod method && method.hasMethodAnnotation(FencedEndpoint.class))
                .defaultIfEmpty(Boolean.FALSE)
                .flatMap(fenced -> fenced
                        ? FencingWebFilter.send(exchange.getResponse(), Problem.notAdmitted(),
                                exchange.getRequest().getPath().value())
                        : chain.filter(exchange));
    }
}
