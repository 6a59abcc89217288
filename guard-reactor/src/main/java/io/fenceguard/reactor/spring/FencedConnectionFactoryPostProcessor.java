package io.fenceguard.reactor.spring;

import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.reactor.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.function.SingletonSupplier;

/**
 * Fences every R2DBC {@link ConnectionFactory} bean (a pool of Boot's, or the application's own) with the
 * tables and token columns of a {@link FencingConfig}; excluded bean names, factories that are fenced already,
 * and every factory when the configuration fences no table are left as they are. Loaded only with
 * fenceguard-reactor, fenceguard-jdbc and r2dbc-spi.
 */
public class FencedConnectionFactoryPostProcessor implements BeanPostProcessor {

    private final Supplier<FencingConfig> config;
    private final Supplier<Set<String>> excludedBeans;

    /**
     * @param config asked once, at the first factory: a post-processor must not pull other beans in early
     * @param excludedBeans the names of factories to leave unfenced, asked once at the first factory
     */
    public FencedConnectionFactoryPostProcessor(Supplier<FencingConfig> config, Supplier<Set<String>> excludedBeans) {
        if (config == null || excludedBeans == null) {
            throw new IllegalArgumentException("config and excludedBeans must not be null");
        }
        this.config = SingletonSupplier.of(config);
        this.excludedBeans = SingletonSupplier.of(() -> Set.copyOf(excludedBeans.get()));
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof ConnectionFactory factory) || FencedConnectionFactory.isFenced(factory)) {
            return bean;
        }
        FencingConfig fencing = config.get();
        if (fencing.tables().isEmpty() || excludedBeans.get().contains(beanName)) {
            return bean;
        }
        return FencedConnectionFactory.wrap(factory, fencing);
    }
}
