package io.fenceguard.spring.boot.autoconfigure.http;

import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.http.filter.spring.FencedEndpointInterceptor;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HighWaterStores;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HttpServerSupport;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HttpSigning;
import io.fenceguard.spring.boot.autoconfigure.http.internal.OnFencedEndpointsCondition;
import io.fenceguard.spring.web.servlet.FencedHandlerRoutes;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The fencing filter in a servlet web application that has fenced endpoints (configured routes or
 * {@code @FencedEndpoint} handler methods, see {@link OnFencedEndpointsCondition}); an application
 * that only sends tokens gets no filter, no store and no signing requirement.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, RequestMappingHandlerMapping.class})
@ConditionalOnBooleanProperty(name = FenceguardHttpProperties.PREFIX + ".server.enabled", matchIfMissing = true)
@Conditional(OnFencedEndpointsCondition.class)
class HttpServerConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TokenBound fencingTokenBound(FenceguardHttpProperties properties, BeanFactory beans) {
        return HttpServerSupport.tokenBound(properties, beans);
    }

    @Bean
    @ConditionalOnMissingBean
    HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans, TokenBound bound) {
        return HighWaterStores.create(properties.getStore(), beans, bound);
    }

    @Bean
    @ConditionalOnMissingBean
    InboundFence inboundFence(FenceguardHttpProperties properties, HighWaterStore store, SigningKeys keys,
            TokenBound bound, ObjectProvider<NonceStore> nonceStores, ObjectProvider<RequestMappingHandlerMapping> mappings,
            BeanFactory beans) {
        HttpSigning.requireForServer(keys, properties.getSigning());
        List<FencedRoute> configured = properties.getServer().getRoutes().stream()
                .map(route -> FencedRoute.of(route.getMethods(), route.getPath(), route.getResource()))
                .toList();
        FencedHandlerRoutes routes = new FencedHandlerRoutes(configured, () -> mappings.orderedStream().toList());
        InboundFence fence = HttpServerSupport.withIssuedTokens(
                InboundFence.of(routes, store, keys, properties.getHeaderName()).withTokenBound(bound), beans);
        return HttpServerSupport.withConfiguredSignatures(fence, properties, keys, store, nonceStores);
    }

    /** Refuses {@code @FencedEndpoint} handlers for requests the filter did not admit. */
    @Bean
    @ConditionalOnMissingBean(name = "fencedEndpointInterceptorConfigurer")
    WebMvcConfigurer fencedEndpointInterceptorConfigurer() {
        FencedEndpointInterceptor interceptor = new FencedEndpointInterceptor();
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(interceptor);
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean(name = "fencingFilterRegistration")
    FilterRegistrationBean<FencingFilter> fencingFilterRegistration(InboundFence fence,
            FenceguardHttpProperties properties, ObjectProvider<RefusalListener> listeners, BeanFactory beans) {
        FencingFilter filter = FencingFilter.of(fence, RefusalListener.all(listeners.orderedStream().toList()),
                (int) Math.min(Integer.MAX_VALUE - 1, properties.getSigning().getMaxSignedBody().toBytes()));
        if (properties.getServer().isHandlerOrder()) {
            filter = filter.inHandlerOrder(HandlerOrder.create());
        }
        if (properties.getServer().isIdempotency()) {
            filter = filter.withIdempotency(HttpServerSupport.idempotency(fence));
        }
        if (properties.getStore().isJoinHandlerTransaction()) {
            filter = filter.inTransaction(HandlerTransactions.around(fence.store(), beans));
        }
        FilterRegistrationBean<FencingFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("fencingFilter");
        registration.setOrder(properties.getServer().getFilterOrder());
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
