package io.fenceguard.autoconfigure.http;

import io.fenceguard.http.OutboundFence;
import io.fenceguard.http.spring.FencingExchangeFilterFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.client.WebClient;

/** Sends the current lease's token with {@code WebClient} calls to the configured destinations, when WebFlux is present. */
@AutoConfiguration(after = GuardHttpClientAutoConfiguration.class)
@ConditionalOnClass({WebClient.class, WebClientCustomizer.class})
@ConditionalOnBean(OutboundFence.class)
public class GuardHttpWebClientAutoConfiguration {

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
