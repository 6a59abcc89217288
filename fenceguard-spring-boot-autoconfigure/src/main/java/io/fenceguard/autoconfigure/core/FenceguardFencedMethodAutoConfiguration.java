package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.annotation.Fenced;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Applies {@link Fenced} to Spring beans. The advisor is an infrastructure advisor (as for
 * {@code @Transactional}) ordered before transaction advice, whose default order is the lowest
 * precedence: the lease is taken before the transaction begins and released after it has ended, so
 * every statement of the transaction, the commit included, runs under the lease.
 */
@AutoConfiguration(after = FenceguardLeaseAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(LeaseManager.class)
@Import(FenceguardFencedMethodAutoConfiguration.AutoProxying.class)
public class FenceguardFencedMethodAutoConfiguration {

    /** Before transaction advice ({@code Ordered.LOWEST_PRECEDENCE} unless the application changes it). */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    @Bean
    @ConditionalOnMissingBean(name = "fencedMethodAdvisor")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static Advisor fencedMethodAdvisor(ObjectProvider<LeaseManager> leases) {
        // Inherited: @Fenced on an interface method applies to its implementations too.
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, Fenced.class, true), new LazyFencedInterceptor(leases));
        advisor.setOrder(ORDER);
        return advisor;
    }

    /**
     * Makes sure an auto-proxy creator exists even with {@code spring.aop.auto=false} and no
     * {@code @EnableTransactionManagement}: otherwise {@code @Fenced} methods would run without a lease,
     * silently. Does nothing when Boot's or another one is registered already.
     */
    static class AutoProxying implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }

    /** Resolves the manager at the first call, so that the advisor can be created early as infrastructure. */
    static final class LazyFencedInterceptor implements MethodInterceptor {
        private final ObjectProvider<LeaseManager> leases;
        private volatile FencedMethodInterceptor delegate;

        LazyFencedInterceptor(ObjectProvider<LeaseManager> leases) {
            this.leases = leases;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            FencedMethodInterceptor d = delegate;
            if (d == null) {
                d = new FencedMethodInterceptor(leases.getObject());
                delegate = d;
            }
            return d.invoke(invocation);
        }
    }
}
