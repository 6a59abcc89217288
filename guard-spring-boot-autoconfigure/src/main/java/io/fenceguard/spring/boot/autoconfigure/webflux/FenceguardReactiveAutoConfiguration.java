package io.fenceguard.spring.boot.autoconfigure.webflux;

import io.fenceguard.core.RefusalListener;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import io.fenceguard.spring.boot.autoconfigure.http.HttpFencingConfigurationException;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HttpServerSupport;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcProperties;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.reactor.ReactiveLeases;
import io.fenceguard.reactor.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import io.fenceguard.reactor.webflux.FencedEndpointWebFilter;
import io.fenceguard.reactor.webflux.FencingWebFilter;
import io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore;
import io.fenceguard.spring.web.webflux.ReactiveFencedHandlerRoutes;
import io.fenceguard.reactor.webflux.ReactiveFencingExchangeFilterFunction;
import io.fenceguard.reactor.spring.FencedConnectionFactoryPostProcessor;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.WebFilter;
import reactor.core.scheduler.Schedulers;

/**
 * Reactive stacks ({@code fenceguard-reactor}): {@link ReactiveLeases} on the application's
 * {@link LeaseManager}; in a reactive web application with fenced endpoints, the {@link FencingWebFilter}
 * (same {@code fenceguard.http.*} settings, store and keys as the servlet filter); and {@code WebClient}s
 * from Boot's builder send the fence of the lease in the Reactor Context (falling back to the thread's);
 * R2DBC {@code ConnectionFactory} beans are fenced with the {@code fenceguard.jdbc.*} settings.
 */
@AutoConfiguration(after = FenceguardLeaseAutoConfiguration.class, before = FenceguardHttpAutoConfiguration.class)
@ConditionalOnClass(ReactiveLeases.class)
public class FenceguardReactiveAutoConfiguration {

    @Bean
    @ConditionalOnBean(LeaseManager.class)
    @ConditionalOnMissingBean
    ReactiveLeases reactiveLeases(LeaseManager leaseManager) {
        return ReactiveLeases.of(leaseManager);
    }

