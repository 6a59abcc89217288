package io.fenceguard.http.filter.support;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.http.filter.JavaHttpFencing;
import io.fenceguard.http.filter.spring.FencedEndpointInterceptor;
import io.fenceguard.http.filter.spring.FencingClientHttpRequestInterceptor;
import io.fenceguard.http.filter.spring.FencingExchangeFilterFunction;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.spring.web.servlet.FencedHandlerRoutes;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The module's pieces wired by hand into the test application, as an application without the
 * fenceguard Boot starter would (the auto-configuration lives in a module that depends on this one):
 * signing with two keys (k1 active), the filter on {@code /config/{id}} and every {@code @FencedEndpoint}
 * handler, and the clients. Settings: {@code test.store} ({@code memory} or {@code jdbc}, the
 * DataSource bean), {@code test.fencing} (false: no filter), {@code test.destinations},
 * {@code test.request-signatures} (true: calls out are request-signed, and the filter requires it),
 * {@code test.unsigned} (true: unsigned headers are admitted too), {@code test.join-transaction} (true, with
 * the jdbc store: admission in a transaction around the request, {@link ThreadBoundTransactions}),
 * {@code test.idempotency} (true: idempotency keys kept in the store's backend).
 */
@Configuration(proxyBeanMethods = false)
public class TestWiring {

    public static final String KEY_A = "dGVzdC1rZXktQS0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";
    public static final String KEY_B = "dGVzdC1rZXktQi0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";

    @Bean
    SigningKeys signingKeys(Environment environment) {
        SigningKeys keys = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(KEY_A), "k2",
                Base64.getDecoder().decode(KEY_B)), "k1");
        return environment.getProperty("test.unsigned", Boolean.class, false) ? keys.acceptingUnsigned() : keys;
    }

    @Bean
    OutboundFence outboundFence(Environment environment, SigningKeys keys) {
        List<String> destinations = Binder.get(environment).bind("test.destinations", Bindable.listOf(String.class))
                .orElse(List.of());
        OutboundFence fence = OutboundFence.of(Destinations.of(destinations), keys);
        return environment.getProperty("test.request-signatures", Boolean.class, false) ? fence.withRequestSignatures() : fence;
    }

    @Bean
    JavaHttpFencing javaHttpFencing(OutboundFence fence) {
        return JavaHttpFencing.of(fence);
    }

    @Bean
    RestClientCustomizer fencingRestClientCustomizer(OutboundFence fence) {
        return builder -> builder.requestInterceptor(new FencingClientHttpRequestInterceptor(fence));
    }

    @Bean
    RestTemplateCustomizer fencingRestTemplateCustomizer(OutboundFence fence) {
        return template -> template.getInterceptors().add(new FencingClientHttpRequestInterceptor(fence));
    }

    @Bean
    WebClientCustomizer fencingWebClientCustomizer(OutboundFence fence) {
        return builder -> builder.filter(new FencingExchangeFilterFunction(fence));
    }

    /** A store from outside this module (a bean of this type replaces {@code test.store}). */
    @FunctionalInterface
    public interface CustomStore {
        HighWaterStore create();
    }

    /** The server side, unless {@code test.fencing=false}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "test.fencing", matchIfMissing = true)
    public static class Server {

        @Bean
        HighWaterStore highWaterStore(Environment environment, ObjectProvider<DataSource> dataSource,
                ObjectProvider<CustomStore> custom) {
            CustomStore given = custom.getIfAvailable();
            if (given != null) {
                return given.create();
            }
            if (!"jdbc".equals(environment.getProperty("test.store"))) {
                return InMemoryHighWaterStore.create();
            }
            JdbcHighWaterStore store = JdbcHighWaterStore.of(dataSource.getObject());
            return environment.getProperty("test.join-transaction", Boolean.class, false)
                    ? store.joiningTransactions(transactions(dataSource.getObject()).dataSource()) : store;
        }

        /** The request's transaction for {@code test.join-transaction=true}, one per DataSource. */
        private static final java.util.Map<DataSource, ThreadBoundTransactions> TRANSACTIONS =
                new java.util.concurrent.ConcurrentHashMap<>();

        public static ThreadBoundTransactions transactions(DataSource dataSource) {
            return TRANSACTIONS.computeIfAbsent(dataSource, ThreadBoundTransactions::new);
        }

        @Bean
        InboundFence inboundFence(HighWaterStore store, SigningKeys keys, Environment environment,
                ObjectProvider<RequestMappingHandlerMapping> mappings) {
            List<FencedRoute> configured = List.of(FencedRoute.of(Set.of("PUT"), "/config/{id}", "config:{id}"));
            InboundFence fence = InboundFence.of(new FencedHandlerRoutes(configured, () -> mappings.orderedStream().toList()),
                    store, keys, "Fencing-Token");
            return environment.getProperty("test.request-signatures", Boolean.class, false)
                    ? fence.withRequestSignatures((NonceStore) store, true) : fence;
        }

        @Bean
        @ConditionalOnMissingBean(name = "fencingFilterRegistration")
        FilterRegistrationBean<FencingFilter> fencingFilterRegistration(InboundFence fence,
                ObjectProvider<RefusalListener> listeners, Environment environment, ObjectProvider<DataSource> dataSource) {
            RefusalListener all = refusal -> listeners.orderedStream().forEach(l -> l.refused(refusal));
            FencingFilter filter = FencingFilter.of(fence, all);
            if (environment.getProperty("test.join-transaction", Boolean.class, false)) {
                filter = filter.inTransaction(transactions(dataSource.getObject()));
            }
            if (!environment.getProperty("test.coalescing", Boolean.class, true)) {
                filter = filter.withoutCoalescing();
            }
            if (environment.getProperty("test.idempotency", Boolean.class, false)) {
                filter = filter.withIdempotency((IdempotencyStore) fence.store().backend());
            }
            FilterRegistrationBean<FencingFilter> registration = new FilterRegistrationBean<>(filter);
            registration.addUrlPatterns("/*");
            return registration;
        }

        @Bean
        WebMvcConfigurer fencedEndpointInterceptorConfigurer() {
            return new WebMvcConfigurer() {
                @Override
                public void addInterceptors(InterceptorRegistry registry) {
                    registry.addInterceptor(new FencedEndpointInterceptor());
                }
            };
        }
    }
}
