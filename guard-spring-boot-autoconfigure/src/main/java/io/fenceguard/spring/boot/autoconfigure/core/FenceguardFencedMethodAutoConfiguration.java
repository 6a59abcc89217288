package io.fenceguard.spring.boot.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.spring.method.FencedMethodAdvisor;
import io.fenceguard.spring.method.FencedMethodsAutoProxyRegistrar;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * Applies {@link Fenced} to Spring beans: the {@link FencedMethodAdvisor} (before transaction advice), and an
 * auto-proxy creator even with {@code spring.aop.auto=false} ({@link FencedMethodsAutoProxyRegistrar}).
 */
@AutoConfiguration(after = FenceguardLeaseAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(LeaseManager.class)
@Import(FencedMethodsAutoProxyRegistrar.class)
public class FenceguardFencedMethodAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "fencedMethodAdvisor")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static Advisor fencedMethodAdvisor(ObjectProvider<LeaseManager> leases) {
        return new FencedMethodAdvisor(leases);
    }
}