    /**
     * Replaces the thread-bound WebClient filter of the HTTP auto-configuration (same bean name, so that
     * one backs off) with one that reads the Reactor Context first.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClient.class, WebClientCustomizer.class, OutboundFence.class,
            ReactiveFencingExchangeFilterFunction.class})
    @ConditionalOnBooleanProperty(name = FenceguardHttpProperties.PREFIX + ".client.enabled", matchIfMissing = true)
    static class WebClients {

        /** The OutboundFence comes from the HTTP auto-configuration, which runs after this one. */
        @Bean
        @ConditionalOnMissingBean(name = "fencingWebClientCustomizer")
        WebClientCustomizer fencingWebClientCustomizer(ObjectProvider<OutboundFence> fence) {
            return builder -> fence.ifAvailable(f -> builder.filter(new ReactiveFencingExchangeFilterFunction(f)));
        }
    }

    /**
     * R2DBC row fencing: every {@code ConnectionFactory} bean is fenced with the JDBC fence's settings
     * ({@code fenceguard.jdbc.tables}, token columns, excluded beans).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ConnectionFactory.class, FencedConnectionFactory.class, FencingConfig.class})
    @ConditionalOnBooleanProperty(name = "fenceguard.jdbc.enabled", matchIfMissing = true)
    static class R2dbc {

        /** Binds {@code fenceguard.jdbc.*} itself, at the first factory: a post-processor must not pull other beans in early. */
        @Bean
        static FencedConnectionFactoryPostProcessor fencedConnectionFactoryPostProcessor(Environment environment) {
            Supplier<FenceguardJdbcProperties> properties = SingletonSupplier.of(() -> FenceguardJdbcProperties.bind(environment));
            return new FencedConnectionFactoryPostProcessor(() -> config(properties.get()),
                    () -> Set.copyOf(properties.get().getExcludedBeans()));
        }

        private static FencingConfig config(FenceguardJdbcProperties props) {
            FencingConfig.Builder builder = FencingConfig.builder().claimMode(props.getClaimMode())
                    .highWaterTable(props.getHighWaterTable()).dialect(props.getDialect()).planCacheSize(props.getPlanCacheSize());
            for (String table : props.getTables()) {
                builder.fence(FencedTable.of(table, props.getTokenColumns().getOrDefault(table, props.getTokenColumn())));
            }
            return builder.build();
        }
    }

    /** The fencing WebFilter in a reactive web application that has fenced endpoints. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass({WebFilter.class, RequestMappingHandlerMapping.class, InboundFence.class, FencingWebFilter.class})
    @ConditionalOnBooleanProperty(name = FenceguardHttpProperties.PREFIX + ".server.enabled", matchIfMissing = true)
    @Conditional(HttpServerSupport.OnFencedEndpoints.class)
    static class WebFluxServer {

        @Bean
        @ConditionalOnMissingBean
        TokenBound fencingTokenBound(FenceguardHttpProperties properties, BeanFactory beans) {
            return HttpServerSupport.tokenBound(properties, beans);
        }

        @Bean
        @ConditionalOnMissingBean
        HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans, TokenBound bound) {
            FenceguardHttpProperties.Store store = properties.getStore();
            // On R2DBC without a DataSource, the JDBC store's tables through R2DBC: admitted, and idempotency keys
            // claimed, without blocking. (Redis through Lettuce or Redisson is so by itself.)
            if (store.getType() == FenceguardHttpProperties.StoreType.JDBC
                    && beans.getBeanProvider(javax.sql.DataSource.class).getIfAvailable() == null
                    && ClassUtils.isPresent("io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore",
                            WebFluxServer.class.getClassLoader())) {
                ConnectionFactory r2dbc = beans.getBeanProvider(ConnectionFactory.class).getIfUnique();
                if (r2dbc != null) {
                    return R2dbcHighWaterStore.of(r2dbc, store.getTable())
                            .withIdempotencyRetention(store.getIdempotencyRetention());
                }
            }
            return HttpServerSupport.highWaterStore(properties, beans, bound);
        }

        @Bean
        @ConditionalOnMissingBean
        InboundFence inboundFence(FenceguardHttpProperties properties, HighWaterStore store, SigningKeys keys,
                TokenBound bound, ObjectProvider<NonceStore> nonceStores,
                ObjectProvider<RequestMappingHandlerMapping> mappings, BeanFactory beans) {
            HttpServerSupport.requireKeysForServer(keys, properties);
            List<FencedRoute> configured = properties.getServer().getRoutes().stream()
                    .map(route -> FencedRoute.of(route.getMethods(), route.getPath(), route.getResource()))
                    .toList();
            InboundFence fence = InboundFence.of(new ReactiveFencedHandlerRoutes(configured,
                    () -> mappings.orderedStream().toList()), store, keys, properties.getHeaderName()).withTokenBound(bound);
            fence = HttpServerSupport.withIssuedTokens(fence, beans);
            return HttpServerSupport.withConfiguredSignatures(fence, properties, keys, store, nonceStores);
        }

        @Bean
        @ConditionalOnMissingBean
        FencingWebFilter fencingWebFilter(InboundFence fence, HighWaterStore store, FenceguardHttpProperties properties,
                ObjectProvider<RefusalListener> listeners) {
            // The in-memory store (decorated or not) never blocks: checked on the event loop. The others go to
            // boundedElastic for what they cannot answer without blocking.
            FencingWebFilter filter = FencingWebFilter.of(fence, RefusalListener.all(listeners.orderedStream().toList()),
                    store.backend() instanceof InMemoryHighWaterStore
                    ? Schedulers.immediate() : Schedulers.boundedElastic())
                    .withOrder(properties.getServer().getFilterOrder())
                    .withMaxSignedBodyBytes((int) Math.min(Integer.MAX_VALUE,
                            properties.getSigning().getMaxSignedBody().toBytes()));
            if (properties.getStore().isJoinHandlerTransaction()) {
                throw new HttpFencingConfigurationException(FenceguardHttpProperties.PREFIX + ".store.join-handler-"
                        + "transaction=true joins the servlet filter's JDBC transactions; this WebFlux application's "
                        + "filter would not join the handler's transaction.", "Define a FencingWebFilter bean of your own, "
                        + "FencingWebFilter.of(fence).inTransaction(R2dbcAdmissionTransaction.of(R2dbcHighWaterStore.of("
                        + "connectionFactory), transactionManager)), or set the property to false.");
            }
            if (properties.getServer().isIdempotency()) {
                filter = filter.withIdempotency(HttpServerSupport.idempotency(fence));
            }
            return properties.getServer().isHandlerOrder() ? filter.inHandlerOrder(HandlerOrder.create()) : filter;
        }

        /** Refuses {@code @FencedEndpoint} handlers for requests the fencing filter did not admit. */
        @Bean
        @ConditionalOnMissingBean
        FencedEndpointWebFilter fencedEndpointWebFilter(FenceguardHttpProperties properties,
                ObjectProvider<RequestMappingHandlerMapping> mappings) {
            return FencedEndpointWebFilter.of(() -> mappings.orderedStream().toList(),
                    properties.getServer().getFilterOrder() + 1);
        }
    }
}
