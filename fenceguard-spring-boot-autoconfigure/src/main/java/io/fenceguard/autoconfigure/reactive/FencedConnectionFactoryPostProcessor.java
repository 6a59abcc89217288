package io.fenceguard.autoconfigure.reactive;

import io.fenceguard.autoconfigure.jdbc.FenceguardJdbcProperties;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.reactor.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Fences every R2DBC {@link ConnectionFactory} bean (the pool Boot creates, or the application's own)
 * with {@code fenceguard.jdbc.tables} and token columns, the settings of the JDBC fence; beans in
 * {@code fenceguard.jdbc.excluded-beans} and factories that are fenced already are left as they are.
 */
final class FencedConnectionFactoryPostProcessor implements BeanPostProcessor {

    private final Environment environment;
    private volatile FenceguardJdbcProperties properties;

    FencedConnectionFactoryPostProcessor(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof ConnectionFactory factory) || FencedConnectionFactory.isFenced(factory)) {
            return bean;
        }
        FenceguardJdbcProperties props = properties();
        if (props.getTables().isEmpty() || props.getExcludedBeans().contains(beanName)) {
            return bean;
        }
        return FencedConnectionFactory.wrap(factory, config(props));
    }

    private static FencingConfig config(FenceguardJdbcProperties props) {
        FencingConfig.Builder builder = FencingConfig.builder().gateMode(props.getGateMode())
                .gateTable(props.getGateTable()).dialect(props.getDialect()).planCacheSize(props.getPlanCacheSize());
        for (String table : props.getTables()) {
            builder.fence(FencedTable.of(table, props.getTokenColumns().getOrDefault(table, props.getTokenColumn())));
        }
        return builder.build();
    }

    private FenceguardJdbcProperties properties() {
        FenceguardJdbcProperties current = properties;
        if (current == null) {
            current = Binder.get(environment).bind("fenceguard.jdbc", FenceguardJdbcProperties.class)
                    .orElseGet(FenceguardJdbcProperties::new);
            properties = current;
        }
        return current;
    }
}
