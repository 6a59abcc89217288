package io.fenceguard.spring.boot.autoconfigure.zookeeper;

import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.zookeeper.ZooKeeperLeaseProvider;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.zookeeper.ZooKeeperIssuedTokens;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
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
 * A {@link ZooKeeperLeaseProvider} when {@code fenceguard.lease.store=zookeeper} and the application has no
 * {@link LeaseProvider} of its own. It uses the application's {@link CuratorFramework} bean; without one
 * it makes (and closes) its own from {@code fenceguard.zookeeper.connect-string}. With fenceguard-admission, the
 * provider's {@link ZooKeeperIssuedTokens} too: a mark no holder was granted is set back at the first refusal.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class)
@ConditionalOnClass({CuratorFramework.class, ZooKeeperLeaseProvider.class})
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore(LeaseStore.ZOOKEEPER)
@EnableConfigurationProperties(FenceguardZooKeeperProperties.class)
public class FenceguardZooKeeperAutoConfiguration {

    /** Started here and closed with the context; only when the application has no Curator client. */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean(CuratorFramework.class)
    @ConditionalOnProperty("fenceguard.zookeeper.connect-string")
    public CuratorFramework fenceguardCuratorFramework(FenceguardZooKeeperProperties properties) {
        return CuratorFrameworkFactory.builder()
                .connectString(properties.getConnectString())
                .sessionTimeoutMs(Math.toIntExact(properties.getSessionTimeout().toMillis()))
                .connectionTimeoutMs(Math.toIntExact(properties.getConnectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(100, 5))
                .build();
    }

    /** Closed with the context (it frees its own threads); the Curator client is not closed by it. */
    @Bean
    @ConditionalOnBean(CuratorFramework.class)
    @ConditionalOnMissingBean(LeaseProvider.class)
    public ZooKeeperLeaseProvider zooKeeperLeaseProvider(CuratorFramework curator, FenceguardZooKeeperProperties properties) {
        return ZooKeeperLeaseProvider.of(curator, properties.toZooKeeperLeaseConfig());
    }

    /**
     * What the provider minted, for setting back marks it never minted: on the same conditions as the provider
     * (this class's own Curator client is not registered yet when they are judged, hence the mirrored ones).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IssuedTokens.class, ZooKeeperIssuedTokens.class})
    @Conditional(CuratorAvailable.class)
    @ConditionalOnMissingBean({LeaseProvider.class, IssuedTokens.class})
    static class IssuedTokensConfiguration {

        @Bean
        ZooKeeperIssuedTokens zooKeeperIssuedTokens(ObjectProvider<CuratorFramework> curator,
                                                    FenceguardZooKeeperProperties properties) {
            return ZooKeeperIssuedTokens.of(curator.getObject(), properties.toZooKeeperLeaseConfig());
        }
    }

    /** The application's Curator client, or the settings of this class's own. */
    static final class CuratorAvailable extends AnyNestedCondition {

        CuratorAvailable() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(CuratorFramework.class)
        static final class ApplicationClient {
        }

        @ConditionalOnProperty("fenceguard.zookeeper.connect-string")
        static final class OwnClient {
        }
    }
}
