package io.fenceguard.spring.boot.autoconfigure.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.hazelcast.HazelcastLeaseProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link HazelcastLeaseProvider} when {@code fenceguard.lease.store=hazelcast} and the application has no
 * {@link LeaseProvider} of its own. It uses the application's {@link HazelcastInstance} bean (Spring Boot's own, or
 * one the application defines), whose CP Subsystem must be enabled; fenceguard never makes an instance of its own.
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
}
