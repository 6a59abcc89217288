package io.fenceguard.spring.jdbc;

import io.fenceguard.jdbc.FencedDataSource;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import javax.sql.DataSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.ProxyFactory;

/**
 * The fence of a DataSource bean that other beans inject by its own class, as in
 * {@code @Bean HikariDataSource pool()} under {@code new LazyConnectionDataSourceProxy(pool)}: a
 * {@link FencedDataSource} is no {@code HikariDataSource}, so such a bean becomes a subclass proxy of its
 * class instead. The proxy's connections come from the fence, and {@code unwrap}/{@code isWrapperFor}
 * answer as the fence does (so it counts as fenced, and {@link FencedDataSource#unfenced} reaches the
 * pool); every other method (pool settings, metrics, close) is the pool's own.
 */
final class ClassPreservingFence implements MethodInterceptor {

    private final FencedDataSource fence;

    private ClassPreservingFence(FencedDataSource fence) {
        this.fence = fence;
    }

    /** Whether a subclass proxy of {@code type} can be made: not final, not a JDK proxy. */
    static boolean canProxy(Class<?> type) {
        return !Modifier.isFinal(type.getModifiers()) && !Proxy.isProxyClass(type) && !type.isRecord();
    }

    /** A proxy of {@code fence.target()}'s class whose connections come from {@code fence}. */
    static DataSource proxy(FencedDataSource fence) {
        DataSource pool = fence.target();
        ProxyFactory factory = new ProxyFactory(pool);
        factory.setProxyTargetClass(true);
        factory.setOpaque(true);
        factory.addAdvice(new ClassPreservingFence(fence));
        factory.setFrozen(true);
        return (DataSource) factory.getProxy(pool.getClass().getClassLoader());
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object[] args = invocation.getArguments();
        Class<?>[] types = method.getParameterTypes();
        switch (method.getName()) {
            case "getConnection":
                if (types.length == 0) {
                    return fence.getConnection();
                }
                if (types.length == 2 && types[0] == String.class && types[1] == String.class) {
                    return fence.getConnection((String) args[0], (String) args[1]);
                }
                break;
            case "unwrap":
                if (types.length == 1 && types[0] == Class.class) {
                    return fence.unwrap((Class<?>) args[0]);
                }
                break;
            case "isWrapperFor":
                if (types.length == 1 && types[0] == Class.class) {
                    return fence.isWrapperFor((Class<?>) args[0]);
                }
                break;
            default:
                break;
        }
        return invocation.proceed();
    }
}
