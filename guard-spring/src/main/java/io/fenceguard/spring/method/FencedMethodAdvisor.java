package io.fenceguard.spring.method;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.annotation.Fenced;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@link Fenced} to the beans of a context that has an auto-proxy creator. An infrastructure advisor
 * (as for {@code @Transactional}) ordered before transaction advice, whose default order is the lowest
 * precedence: the lease is taken before the transaction begins and released after it has ended, so every
 * statement of the transaction, the commit included, runs under the lease.
 */
public class FencedMethodAdvisor extends AbstractPointcutAdvisor {

    /** Before transaction advice ({@code Ordered.LOWEST_PRECEDENCE} unless the application changes it). */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    // Inherited: @Fenced on an interface method applies to its implementations too.
    private final Pointcut pointcut = new AnnotationMatchingPointcut(null, Fenced.class, true);
    private final FencedMethodInterceptor interceptor;

    /** On {@code leases}. */
    public FencedMethodAdvisor(LeaseManager leases) {
        this(new FencedMethodInterceptor(leases));
    }

    /** On the manager {@code leases} gives at the first {@code @Fenced} call. */
    public FencedMethodAdvisor(ObjectProvider<LeaseManager> leases) {
        this(new FencedMethodInterceptor(leases));
    }

    private FencedMethodAdvisor(FencedMethodInterceptor interceptor) {
        this.interceptor = interceptor;
        setOrder(ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
