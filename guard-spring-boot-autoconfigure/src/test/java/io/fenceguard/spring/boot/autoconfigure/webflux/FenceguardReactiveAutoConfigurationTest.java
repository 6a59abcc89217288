package io.fenceguard.spring.boot.autoconfigure.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.Verdict;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpAutoConfiguration;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.http.filter.spring.FencingExchangeFilterFunction;
import io.fenceguard.reactor.ReactiveLeases;
import io.fenceguard.reactor.webflux.FencingWebFilter;
import io.fenceguard.reactor.webflux.ReactiveFencingExchangeFilterFunction;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

class FenceguardReactiveAutoConfigurationTest {

    static final String KEY = "dGVzdC1rZXktQS0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";

    private final AutoConfigurations fenceguard = AutoConfigurations.of(FenceguardLeaseAutoConfiguration.class,
            FenceguardReactiveAutoConfiguration.class, FenceguardHttpAutoConfiguration.class);

    @RestController
    static class FencedController {
        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/accounts/{id}")
        Mono<String> put(@PathVariable String id) {
            return Mono.just(id);
        }
    }

    @RestController
    static class PlainController {
        @GetMapping("/plain")
        Mono<String> get() {
            return Mono.just("plain");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class WebFlux {
    }

    @Test
    void aReactiveAppWithFencedEndpointsGetsTheWebFilterWithRoutesFromItsControllers() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.server.filter-order=-5")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(FencingWebFilter.class)
                            .hasSingleBean(ReactiveLeases.class).doesNotHaveBean(FencingFilter.class);
                    FencingWebFilter filter = context.getBean(FencingWebFilter.class);
                    assertThat(filter.getOrder()).isEqualTo(-5);
                    assertThat(context).hasSingleBean(io.fenceguard.reactor.webflux.FencedEndpointWebFilter.class);
                    assertThat(context.getBean(io.fenceguard.reactor.webflux.FencedEndpointWebFilter.class).getOrder())
                            .as("after the fencing filter").isEqualTo(-4);
                    assertThat(context.getBeansOfType(WebFilter.class)).containsValue(filter);
                    InboundFence fence = context.getBean(InboundFence.class);
                    // The route comes from the WebFlux controller's own mapping.
                    assertThat(fence.route("PUT", "/accounts/42")).hasValueSatisfying(
                            route -> assertThat(route.getValue()).containsEntry("id", "42"));
                    assertThat(fence.route("GET", "/accounts/42")).isEmpty();
                    Verdict missing = fence.check("PUT", "/accounts/42", List.of());
                    assertThat(missing.problem()).hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(428));
                });
    }

    @Test
    void theWebFilterVerifiesRequestSignaturesByDefaultAndCompactOnlyWhenConfigured() {
        ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY);
        runner.run(context -> {
            InboundFence fence = context.getBean(InboundFence.class);
            assertThat(fence.verifiesRequestSignatures()).as("mode request, the default").isTrue();
            // Required: a compact-signed header is refused before the store is asked.
            String compact = io.fenceguard.admission.SigningKeys.of(java.util.Map.of("k1",
                    java.util.Base64.getDecoder().decode(KEY)), "k1").header(new io.fenceguard.core.Fence(
                    io.fenceguard.core.ResourceName.of("account:42"), io.fenceguard.core.FencingToken.of(5))).value();
            Verdict refused = fence.check("PUT", "/accounts/42", List.of(compact));
            assertThat(refused.problem()).hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(403));
        });
        runner.withPropertyValues("fenceguard.http.signing.mode=compact")
                .run(context -> assertThat(context.getBean(InboundFence.class).verifiesRequestSignatures()).isFalse());
    }

    @Test
    void withIdempotencyTheWebFilterAnswersARetriedKeyFromTheFirstResponse() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.signing.mode=compact", "fenceguard.http.server.idempotency=true")
                .run(context -> {
                    FencingWebFilter filter = context.getBean(FencingWebFilter.class);
                    String header = io.fenceguard.admission.SigningKeys.of(java.util.Map.of("k1",
                            java.util.Base64.getDecoder().decode(KEY)), "k1").header(new io.fenceguard.core.Fence(
                            io.fenceguard.core.ResourceName.of("account:42"), io.fenceguard.core.FencingToken.of(5)))
                            .value();
                    java.util.concurrent.atomic.AtomicInteger applied = new java.util.concurrent.atomic.AtomicInteger();
                    org.springframework.web.server.WebFilterChain handler = exchange -> {
                        exchange.getResponse().setStatusCode(org.springframework.http.HttpStatus.CREATED);
                        byte[] body = ("applied " + applied.incrementAndGet()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                        return exchange.getResponse().writeWith(Mono.fromSupplier(
                                () -> exchange.getResponse().bufferFactory().wrap(body)));
                    };
                    for (int send = 1; send <= 2; send++) {
                        var exchange = org.springframework.mock.web.server.MockServerWebExchange.from(
                                org.springframework.mock.http.server.reactive.MockServerHttpRequest.put("/accounts/42")
                                        .header("Fencing-Token", header).header("Idempotency-Key", "k-1").body("{}"));
                        filter.filter(exchange, handler).block(java.time.Duration.ofSeconds(10));
                        assertThat(exchange.getResponse().getStatusCode().value()).isEqualTo(201);
                        assertThat(exchange.getResponse().getBodyAsString().block(java.time.Duration.ofSeconds(5)))
                                .isEqualTo("applied 1");
                        assertThat(exchange.getResponse().getHeaders().getFirst("Idempotent-Replayed"))
                                .isEqualTo(send == 1 ? null : "true");
                    }
                    assertThat(applied.get()).as("applied once for two sends").isOne();
                });
    }

    @Test
    void joiningTheHandlersTransactionIsRefusedAtStartUpWhereTheWebFilterCannotJoinIt() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.store.join-handler-transaction=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("join-handler-transaction=true"));
    }

    @Test
    void aReactiveAppWithoutFencedEndpointsGetsNoFilterAndNeedsNoKeys() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, PlainController.class)
                .withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingWebFilter.class)
                        .doesNotHaveBean(InboundFence.class).hasSingleBean(ReactiveLeases.class));
    }

    @Test
    void fencedEndpointsWithoutKeysFailStartUpWithTheServletFiltersMessage() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class)
                .withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("fenceguard.http.signing.keys"));
    }

    @Test
    void aServletAppGetsNoWebFilter() {
        new WebApplicationContextRunner().withConfiguration(fenceguard)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.server.routes[0].path=/accounts/{id}")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingWebFilter.class));
    }

    @Test
    void webClientsFromBootsBuilderGetTheReactiveFilterInsteadOfTheThreadBoundOne() {
        new ApplicationContextRunner().withConfiguration(fenceguard)
                .withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(WebClientCustomizer.class);
                    WebClient.Builder builder = WebClient.builder();
                    context.getBean(WebClientCustomizer.class).customize(builder);
                    builder.filters(filters -> assertThat(filters).hasSize(1).first()
                            .isInstanceOf(ReactiveFencingExchangeFilterFunction.class)
                            .isNotInstanceOf(FencingExchangeFilterFunction.class));
                });
    }

    @Test
    void noLeaseManagerNoReactiveLeases() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FenceguardReactiveAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReactiveLeases.class));
    }


    /** A ConnectionFactory bean of the application's (no connection is made). */
    @Configuration(proxyBeanMethods = false)
    static class R2dbcFactory {
        @org.springframework.context.annotation.Bean
        io.r2dbc.spi.ConnectionFactory connectionFactory() {
            return new io.r2dbc.spi.ConnectionFactory() {
                @Override
                public org.reactivestreams.Publisher<? extends io.r2dbc.spi.Connection> create() {
                    return Mono.error(new IllegalStateException("not used"));
                }

                @Override
                public io.r2dbc.spi.ConnectionFactoryMetadata getMetadata() {
                    return () -> "PostgreSQL";
                }
            };
        }
    }

    @Test
    void connectionFactoriesAreFencedWithTheJdbcFencesTables() {
        new ApplicationContextRunner().withConfiguration(fenceguard).withUserConfiguration(R2dbcFactory.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.jdbc.tables=accounts")
                .run(context -> assertThat(io.fenceguard.reactor.r2dbc.FencedConnectionFactory.isFenced(
                        context.getBean(io.r2dbc.spi.ConnectionFactory.class))).isTrue());
        new ApplicationContextRunner().withConfiguration(fenceguard).withUserConfiguration(R2dbcFactory.class)
                .withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> assertThat(io.fenceguard.reactor.r2dbc.FencedConnectionFactory.isFenced(
                        context.getBean(io.r2dbc.spi.ConnectionFactory.class))).as("no fenced tables").isFalse());
        new ApplicationContextRunner().withConfiguration(fenceguard).withUserConfiguration(R2dbcFactory.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.jdbc.tables=accounts",
                        "fenceguard.jdbc.excluded-beans=connectionFactory")
                .run(context -> assertThat(io.fenceguard.reactor.r2dbc.FencedConnectionFactory.isFenced(
                        context.getBean(io.r2dbc.spi.ConnectionFactory.class))).as("excluded").isFalse());
    }

    @Test
    void aReactiveAppOnR2dbcWithoutADataSourceKeepsItsMarksThroughR2dbcAndAdmitsWithoutBlocking() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class, R2dbcFactory.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.store.type=jdbc")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    io.fenceguard.admission.HighWaterStore store = context.getBean(io.fenceguard.admission.HighWaterStore.class);
                    assertThat(store.backend())
                            .isInstanceOf(io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore.class);
                    assertThat(store.nonBlocking()).as("offered through any decorator").isPresent();
                    assertThat(context.getBean(InboundFence.class).checksWithoutBlocking()).isTrue();
                });
    }

    @Test
    void withIdempotencyAReactiveAppOnR2dbcWithoutADataSourceKeepsItsKeysThroughR2dbcWithoutBlocking() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class, R2dbcFactory.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.store.type=jdbc", "fenceguard.http.server.idempotency=true",
                        "fenceguard.http.store.idempotency-retention=2h")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    io.fenceguard.admission.HighWaterStore store = context.getBean(io.fenceguard.admission.HighWaterStore.class);
                    assertThat(store.backend()).isInstanceOfSatisfying(
                            io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore.class,
                            r2dbc -> assertThat(r2dbc.idempotencyRetention()).as("the configured retention")
                                    .isEqualTo(java.time.Duration.ofHours(2)));
                    assertThat(store.idempotentAdmissions()).as("keys claimed with the admission").isPresent();
                    assertThat(store.nonBlocking().flatMap(io.fenceguard.admission.NonBlockingAdmissionStore::idempotentAdmissions))
                            .as("and without blocking, offered through any decorator").isPresent();
                    assertThat(context.getBean(InboundFence.class).checksWithoutBlocking()).isTrue();
                    assertThat(context).hasSingleBean(FencingWebFilter.class);
                });
    }

    @Test
    void withIdempotencyAndTwoConnectionFactoriesTheR2dbcStoreIsNotChosen() {
        new ReactiveWebApplicationContextRunner().withConfiguration(fenceguard)
                .withUserConfiguration(WebFlux.class, FencedController.class, R2dbcFactory.class, SecondR2dbcFactory.class)
                .withPropertyValues("fenceguard.lease.store=memory", "fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.store.type=jdbc", "fenceguard.http.server.idempotency=true")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("needs exactly one DataSource bean"));
    }

    /** A second ConnectionFactory bean: which one keeps the marks is then the application's choice. */
    @Configuration(proxyBeanMethods = false)
    static class SecondR2dbcFactory {
        @org.springframework.context.annotation.Bean
        io.r2dbc.spi.ConnectionFactory otherConnectionFactory() {
            return new R2dbcFactory().connectionFactory();
        }
    }
}
