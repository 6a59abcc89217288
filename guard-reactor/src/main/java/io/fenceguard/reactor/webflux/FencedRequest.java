package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.ResourceTemplate;
import java.net.InetSocketAddress;
import java.util.Map;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;

/**
 * A fenced request on the {@link FencingWebFilter}'s way, its route found once: its exchange and chain, method and
 * mapped path, and its {@value IdempotencyKeys#HEADER} ({@code null}: none, or the filter keeps no keys).
 */
record FencedRequest(ServerWebExchange exchange, WebFilterChain chain, String method, String path,
        Map.Entry<FencedRoute, Map<String, String>> route, String key) {

    ResourceTemplate resource() {
        return route.getKey().resource();
    }

    Map<String, String> variables() {
        return route.getValue();
    }

    /** This request in {@code replaced} (its body kept, or its response held). */
    FencedRequest with(ServerWebExchange replaced) {
        return new FencedRequest(replaced, chain, method, path, route, key);
    }

    /** The problem's {@code instance}: the request's path as sent. */
    String instance() {
        return exchange.getRequest().getPath().value();
    }

    /**
     * What the application maps: the path within the application, each segment percent-decoded and
     * without {@code ;parameters}, as the servlet filter sees the servlet path.
     */
    static String decodedPath(ServerHttpRequest request) {
        StringBuilder path = new StringBuilder();
        for (PathContainer.Element element : request.getPath().pathWithinApplication().elements()) {
            if (element instanceof PathContainer.PathSegment segment) {
                path.append(segment.valueToMatch());
            } else {
                path.append(element.value());
            }
        }
        return path.length() == 0 ? "/" : path.toString();
    }

    static String remote(ServerHttpRequest request) {
        InetSocketAddress address = request.getRemoteAddress();
        if (address == null) {
            return "unknown";
        }
        return address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
    }

}
