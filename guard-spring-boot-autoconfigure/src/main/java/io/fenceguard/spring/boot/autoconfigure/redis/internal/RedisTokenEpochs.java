package io.fenceguard.spring.boot.autoconfigure.redis.internal;

import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.TokenEpochSource;
import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisProperties;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The token epoch source the Redis provider's tokens rest on in this application, decided in one place so that the
 * provider and every inbound bound (HTTP, messages) agree: the application's TokenEpochSource bean; else, unless
 * {@code fenceguard.redis.token-epoch=clock}, a sequence in its one DataSource when that database outlives the
 * application (not an in-memory H2, HSQLDB or Derby, as Spring Boot's {@code EmbeddedDatabaseConnection} tells);
 * else none (the clock floor). Wiring of this module only (the Redis, HTTP and messaging auto-configurations), not
 * API: an application that wants another source declares a TokenEpochSource bean.
 */
public final class RedisTokenEpochs {

    private static final Logger log = LoggerFactory.getLogger(RedisTokenEpochs.class);
    private static final boolean BOOT_JDBC = ClassUtils.isPresent("org.springframework.boot.jdbc.EmbeddedDatabaseConnection",
            RedisTokenEpochs.class.getClassLoader());
    private static final AtomicBoolean IN_MEMORY_TOLD = new AtomicBoolean();

    private RedisTokenEpochs() {
    }

    /**
     * The source for {@code properties}, or {@code null} for the clock floor.
     *
     * @throws IllegalStateException when {@code fenceguard.redis.token-epoch=database} is set and there is not one
     *                               DataSource, or it is an in-memory database
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
        if (BOOT_JDBC && InMemory.isInMemory(dataSource)) {
            if (properties.isTokenEpochSet()) {
                throw new IllegalStateException("fenceguard.redis.token-epoch=database needs a database that outlives "
                        + "the application, but the DataSource is an in-memory database, whose sequence starts anew "
                        + "with every start: remove the property (tokens then rest on the Redis clock floor), or point "
                        + "the DataSource at a durable database");
            }
            if (IN_MEMORY_TOLD.compareAndSet(false, true)) {
                log.info("fenceguard: the DataSource is an in-memory database, which does not outlive the application, "
                        + "so Redis tokens rest on the Redis clock floor instead of a durable epoch; for a durable epoch "
                        + "point the DataSource at a database that outlives it (PostgreSQL, MariaDB, H2 on a file), "
                        + "or set fenceguard.redis.token-epoch=clock to choose the clock floor without this line");
            }
            return null;
        }
        return JdbcTokenEpochSource.of(dataSource, properties.getTokenEpochSequence(), Duration.ofSeconds(5));
    }

    /** {@link #resolve(FenceguardRedisProperties, ObjectProvider, ObjectProvider)} with the properties of the environment. */
    public static TokenEpochSource resolve(BeanFactory beans) {
        FenceguardRedisProperties properties = Binder.get(beans.getBean(Environment.class))
                .bindOrCreate("fenceguard.redis", FenceguardRedisProperties.class);
        return resolve(properties, beans.getBeanProvider(TokenEpochSource.class), beans.getBeanProvider(DataSource.class));
    }

    /** Loaded only with spring-boot-jdbc present. */
    private static final class InMemory {
        static boolean isInMemory(DataSource dataSource) {
            return org.springframework.boot.jdbc.EmbeddedDatabaseConnection.isEmbedded(dataSource);
        }
    }
}
