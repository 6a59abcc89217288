package io.fenceguard.spring.boot.autoconfigure.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.etcd.EtcdLeaseProvider;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.etcd.EtcdIssuedTokens;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * An {@link EtcdLeaseProvider} when {@code fenceguard.lease.store=etcd} and the application has no
 * {@link LeaseProvider} of its own. It uses the application's jetcd {@link Client} bean; without one it makes (and
 * closes with the context) its own from {@code fenceguard.etcd.endpoints}. With fenceguard-admission, the provider's
 * {@link EtcdIssuedTokens} too: a mark no holder was granted is set back at the first refusal.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class)
@ConditionalOnClass({Client.class, EtcdLeaseProvider.class})
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore(LeaseStore.ETCD)
@EnableConfigurationProperties(FenceguardEtcdProperties.class)
public class FenceguardEtcdAutoConfiguration {

    /** Closed with the context; only when the application has no jetcd client. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Client.class)
    @ConditionalOnProperty("fenceguard.etcd.endpoints")
    public Client fenceguardEtcdClient(FenceguardEtcdProperties properties) {
        return properties.toClient();
    }

    /** Closed with the context (it revokes the etcd leases it still holds); the jetcd client is not closed by it. */
    @Bean
    @ConditionalOnBean(Client.class)
    @ConditionalOnMissingBean(LeaseProvider.class)
    public EtcdLeaseProvider etcdLeaseProvider(Client client, FenceguardEtcdProperties properties) {
        return EtcdLeaseProvider.of(client, properties.toEtcdLeaseConfig());
    }

    /**
     * What the provider minted, for setting back marks it never minted: on the same conditions as the provider
     * (this class's own client is not registered yet when they are judged, hence the mirrored ones).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IssuedTokens.class, EtcdIssuedTokens.class})
    @Conditional(ClientAvailable.class)
    @ConditionalOnMissingBean({LeaseProvider.class, IssuedTokens.class})
    static class IssuedTokensConfiguration {

        @Bean
        EtcdIssuedTokens etcdIssuedTokens(ObjectProvider<Client> client, FenceguardEtcdProperties properties) {
            return EtcdIssuedTokens.of(client.getObject(), properties.toEtcdLeaseConfig());
        }
    }

    /** The application's jetcd client, or the settings of this class's own. */
    static final class ClientAvailable extends AnyNestedCondition {

        ClientAvailable() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(Client.class)
        static final class ApplicationClient {
        }

        @ConditionalOnProperty("fenceguard.etcd.endpoints")
        static final class OwnClient {
        }
    }
}
