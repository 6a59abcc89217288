package io.fenceguard.spring.boot.autoconfigure.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.hazelcast.HazelcastLeaseProvider;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.hazelcast.HazelcastIssuedTokens;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link HazelcastLeaseProvider} when {@code fenceguard.lease.store=hazelcast} and the application has no
 * {@link LeaseProvider} of its own. It uses the application's {@link HazelcastInstance} bean (Spring Boot's own, or
 * one the application defines), whose CP Subsystem must be enabled; fenceguard never makes an instance of its own.
 * With fenceguard-admission, the provider's {@link HazelcastIssuedTokens} too: a mark no holder was granted is set
 * back at the first refusal.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class,
        afterName = "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration")
@ConditionalOnClass({HazelcastInstance.class, HazelcastLeaseProvider.class})
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore(LeaseStore.HAZELCAST)
@EnableConfigurationProperties(FenceguardHazelcastProperties.class)
public class FenceguardHazelcastAutoConfiguration {

    /** Closed with the context (it gives back the locks it still holds); the Hazelcast instance is not shut down by it. */
    @Bean
    @ConditionalOnBean(HazelcastInstance.class)
    @ConditionalOnMissingBean(LeaseProvider.class)
    public HazelcastLeaseProvider hazelcastLeaseProvider(HazelcastInstance hazelcast,
                                                         FenceguardHazelcastProperties properties) {
        return HazelcastLeaseProvider.of(hazelcast, properties.toHazelcastLeaseConfig());
    }

    /** What the provider minted, for setting back marks it never minted: on the same conditions as the provider. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IssuedTokens.class, HazelcastIssuedTokens.class})
    @ConditionalOnBean(HazelcastInstance.class)
    @ConditionalOnMissingBean({LeaseProvider.class, IssuedTokens.class})
    static class IssuedTokensConfiguration {

        @Bean
        HazelcastIssuedTokens hazelcastIssuedTokens(HazelcastInstance hazelcast, FenceguardHazelcastProperties properties) {
            return HazelcastIssuedTokens.of(hazelcast, properties.toHazelcastLeaseConfig());
        }
    }
}
