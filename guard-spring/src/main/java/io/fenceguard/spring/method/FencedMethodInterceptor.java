package io.fenceguard.spring.method;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.spring.transaction.LeaseRelease;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies {@link Fenced}: evaluates the resource, takes the lease, binds it, runs the method, releases it,
 * or, when the method ran inside a still open transaction, releases it after that transaction completes
 * ({@link LeaseRelease}). {@link FencedMethodAdvisor} applies it to the beans of a context.
 */
public class FencedMethodInterceptor implements MethodInterceptor {

    private final Supplier<LeaseManager> leases;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();
    private final Map<Method, Plan> plans = new ConcurrentHashMap<>();

    public FencedMethodInterceptor(LeaseManager leases) {
        if (leases == null) {
            throw new IllegalArgumentException("leases must not be null");
        }
        this.leases = () -> leases;
    }

    /**
     * Takes the manager from {@code leases} at the first call, so that the interceptor (and its advisor) can be
     * created early, as infrastructure, before the manager's bean.
     */
    public FencedMethodInterceptor(ObjectProvider<LeaseManager> leases) {
        if (leases == null) {
            throw new IllegalArgumentException("leases must not be null");
        }
        this.leases = SingletonSupplier.of(leases::getObject);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Plan plan = plans.computeIfAbsent(method, this::plan);
        String resource = plan.resourceFor(invocation, names);
        LeaseManager manager = leases.get();
        Lease lease = manager.acquire(resource, plan.waitFor() != null ? plan.waitFor() : manager.config().defaultWait());
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            return invocation.proceed();
        } finally {
            // inside a transaction that outlives the method: released after its commit or rollback
            LeaseRelease.release(lease);
        }
    }

    private Plan plan(Method method) {
        Fenced fenced = AnnotatedElementUtils.findMergedAnnotation(method, Fenced.class);
        if (fenced == null) {
            throw new IllegalStateException("no @Fenced on " + method);
        }
        Expression expression;
        try {
            expression = parser.parseExpression(fenced.value());
        } catch (RuntimeException e) {
            throw new FenceguardException("@Fenced on " + method.toGenericString() + ": cannot parse resource expression '"
                    + fenced.value() + "': " + e.getMessage(), null, null, e);
        }
        Duration waitFor = null;
        if (!fenced.waitFor().isBlank()) {
            try {
                waitFor = DurationFormatterUtils.detectAndParse(fenced.waitFor().trim());
            } catch (RuntimeException e) {
                throw new FenceguardException("@Fenced on " + method.toGenericString() + ": wait '" + fenced.waitFor()
                        + "' is not a duration such as 500ms or 5s", null, null, e);
            }
        }
        return new Plan(method, fenced.value(), expression, waitFor);
    }

    private record Plan(Method method, String source, Expression expression, Duration waitFor) {

        String resourceFor(MethodInvocation invocation, ParameterNameDiscoverer names) {
            // The expression comes from code, not from requests; its variables are the parameters.
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method,
                    invocation.getArguments(), names);
            Object value;
            try {
                value = expression.getValue(context);
            } catch (RuntimeException e) {
                throw new FenceguardException("@Fenced on " + method.getName() + ": resource expression '" + source
                        + "' failed: " + e.getMessage(), null, null, e);
            }
            if (value == null) {
                throw new FenceguardException("@Fenced on " + method.getName() + ": resource expression '" + source
                        + "' gave null", null, null);
            }
            return value.toString();
        }
    }
}
