package io.fenceguard.spring.boot.autoconfigure.http;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HttpSigning;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * HTTP fencing ({@code fenceguard.http.*}): calls out carry the current lease's fence to the
 * configured destinations ({@link HttpClientConfiguration}), and in a servlet application with fenced
 * endpoints the fencing filter admits only current tokens ({@link HttpServerConfiguration}). Calls
 * out are signed when a key is configured; a server needs keys unless unsigned tokens are allowed.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfiguration"})
@ConditionalOnClass(OutboundFence.class)
@EnableConfigurationProperties(FenceguardHttpProperties.class)
@Import({HttpClientConfiguration.class, HttpServerConfiguration.class})
public class FenceguardHttpAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SigningKeys fencingSigningKeys(FenceguardHttpProperties properties) {
        return HttpSigning.keys(properties.getSigning());
    }
}
