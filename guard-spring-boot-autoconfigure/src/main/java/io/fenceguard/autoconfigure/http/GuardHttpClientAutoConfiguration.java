package io.fenceguard.autoconfigure.http;

import io.fenceguard.http.Destinations;
import io.fenceguard.http.JavaHttpFencing;
import io.fenceguard.http.OutboundFence;
import io.fenceguard.http.SigningKeys;
import io.fenceguard.http.spring.FencingClientHttpRequestInterceptor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sends the current lease's token with outgoing calls to {@code guard.http.client.destinations}:
 * through every {@code RestClient.Builder} and {@code RestTemplateBuilder} Boot provides, and with
 * {@link JavaHttpFencing} for {@code java.net.http}.
 */
@AutoConfiguration(after = GuardHttpSigningAutoConfiguration.class)
@EnableConfigurationProperties(GuardHttpProperties.class)
public class GuardHttpClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutboundFence outboundFence(GuardHttpProperties properties, SigningKeys keys) {
        return OutboundFence.of(Destinations.of(properties.getClient().getDestinations()), keys,
                properties.getHeaderName());
    }

    @Bean
    @ConditionalOnMissingBean
    JavaHttpFencing javaHttpFencing(OutboundFence fence) {
        return JavaHttpFencing.of(fence);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestClientCustomizer.class, FencingClientHttpRequestInterceptor.class,
            org.springframework.http.client.ClientHttpRequestInterceptor.class})
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
}
