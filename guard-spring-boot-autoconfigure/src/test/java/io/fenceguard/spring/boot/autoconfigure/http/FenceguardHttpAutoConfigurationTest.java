package io.fenceguard.spring.boot.autoconfigure.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.http.filter.JavaHttpFencing;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;

class FenceguardHttpAutoConfigurationTest {

    static final String KEY = "dGVzdC1rZXktQS0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";
    static final String OTHER_KEY = "dGVzdC1rZXktQi0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";

    final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardHttpAutoConfiguration.class));

    @RestController
    static class FencedController {
        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/accounts/{id}")
        String put(@PathVariable String id) {
            return id;
        }
    }

    @RestController
    static class PlainController {
        @GetMapping("/plain")
        String get() {
            return "plain";
        }
    }

    /** A fenced controller defined by a @Bean method rather than found by component scanning. */
    @Configuration(proxyBeanMethods = false)
    static class FencedControllerByBean {
        @Bean
        FencedController fencedController() {
            return new FencedController();
        }
    }

    static FailureAnalysis analysis(AssertableWebApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new HttpFencingFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).as("analysed by the fenceguard failure analyzer").isNotNull();
        assertThat(analysis.getDescription()).doesNotContain("\n");
        return analysis;
    }

    @Test
    void clientOnlyApplicationStartsWithoutKeysAndWithoutFilter() {
        runner.withUserConfiguration(PlainController.class)
                .withPropertyValues("fenceguard.http.client.destinations=http://localhost:8081")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(OutboundFence.class)
                            .hasSingleBean(JavaHttpFencing.class).hasSingleBean(RestClientCustomizer.class)
                            .hasSingleBean(WebClientCustomizer.class)
                            .doesNotHaveBean(InboundFence.class).doesNotHaveBean(HighWaterStore.class)
                            .doesNotHaveBean(FilterRegistrationBean.class);
                    assertThat(context.getBean(SigningKeys.class).isEmpty()).as("unsigned").isTrue();
                });
    }

    @Test
    void fencedEndpointWithoutKeysStopsTheStartupWithOneClearLine() {
        runner.withUserConfiguration(FencedController.class).run(context -> {
            FailureAnalysis analysis = analysis(context);
            assertThat(analysis.getDescription()).contains("fenced HTTP endpoints",
                    "fenceguard.http.signing.required is true", "fenceguard.http.signing.keys is empty");
            assertThat(analysis.getAction()).contains("fenceguard.http.signing.keys.k1=",
                    "fenceguard.http.signing.required=false");
        });
    }

    @Test
    void redisMarksNextToDurableEpochTokensStopTheStartup() {
        runner.withUserConfiguration(FencedController.class).withPropertyValues(
                "fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.store.type=redis",
                "fenceguard.redis.token-epoch=database").run(context -> {
            FailureAnalysis analysis = analysis(context);
            assertThat(analysis.getDescription()).contains("fenceguard.http.store.type=redis", "durable epoch");
            assertThat(analysis.getAction()).contains("fenceguard.http.store.type=jdbc");
        });
    }

    @Test
    void idempotencyKeysAreKeptInRedisNextToTheRedisStore() {
        runner.withUserConfiguration(FencedController.class)
                .withBean(io.fenceguard.redis.RedisScriptClient.class,
                        () -> io.fenceguard.redis.redisson.RedissonScriptClient.of(io.fenceguard.test.support.TestRedisson.shared()))
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.store.type=redis",
                        "fenceguard.http.store.key-prefix=fgtest:" + java.util.UUID.randomUUID().toString().substring(0, 8) + ":",
                        "fenceguard.http.server.idempotency=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(InboundFence.class).store())
                            .isInstanceOf(io.fenceguard.redis.RedisHighWaterStore.class);
                    assertThat(context.getBean(InboundFence.class).verifiesRequestSignatures()).isTrue();
                    assertThat(((io.fenceguard.redis.RedisHighWaterStore) context.getBean(InboundFence.class).store())
                            .idempotencyRetention()).as("the default").isEqualTo(java.time.Duration.ofDays(1));
                });
    }

    @Test
    void theIdempotencyRetentionIsTheStoresAndTooShortAOneStopsStartUp() {
        var redis = runner.withUserConfiguration(FencedController.class)
                .withBean(io.fenceguard.redis.RedisScriptClient.class,
                        () -> io.fenceguard.redis.redisson.RedissonScriptClient.of(io.fenceguard.test.support.TestRedisson.shared()))
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.store.type=redis",
                        "fenceguard.http.store.key-prefix=fgtest:" + java.util.UUID.randomUUID().toString().substring(0, 8) + ":",
                        "fenceguard.http.server.idempotency=true");
        redis.withPropertyValues("fenceguard.http.store.idempotency-retention=15m").run(context ->
                assertThat(((io.fenceguard.redis.RedisHighWaterStore) context.getBean(InboundFence.class).store())
                        .idempotencyRetention()).isEqualTo(java.time.Duration.ofMinutes(15)));
        redis.withPropertyValues("fenceguard.http.store.idempotency-retention=10s").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("an idempotency retention is at least PT1M"));
    }

    @Test
    void fencedEndpointDefinedByABeanMethodIsFoundToo() {
        runner.withUserConfiguration(FencedControllerByBean.class).run(context -> analysis(context));
        runner.withUserConfiguration(FencedControllerByBean.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY)
                .run(context -> assertThat(context).hasSingleBean(InboundFence.class));
    }

    @Test
    void fencedEndpointWithAKeyRegistersTheFilterSigningWithTheOnlyKey() {
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY).run(context -> {
                    assertThat(context).hasSingleBean(InboundFence.class).hasBean("fencingFilterRegistration")
                            .hasBean("fencedEndpointInterceptorConfigurer");
                    assertThat(context.getBean("fencingFilterRegistration", FilterRegistrationBean.class).getFilter())
                            .isInstanceOf(FencingFilter.class);
                    assertThat(context.getBean(HighWaterStore.class)).isInstanceOf(InMemoryHighWaterStore.class);
                    SigningKeys keys = context.getBean(SigningKeys.class);
                    assertThat(keys.activeKeyId()).contains("k1");
                    assertThat(keys.required()).isTrue();
                });
    }

    @Test
    void configuredRouteAloneRegistersTheFilter() {
        runner.withUserConfiguration(PlainController.class).withPropertyValues(
                "fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.server.routes[0].path=/config/{id}",
                "fenceguard.http.server.routes[0].resource=config:{id}")
                .run(context -> assertThat(context).hasSingleBean(InboundFence.class).hasBean("fencingFilterRegistration"));
    }

    @Test
    void unsignedTokensOnlyWhenAllowedExplicitly() {
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.required=false").run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(InboundFence.class);
                    assertThat(context.getBean(SigningKeys.class).required()).isFalse();
                });
        runner.withUserConfiguration(FencedController.class).withPropertyValues(
                "fenceguard.http.signing.required=false", "fenceguard.http.signing.keys.k1=" + KEY).run(context -> {
                    SigningKeys keys = context.getBean(SigningKeys.class);
                    assertThat(keys.required()).as("signed ones verified, unsigned ones admitted").isFalse();
                    assertThat(keys.activeKeyId()).contains("k1");
                });
    }

    @Test
    void filterCanBeSwitchedOffAndNeedsAServletApplication() {
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.server.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(InboundFence.class)
                        .hasSingleBean(OutboundFence.class));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FenceguardHttpAutoConfiguration.class))
                .withUserConfiguration(FencedController.class)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(InboundFence.class)
                        .hasSingleBean(OutboundFence.class));
    }

    @Test
    void clientWithSeveralKeysMustBeToldWhichSigns() {
        runner.withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.signing.keys.k2=" + OTHER_KEY,
                "fenceguard.http.client.destinations=https://ledger.internal").run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription()).contains("2 keys", "no fenceguard.http.signing.active-key");
                    assertThat(analysis.getAction()).contains("Set fenceguard.http.signing.active-key");
                });
        runner.withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.signing.keys.k2=" + OTHER_KEY,
                "fenceguard.http.signing.active-key=k2", "fenceguard.http.client.destinations=https://ledger.internal")
                .run(context -> assertThat(context.getBean(SigningKeys.class).activeKeyId()).contains("k2"));
    }

    @Test
    void demoKeysAreUsedAloneAndNeverNextToConfiguredKeys() {
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.demo-keys.example-1=" + KEY,
                        "fenceguard.http.signing.keys.prod-1=" + OTHER_KEY, "fenceguard.http.signing.active-key=prod-1")
                .run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription()).contains("fenceguard.http.signing.demo-keys [example-1]",
                            "never accepted next to configured keys [prod-1]");
                    assertThat(analysis.getAction()).contains("Remove fenceguard.http.signing.demo-keys");
                });
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.demo-keys.example-1=" + KEY)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SigningKeys keys = context.getBean(SigningKeys.class);
                    assertThat(keys.activeKeyId()).contains("example-1");
                    assertThat(keys.required()).isTrue();
                });
    }

    @Test
    void requestModeSignsCallsOutAndRequiresRequestSignaturesWithTheStoreAsNonceCache() {
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY,
                        "fenceguard.http.client.destinations=https://ledger.internal", "fenceguard.http.server.max-token-skew=2s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(InboundFence.class).verifiesRequestSignatures()).isTrue();
                    assertThat(context.getBean(OutboundFence.class).signsRequests()).isTrue();
                    long now = java.time.Instant.now().toEpochMilli() * 1_000;
                    assertThat(context.getBean(InboundFence.class).tokenBound().ceiling().value())
                            .isBetween(now + 1_000_000, now + 4_000_000);
                });
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.signing.mode=compact")
                .run(context -> {
                    assertThat(context.getBean(InboundFence.class).verifiesRequestSignatures()).isFalse();
                    assertThat(context.getBean(OutboundFence.class).signsRequests()).isFalse();
                });
        // Without keys there is nothing to sign with: unsigned headers as configured, whatever the mode.
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.required=false")
                .run(context -> {
                    assertThat(context.getBean(InboundFence.class).verifiesRequestSignatures()).isFalse();
                    assertThat(context.getBean(OutboundFence.class).signsRequests()).isFalse();
                });
        runner.withUserConfiguration(FencedController.class)
                .withBean(io.fenceguard.admission.HighWaterStore.class, () -> fence -> io.fenceguard.admission.Admission.claimed(fence))
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.signing.mode=request")
                .run(context -> assertThat(analysis(context).getDescription()).contains("needs a nonce store"));
    }

    @Test
    void acceptCompactAdmitsCompactSignedHeadersNextToRequestSignaturesForAFleetsMove() {
        io.fenceguard.core.Fence fence = new io.fenceguard.core.Fence(io.fenceguard.core.ResourceName.of("account:a1"),
                io.fenceguard.core.FencingToken.of(java.time.Instant.now().toEpochMilli() * 1_000));
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.signing.accept-compact=true", ROUTE_METHODS,
                        ROUTE_PATH, ROUTE_RESOURCE)
                .run(context -> {
                    InboundFence inbound = context.getBean(InboundFence.class);
                    assertThat(inbound.verifiesRequestSignatures()).isTrue();
                    String compact = context.getBean(SigningKeys.class).header(fence).value();
                    assertThat(inbound.check(request(compact)).admission()).as(inbound.check(request(compact)).toString()).isPresent();
                });
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, ROUTE_METHODS, ROUTE_PATH, ROUTE_RESOURCE)
                .run(context -> {
                    String compact = context.getBean(SigningKeys.class).header(fence).value();
                    assertThat(context.getBean(InboundFence.class).check(request(compact)).problem()).hasValueSatisfying(p -> assertThat(p.detail()).contains("requires a request signature"));
                });
    }

    private static final String ROUTE_METHODS = "fenceguard.http.server.routes[0].methods=PUT";
    private static final String ROUTE_PATH = "fenceguard.http.server.routes[0].path=/accounts/{id}";
    private static final String ROUTE_RESOURCE = "fenceguard.http.server.routes[0].resource=account:{id}";

    private static io.fenceguard.admission.InboundRequest request(String fencingValue) {
        return new io.fenceguard.admission.InboundRequest("PUT", "/accounts/a1",
                java.net.URI.create("http://localhost/accounts/a1"),
                name -> name.equalsIgnoreCase("Fencing-Token") ? java.util.List.of(fencingValue) : java.util.List.of(),
                new byte[0]);
    }

    @Test
    void aKeyShorterThan32BytesStopsAServerWithOneLine() {
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + java.util.Base64.getEncoder().encodeToString(new byte[31]))
                .run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription()).contains("signing key 'k1' has 31 bytes; at least 32 are needed");
                    assertThat(analysis.getAction()).contains("openssl rand -base64 32");
                });
        runner.withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.demo-keys.d=" + java.util.Base64.getEncoder().encodeToString(new byte[16]))
                .run(context -> assertThat(analysis(context).getDescription()).contains("at least 32"));
    }

    @Test
    void badKeysAreOneClearLineToo() {
        runner.withPropertyValues("fenceguard.http.signing.keys.k1=not base64!").run(context ->
                assertThat(analysis(context).getDescription()).contains("fenceguard.http.signing.keys.k1 is not base64"));
        runner.withPropertyValues("fenceguard.http.signing.keys.k1=c2hvcnQ=").run(context ->
                assertThat(analysis(context).getDescription()).contains("at least 32"));
    }

    @Test
    void destinationsAreMatchedByOriginAndABadOneDoesNotStopTheStartup() {
        runner.withPropertyValues("fenceguard.http.client.destinations=http://localhost:8081/api,ledger:80").run(context -> {
            assertThat(context).hasNotFailed();
            Destinations destinations = context.getBean(OutboundFence.class).destinations();
            assertThat(destinations.allows(URI.create("http://127.0.0.1:8081/api/x"))).isTrue();
            assertThat(destinations.invalid()).containsExactly("ledger:80");
        });
    }

    @Test
    void everyBeanCanBeReplaced() {
        HighWaterStore store = InMemoryHighWaterStore.create();
        SigningKeys keys = SigningKeys.none();
        OutboundFence outbound = OutboundFence.of(Destinations.none(), keys, "X-Fence");
        runner.withUserConfiguration(FencedController.class)
                .withBean(HighWaterStore.class, () -> store).withBean(SigningKeys.class, () -> keys)
                .withBean(OutboundFence.class, () -> outbound)
                .withPropertyValues("fenceguard.http.signing.required=false").run(context -> {
                    assertThat(context.getBean(HighWaterStore.class)).isSameAs(store);
                    assertThat(context.getBean(SigningKeys.class)).isSameAs(keys);
                    assertThat(context.getBean(OutboundFence.class)).isSameAs(outbound);
                    assertThat(context.getBean(JavaHttpFencing.class)).isNotNull();
                });
    }

    @Test
    void ownInboundFenceCountsAsFencedEndpoints() {
        InboundFence own = InboundFence.of(List.of(), InMemoryHighWaterStore.create(), SigningKeys.none());
        runner.withBean(InboundFence.class, () -> own).run(context -> {
            assertThat(context).hasBean("fencingFilterRegistration");
            FencingFilter filter = (FencingFilter) context.getBean("fencingFilterRegistration", FilterRegistrationBean.class)
                    .getFilter();
            assertThat(filter.inboundFence()).isSameAs(own);
        });
    }
}
