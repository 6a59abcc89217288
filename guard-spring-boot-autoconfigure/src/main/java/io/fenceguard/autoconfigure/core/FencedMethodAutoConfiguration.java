package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.annotation.Fenced;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;

/**
 * Applies {@link Fenced} to Spring beans. The advisor is an infrastructure advisor (as for
 * {@code @Transactional}) and ordered before transaction advice, so the lease wraps the transaction.
 */
@AutoConfiguration(after = GuardCoreAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(LeaseManager.class)
public class FencedMethodAutoConfiguration {

    /** Before transaction advice, whose default order is the lowest precedence. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    @Bean
    @ConditionalOnMissingBean(name = "fencedMethodAdvisor")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static Advisor fencedMethodAdvisor(ObjectProvider<LeaseManager> leases) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(Fenced.class),
                new LazyFencedInterceptor(leases));
        advisor.setOrder(ORDER);
        return advisor;
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
