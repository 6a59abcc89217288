package io.fenceguard.http.support;

import io.fenceguard.http.Destinations;
import io.fenceguard.http.FencedRoute;
import io.fenceguard.http.FencingFilter;
import io.fenceguard.http.HighWaterStore;
import io.fenceguard.http.InMemoryHighWaterStore;
import io.fenceguard.http.InboundFence;
import io.fenceguard.http.JavaHttpFencing;
import io.fenceguard.http.JdbcHighWaterStore;
import io.fenceguard.http.OutboundFence;
import io.fenceguard.http.RefusalListener;
import io.fenceguard.http.SigningKeys;
import io.fenceguard.http.spring.FencedEndpointInterceptor;
import io.fenceguard.http.spring.FencedHandlerRoutes;
import io.fenceguard.http.spring.FencingClientHttpRequestInterceptor;
import io.fenceguard.http.spring.FencingExchangeFilterFunction;
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
 * DataSource bean), {@code test.fencing} (false: no filter), {@code test.destinations}.
 */
@Configuration(proxyBeanMethods = false)
public class TestWiring {

    public static final String KEY_A = "dGVzdC1rZXktQS0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";
    public static final String KEY_B = "dGVzdC1rZXktQi0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";

    @Bean
    SigningKeys signingKeys() {
        return SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(KEY_A), "k2", Base64.getDecoder().decode(KEY_B)),
                "k1");
    }

    @Bean
    OutboundFence outboundFence(Environment environment, SigningKeys keys) {
        List<String> destinations = Binder.get(environment).bind("test.destinations", Bindable.listOf(String.class))
                .orElse(List.of());
        return OutboundFence.of(Destinations.of(destinations), keys);
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

    /** The server side, unless {@code test.fencing=false}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "test.fencing", matchIfMissing = true)
    static class Server {

        @Bean
        HighWaterStore highWaterStore(Environment environment, ObjectProvider<DataSource> dataSource) {
            return "jdbc".equals(environment.getProperty("test.store"))
                    ? JdbcHighWaterStore.of(dataSource.getObject()) : InMemoryHighWaterStore.create();
        }

        @Bean
        InboundFence inboundFence(HighWaterStore store, SigningKeys keys,
                ObjectProvider<RequestMappingHandlerMapping> mappings) {
            List<FencedRoute> configured = List.of(FencedRoute.of(Set.of("PUT"), "/config/{id}", "config:{id}"));
            return InboundFence.of(new FencedHandlerRoutes(configured, () -> mappings.orderedStream().toList()), store,
                    keys, "Fencing-Token");
        }

        @Bean
        @ConditionalOnMissingBean(name = "fencingFilterRegistration")
        FilterRegistrationBean<FencingFilter> fencingFilterRegistration(InboundFence fence,
                ObjectProvider<RefusalListener> listeners) {
            RefusalListener all = (method, path, problem) -> listeners.orderedStream()
                    .forEach(l -> l.refused(method, path, problem));
            FilterRegistrationBean<FencingFilter> registration = new FilterRegistrationBean<>(FencingFilter.of(fence, all));
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
