package io.fenceguard.autoconfigure.http;

import io.fenceguard.http.FenceGate;
import io.fenceguard.http.FencingFilter;
import io.fenceguard.http.RefusalListener;
import io.fenceguard.http.GuardedRoute;
import io.fenceguard.http.HighWaterStore;
import io.fenceguard.http.SigningKeys;
import io.fenceguard.http.spring.FencedEndpointInterceptor;
import io.fenceguard.http.spring.FencedHandlerRoutes;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/** The fencing filter in a servlet web application, guarding the configured routes and @FencedEndpoint methods. */
@AutoConfiguration(after = {GuardHttpSigningAutoConfiguration.class, GuardHttpStoreAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, RequestMappingHandlerMapping.class})
@ConditionalOnBooleanProperty(name = "guard.http.server.enabled", matchIfMissing = true)
@EnableConfigurationProperties(GuardHttpProperties.class)
public class GuardHttpServerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FenceGate fenceGate(GuardHttpProperties properties, HighWaterStore store, SigningKeys keys,
            ObjectProvider<RequestMappingHandlerMapping> mappings) {
        List<GuardedRoute> configured = properties.getServer().getRoutes().stream()
                .map(route -> GuardedRoute.of(route.getMethods(), route.getPath(), route.getResource()))
                .toList();
        FencedHandlerRoutes routes = new FencedHandlerRoutes(configured, () -> mappings.orderedStream().toList());
        return FenceGate.of(routes, store, keys, properties.getHeaderName());
    }

    /** Refuses @FencedEndpoint handlers for requests the filter did not admit. */
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
    FilterRegistrationBean<FencingFilter> fencingFilterRegistration(FenceGate gate, GuardHttpProperties properties,
            ObjectProvider<RefusalListener> listeners) {
        List<RefusalListener> all = listeners.orderedStream().toList();
        RefusalListener each = (method, path, problem) -> all.forEach(l -> l.refused(method, path, problem));
        FilterRegistrationBean<FencingFilter> registration = new FilterRegistrationBean<>(FencingFilter.of(gate, each));
        registration.setName("fencingFilter");
        registration.setOrder(properties.getServer().getFilterOrder());
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
