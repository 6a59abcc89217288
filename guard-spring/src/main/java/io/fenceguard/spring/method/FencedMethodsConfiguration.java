package io.fenceguard.spring.method;

import io.fenceguard.core.LeaseManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * {@code @Fenced} in a Spring application: the {@link FencedMethodAdvisor} on the context's
 * {@link LeaseManager} bean, and an auto-proxy creator. Imported by {@link EnableFencedMethods}.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@Import(FencedMethodsAutoProxyRegistrar.class)
public class FencedMethodsConfiguration {

    /** Static and lazy on the manager: advisors are created before the other beans. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static FencedMethodAdvisor fencedMethodAdvisor(ObjectProvider<LeaseManager> leases) {
        return new FencedMethodAdvisor(leases);
    }
}
