package io.fenceguard.spring.boot.autoconfigure.redis;

import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.TokenEpochSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The token epoch source the Redis provider's tokens rest on in this application, decided in one place so that the
 * provider and every inbound bound (HTTP, messages) agree: the application's TokenEpochSource bean; else, unless
 * {@code fenceguard.redis.token-epoch=clock}, a sequence in its one DataSource; else none (the clock floor).
 */
public final class RedisTokenEpochs {

    private RedisTokenEpochs() {
    }

    /**
     * The source for {@code properties}, or {@code null} for the clock floor.
     *
     * @throws IllegalStateException when {@code fenceguard.redis.token-epoch=database} is set and there is not one
     *                               DataSource
     */
    public static TokenEpochSource resolve(FenceguardRedisProperties properties, ObjectProvider<TokenEpochSource> own,
                                           ObjectProvider<DataSource> dataSources) {
        TokenEpochSource bean = own.getIfAvailable();
        if (bean != null || properties.getTokenEpoch() == FenceguardRedisProperties.TokenEpoch.CLOCK) {
            return bean;
        }
        DataSource dataSource = dataSources.getIfUnique();
        if (dataSource == null) {
            if (!properties.isTokenEpochSet()) {
                return null; // the default without a DataSource: the clock floor, which the provider says once
            }
            throw new IllegalStateException("fenceguard.redis.token-epoch=database needs one DataSource bean (or a "
                    + "TokenEpochSource bean); found " + dataSources.stream().count());
        }
        return JdbcTokenEpochSource.of(dataSource, properties.getTokenEpochSequence(), Duration.ofSeconds(5));
    }

    /** {@link #resolve(FenceguardRedisProperties, ObjectProvider, ObjectProvider)} with the properties of the environment. */
    public static TokenEpochSource resolve(BeanFactory beans) {
        FenceguardRedisProperties properties = Binder.get(beans.getBean(Environment.class))
                .bindOrCreate("fenceguard.redis", FenceguardRedisProperties.class);
        return resolve(properties, beans.getBeanProvider(TokenEpochSource.class), beans.getBeanProvider(DataSource.class));
    }
}
