package io.fenceguard.autoconfigure.jdbc;

import io.fenceguard.jdbc.FencedDataSource;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Wraps every DataSource bean in a {@link FencedDataSource}, except excluded bean names. Binds
 * {@code guard.jdbc.*} itself, lazily, because a post-processor must not pull other beans in early.
 */
public class FencedDataSourcePostProcessor implements BeanPostProcessor {

    private final Environment environment;
    private volatile FenceguardJdbcProperties properties;

    public FencedDataSourcePostProcessor(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource dataSource) || bean instanceof FencedDataSource) {
            return bean;
        }
        FenceguardJdbcProperties props = properties();
        if (!props.isEnabled() || props.getExcludedBeans().contains(beanName)) {
            return bean;
        }
        return FencedDataSource.wrap(dataSource, props.toConfig());
    }

    private FenceguardJdbcProperties properties() {
        FenceguardJdbcProperties current = properties;
        if (current == null) {
            current = Binder.get(environment).bind("guard.jdbc", FenceguardJdbcProperties.class)
                    .orElseGet(FenceguardJdbcProperties::new);
            properties = current;
        }
        return current;
    }
}
