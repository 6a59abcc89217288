package io.fenceguard.spring.boot.autoconfigure.http;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.http.filter.JavaHttpFencing;
import io.fenceguard.http.filter.spring.FencingClientHttpRequestInterceptor;
import io.fenceguard.http.filter.spring.FencingExchangeFilterFunction;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HttpSigning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Calls out carry the current lease's fence to {@code fenceguard.http.client.destinations}: through
 * every {@code RestClient.Builder}, {@code RestTemplateBuilder} and {@code WebClient.Builder} Boot
 * provides, and with {@link JavaHttpFencing} for {@code java.net.http}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = FenceguardHttpProperties.PREFIX + ".client.enabled", matchIfMissing = true)
class HttpClientConfiguration {

    private static final Logger log = LoggerFactory.getLogger(HttpClientConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    OutboundFence outboundFence(FenceguardHttpProperties properties, SigningKeys keys) {
        // Destinations warns about entries it cannot parse, here at startup.
        Destinations destinations = Destinations.of(properties.getClient().getDestinations());
        if (!destinations.isEmpty()) {
            HttpSigning.requireSignerForClient(keys, properties.getSigning());
            log.info("fenceguard: calls under a lease to {} carry the {} header, {}", destinations,
                    properties.getHeaderName(), keys.activeKeyId().map(id -> "signed with key '" + id + "'")
                            .orElse("unsigned (no " + HttpSigning.KEYS + ")"));
        }
        OutboundFence fence = OutboundFence.of(destinations, keys, properties.getHeaderName());
        return properties.getSigning().getMode() == FenceguardHttpProperties.SignatureMode.REQUEST
                ? fence.withRequestSignatures() : fence;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JavaHttpFencing.class)
    static class JavaHttpClients {

        @Bean
        @ConditionalOnMissingBean
        JavaHttpFencing javaHttpFencing(OutboundFence fence) {
            return JavaHttpFencing.of(fence);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestClientCustomizer.class, ClientHttpRequestInterceptor.class})
    static class RestClients {

        @Bean
        @ConditionalOnMissingBean
        FencingClientHttpRequestInterceptor fencingClientHttpRequestInterceptor(OutboundFence fence) {
            return new FencingClientHttpRequestInterceptor(fence);
        }

        @Bean
        @ConditionalOnMissingBean(name = "fencingRestClientCustomizer")
        RestClientCustomizer fencingRestClientCustomizer(FencingClientHttpRequestInterceptor interceptor) {
            return builder -> builder.requestInterceptor(interceptor);
        }

        @Bean
        @ConditionalOnMissingBean(name = "fencingRestTemplateCustomizer")
        RestTemplateCustomizer fencingRestTemplateCustomizer(FencingClientHttpRequestInterceptor interceptor) {
            return restTemplate -> restTemplate.getInterceptors().add(interceptor);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClient.class, WebClientCustomizer.class})
    static class WebClients {

        @Bean
        @ConditionalOnMissingBean
        FencingExchangeFilterFunction fencingExchangeFilterFunction(OutboundFence fence) {
            return new FencingExchangeFilterFunction(fence);
        }

        @Bean
        @ConditionalOnMissingBean(name = "fencingWebClientCustomizer")
        WebClientCustomizer fencingWebClientCustomizer(FencingExchangeFilterFunction filter) {
            return builder -> builder.filter(filter);
        }
    }
}
