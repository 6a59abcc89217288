package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.spring.web.webflux.ReactiveFencedHandlerRoutes;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;

/** Annotated WebFlux controllers on Netty: routes from @FencedEndpoint, and the guard behind the filter. */
class FencedEndpointWebFilterTest {

    static final SigningKeys KEYS = SigningKeys.of(
            Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)), "k1");

    @RestController
    static class Accounts {
        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/accounts/{id}")
        Mono<String> put(@PathVariable String id) {
            return Mono.just("written " + id);
        }

        @GetMapping("/accounts/{id}")
        Mono<String> get(@PathVariable String id) {
            return Mono.just("read " + id);
        }
    }

    /** The fencing filter with routes from the controllers, or (misconfigured) with none. */
    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class App {
        static volatile boolean routesFromHandlers = true;

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

        @Bean
        FencingWebFilter fencingWebFilter(org.springframework.beans.factory.ObjectProvider<RequestMappingHandlerMapping> mappings) {
            Supplier<List<FencedRoute>> routes = routesFromHandlers
                    ? new ReactiveFencedHandlerRoutes(List.of(), () -> mappings.orderedStream().toList()) : List::of;
            return FencingWebFilter.of(InboundFence.of(routes, InMemoryHighWaterStore.create(), KEYS, "Fencing-Token"));
        }

        @Bean
        FencedEndpointWebFilter fencedEndpointWebFilter(
                org.springframework.beans.factory.ObjectProvider<RequestMappingHandlerMapping> mappings) {
            return FencedEndpointWebFilter.of(() -> mappings.orderedStream().toList(), 1);
        }
    }

    private static HttpResponse<String> send(NettyServer server, String method, String path, String header) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (header != null) {
            request.header("Fencing-Token", header);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static AnnotationConfigApplicationContext context;

    private static NettyServer start(boolean routesFromHandlers) {
        App.routesFromHandlers = routesFromHandlers;
        context = new AnnotationConfigApplicationContext(App.class);
        return NettyServer.start(WebHttpHandlerBuilder.applicationContext(context).build());
    }

    @org.junit.jupiter.api.AfterEach
    void closeContext() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void fenced_handlers_are_fenced_by_their_own_mappings() throws Exception {
        try (NettyServer server = start(true)) {
            String header = KEYS.header(new Fence(ResourceName.of("account:7"), FencingToken.of(3))).value();
            assertThat(send(server, "PUT", "/accounts/7", header).body()).isEqualTo("written 7");
            HttpResponse<String> missing = send(server, "PUT", "/accounts/7", null);
            assertThat(missing.statusCode()).isEqualTo(428);
            assertThat(missing.body()).contains("urn:fenceguard:missing-token");
            assertThat(send(server, "GET", "/accounts/7", null).body()).isEqualTo("read 7");
        }
    }

    @Test
    void a_fenced_handler_the_filter_did_not_admit_is_refused_with_not_admitted() throws Exception {
        try (NettyServer server = start(false)) {
            HttpResponse<String> refused = send(server, "PUT", "/accounts/7", null);
            assertThat(refused.statusCode()).isEqualTo(428);
            assertThat(refused.body()).contains("urn:fenceguard:not-admitted");
            assertThat(send(server, "GET", "/accounts/7", null).body()).as("unfenced handlers run").isEqualTo("read 7");
            assertThat(send(server, "GET", "/nothing", null).statusCode()).isEqualTo(404);
        }
    }
}
